"""Ingest stages, this tree against a git revision: the text import (inside tagged_turns) and the redaction,
each on a fresh data dir and then again unchanged, on the same generated chat corpus, in the same run.

Why: the stage core (core/stage.py: keys, ledgers, reports) must not make a stage slower than it was
before (issue 14). The reference is a git worktree of `--ref` (default REF, the last revision before the
core) made under the temp dir and imported in a child process with its own PYTHONPATH; this tree runs
the same child code. Runs alternate (A B, then B A, ...) so the noise of a shared machine falls on
both sides; the table shows each side's median over `--rounds` and the ratio this tree / reference, of
the wall time and of the process's CPU time (steadier when other work shares the cores).
Times are of `tag_upload` (all text sources: the text import and writing conversations.jsonl) and of
`redact_upload`, in seconds, without process start-up and imports.

    python -m bench.bench_stages --texts 3000 --rounds 3            # against REF
    python -m bench.bench_stages --ref main --diff                  # also: are the outputs byte-identical?

`--diff` compares every file the last round of each side wrote under work/, redactions/, published
(alignments/, audio/) and the redacted manifest, so it is meaningful against a revision with the same
outputs (main), not against REF (no ledgers, no text_records.jsonl there). `python -m bench stages`
runs it with REF (quick: 1,000 chats, 3 rounds).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from .common import row

ROOT = Path(__file__).resolve().parent.parent
REF = "712aa79"  # before the text import, transcription and redaction moved onto core/stage.py
UPLOAD = "corpus-chats"
STEPS = ("text import, first run", "text import, unchanged rerun", "redaction, first run",
         "redaction, unchanged rerun")

CHILD = r"""
import json, shutil, sys, time
from pathlib import Path
from vak_pipeline.layout import DataLayout
from vak_pipeline.redaction.stage import redact_upload
from vak_pipeline.speech.stage import tag_upload
corpus, root, upload = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
shutil.rmtree(root, ignore_errors=True)
shutil.copytree(corpus, root)
layout = DataLayout.at(root)
times = []
for fn in (tag_upload, tag_upload, redact_upload, redact_upload):
    t0, c0 = time.perf_counter(), time.process_time()
    fn(layout, upload)
    times.append([time.perf_counter() - t0, time.process_time() - c0])
print("__RESULT__" + json.dumps(times))
"""


def make_corpus(out: Path, texts: int) -> Path:
    """raw/corpus-chats/ of `texts` chats (scripts/make_corpus.py of this tree, no calls)."""
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_corpus.py"), str(out), "--calls", "0",
                    "--texts", str(texts)], check=True, capture_output=True, cwd=ROOT)
    shutil.rmtree(out / "raw" / "corpus-calls", ignore_errors=True)
    return out


def ref_tree(rev: str, under: Path) -> Path:
    """A detached git worktree of `rev` under `under` (made once, reused while it sits at `rev`)."""
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    path = under / f"ref-{sha[:12]}"
    if not (path / "vak_pipeline").is_dir():
        subprocess.run(["git", "worktree", "add", "--detach", "--force", str(path), sha], cwd=ROOT, check=True,
                       capture_output=True)
    return path


def run_side(tree: Path, corpus: Path, data: Path) -> list[list[float]]:
    """[wall s, CPU s] of the four steps of one side, in a fresh Python that imports the library from `tree`."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", CHILD, str(corpus), str(data), UPLOAD], cwd=tree, env=env,
                         capture_output=True, text=True)
    lines = [x for x in out.stdout.splitlines() if x.startswith("__RESULT__")]
    if out.returncode or not lines:
        raise RuntimeError(f"stage run failed in {tree}: {out.stderr[-1500:]}")
    return json.loads(lines[-1][len("__RESULT__"):])


def compare(rounds: int, texts: int, ref: str, work: Path, diff: bool = False) -> dict:
    """Alternating runs of this tree and `ref`: {"ref", "rounds", "this": [[4 times]...], "ref_times": ...}."""
    work.mkdir(parents=True, exist_ok=True)
    corpus = make_corpus(work / "corpus", texts)
    sides = {"this": ROOT, "ref": ref_tree(ref, work)}
    times: dict[str, list[list[list[float]]]] = {"this": [], "ref": []}
    for r in range(rounds):
        order = ["this", "ref"] if r % 2 == 0 else ["ref", "this"]
        for side in order:
            times[side].append(run_side(sides[side], corpus, work / f"data-{side}"))
    out: dict = {"ref": ref, "texts": texts, "rounds": rounds, "times": times}
    if diff:
        out["diff"] = differing_files(work / "data-this", work / "data-ref")
    return out


def differing_files(a: Path, b: Path) -> list[str]:
    """Paths (relative) that differ between two data dirs, or exist in one only; ledger/ included."""
    files_a = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    out = sorted(files_a ^ files_b)
    out += sorted(f for f in files_a & files_b if not filecmp.cmp(a / f, b / f, shallow=False))
    return out


def medians(result: dict, cpu: bool = False) -> list[tuple[str, float, float]]:
    """(step, this tree's median, the reference's median) per step: wall time, or CPU time with `cpu`."""
    k = int(cpu)
    return [(step, statistics.median(t[i][k] for t in result["times"]["this"]),
             statistics.median(t[i][k] for t in result["times"]["ref"])) for i, step in enumerate(STEPS)]


def print_table(result: dict) -> None:
    print(f"{result['texts']:,} chats, {result['rounds']} alternating rounds, medians (min-max); ref = {result['ref']}")
    for cpu in (False, True):
        k = int(cpu)
        print(f"{'stage (' + ('CPU' if cpu else 'wall') + ' s)':<30} {'ref':>18} {'this tree':>18} {'ratio':>6}")
        for i, (step, this, ref) in enumerate(medians(result, cpu)):
            cell = {}
            for side, m in (("this", this), ("ref", ref)):
                runs = [t[i][k] for t in result["times"][side]]
                cell[side] = f"{m:.3f} ({min(runs):.2f}-{max(runs):.2f})"
            print(f"{step:<30} {cell['ref']:>18} {cell['this']:>18} {this / ref:>6.2f}")
    if "diff" in result:
        n = len(result["diff"])
        print(f"outputs of the last round: {'byte-identical' if not n else f'{n} files differ'}")
        for f in result["diff"][:20]:
            print(f"  differs: {f}")


def run(quick: bool) -> list[dict]:
    """For `python -m bench stages`: this tree against REF, one row per step."""
    texts = 1000 if quick else 3000
    try:
        with tempfile.TemporaryDirectory(prefix="vak-bench-stages-") as tmp:
            result = compare(3, texts, REF, Path(tmp))
    finally:  # the reference worktree went with the temp dir: forget it
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)
    return [row("stages", f"{step} ({kind})", round(this, 3), "s", round(ref, 3), round(this / ref, 2),
                f"{texts} chats; reference: git {REF}; median of 3 alternating runs")
            for kind, cpu in (("wall", False), ("CPU", True)) for step, this, ref in medians(result, cpu)]


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_stages", description=__doc__.split("\n")[0])
    ap.add_argument("--ref", default=REF, help=f"git revision to compare with (default {REF})")
    ap.add_argument("--texts", type=int, default=3000, help="chats in the corpus")
    ap.add_argument("--rounds", type=int, default=3, help="alternating runs of each side")
    ap.add_argument("--work", type=Path, help="folder for the corpus, the reference worktree and the data "
                    "dirs (kept); default a temp dir, deleted")
    ap.add_argument("--diff", action="store_true", help="also list the output files that differ")
    ap.add_argument("--json", type=Path, help="also write the raw timings here")
    args = ap.parse_args()
    tmp = None
    if args.work is None:
        tmp = tempfile.TemporaryDirectory(prefix="vak-bench-stages-")
        args.work = Path(tmp.name)
    try:
        result = compare(args.rounds, args.texts, args.ref, args.work, args.diff)
    finally:
        if tmp is not None:
            tmp.cleanup()
            subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)
    print_table(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
