"""The redaction stage alone, on the e2e bench's corpus: where its time goes.

Why: in the quick e2e bench `redacted_manifest` was 69.8 s of 341 s of step time (20.5%), against an aim of
<= 10% (issue 27). This runs the real stage (`redact_upload`) on the same generated chats as `bench_e2e`
(scripts/make_corpus.py, 10,000 chats quick, 100,000 full), imported by `tag_upload` first, and prints:
- the stage's wall and CPU seconds with `workers` processes (as the e2e run: the core count) and with one,
  each per 1,000 turns and per 1,000 records;
- one profiled in-process run (cProfile, workers=1) split into parts: the recognizers on turns and tool JSON,
  the published strings outside the turns (ids, metadata, tool schemas), release file writes (redaction logs,
  alignments, audio), record parsing and dumping, and the rest (runner, ledger, keys, redacted.jsonl).

Calls are left out unless `--calls DIR` names a data directory whose `work/<upload>/conversations.jsonl` was
transcribed already (an e2e run kept with VAK_BENCH_KEEP=1): transcription needs Whisper and minutes, the
chats are 99.8% of the records. Output goes to a temp dir, deleted after.

    python -m bench.bench_redaction_stage --texts 10000           # the e2e quick corpus
    python -m bench.bench_redaction_stage --texts 2000 --no-profile
    python -m bench redaction_stage --quick                       # 10,000 chats, as e2e quick
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import row

ROOT = Path(__file__).resolve().parent.parent
UPLOAD = "corpus-chats"
# parts of a profiled run: (label, functions whose cumulative time is that part); the rest is the runner's
PARTS = (
    ("recognizers on turns and tool JSON", ("redact.py", "find_record_pii")),
    ("published strings outside the turns", ("published.py", "clean_published")),
    ("release file writes (logs, alignments, audio)", ("storage.py", "atomic_write_text"),
     ("audio.py", "write_masked"), ("audio.py", "publish_copy")),
    ("record parsing and dumping (pydantic, JSON)", ("main.py", "model_validate_json"),
     ("main.py", "model_validate"), ("main.py", "model_dump"), ("record.py", "dump")),
)


def make_chats(out: Path, texts: int) -> Path:
    """raw/corpus-chats/ of `texts` chats, as bench_e2e makes them (scripts/make_corpus.py, seed 0 + 1)."""
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_corpus.py"), str(out), "--calls", "0",
                    "--texts", str(texts)], check=True, capture_output=True, cwd=ROOT)
    shutil.rmtree(out / "raw" / "corpus-calls", ignore_errors=True)
    return out


def imported(corpus: Path, calls: Path | None, into: Path) -> tuple[Path, list[str]]:
    """A data dir with the chats imported (tag_upload) and, with `calls`, that dir's transcribed uploads."""
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.speech.stage import tag_upload

    shutil.copytree(corpus, into)
    uploads = [UPLOAD]
    tag_upload(DataLayout.at(into), UPLOAD)
    if calls is not None:
        for conv in sorted(Path(calls, "work").glob("*/conversations.jsonl")):
            name = conv.parent.name
            if name == UPLOAD:
                continue
            shutil.copytree(Path(calls, "raw", name), into / "raw" / name, dirs_exist_ok=True)
            shutil.copytree(conv.parent, into / "work" / name, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("redact*", "release", "ledger*"))
            uploads.append(name)
    return into, uploads


def redaction_run(data: Path, uploads: list[str], workers: int, profile: cProfile.Profile | None = None
                  ) -> tuple[float, float, int, int]:
    """(wall s, CPU s of this process and its children, records, turns) of one first redaction of `uploads`."""
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.redaction.stage import redact_upload
    from vak_pipeline.storage import iter_jsonl

    layout = DataLayout.at(data)
    for u in uploads:  # a first run: no ledger, no previous output
        shutil.rmtree(layout.release_files(u), ignore_errors=True)
        for p in layout.work(u).glob("redact*"):
            p.unlink()
        for p in layout.work(u).glob("ledger*/*redact*"):
            p.unlink()
    records = turns = 0
    for u in uploads:
        for jl in iter_jsonl(layout.conversations(u)):
            records += 1
            turns += len(jl.value.get("turns", []))
    t0, c0 = time.perf_counter(), os.times()
    if profile is not None:
        profile.enable()
    for u in uploads:
        res = redact_upload(layout, u, workers=workers)
        if res.failed or not res.redacted:
            raise RuntimeError(f"redaction of {u} failed: {res.failed} failed, {res.redacted} redacted")
    if profile is not None:
        profile.disable()
    c1 = os.times()
    cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) + (
        c1.children_system - c0.children_system)
    return time.perf_counter() - t0, cpu, records, turns


def parts(profile: cProfile.Profile, total: float) -> list[tuple[str, float]]:
    """Seconds of each PART (cumulative time of its functions, outermost call only) and the rest."""
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    out, covered = [], 0.0
    for label, *funcs in PARTS:
        s = sum(v[3] for (file, _, fn), v in stats.items() if any(file.endswith(f) and fn == n for f, n in funcs))
        out.append((label, s))
        covered += s
    out.append(("the rest: runner, ledger, keys, redacted.jsonl, gates", max(0.0, total - covered)))
    return out


def measure(texts: int, workers: int, calls: Path | None = None, profile: bool = True) -> list[dict]:
    b = "redaction_stage"
    tmp = Path(tempfile.mkdtemp(prefix="vak-bench-redact-"))
    try:
        data, uploads = imported(make_chats(tmp / "corpus", texts), calls, tmp / "data")
        rows = []
        for w in dict.fromkeys((workers, 1)):
            wall, cpu, records, turns = redaction_run(data, uploads, w)
            note = f"{records:,} records, {turns:,} turns ({', '.join(uploads)}); CPU {cpu:.1f} s"
            rows.append(row(b, f"redaction, workers={w}", round(wall, 1), "s", note=note))
            rows.append(row(b, f"redaction, workers={w}, per 1,000 turns", round(1000 * wall / turns, 2), "s",
                            note=f"{1000 * cpu / turns:.2f} CPU s per 1,000 turns; "
                                 f"{1000 * wall / records:.2f} s per 1,000 records"))
        if profile:
            prof = cProfile.Profile()
            wall, _, _, turns = redaction_run(data, uploads, 1, prof)
            for label, s in parts(prof, wall):
                rows.append(row(b, f"profiled, workers=1: {label}", round(s, 1), "s",
                                note=f"{100 * s / wall:.0f}% of {wall:.1f} s under cProfile; "
                                     f"{1000 * s / turns:.2f} s per 1,000 turns"))
        return rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(quick: bool) -> list[dict]:
    return measure(10_000 if quick else 100_000, os.cpu_count() or 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--texts", type=int, default=10_000, help="chats (e2e quick: 10,000)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="redaction processes (e2e: cores)")
    ap.add_argument("--calls", type=Path, help="a data dir with transcribed call uploads (VAK_BENCH_KEEP e2e)")
    ap.add_argument("--no-profile", action="store_true", help="skip the profiled run")
    args = ap.parse_args()
    for r in measure(args.texts, args.workers, args.calls, not args.no_profile):
        print(f"{r['metric']:<70} {r['value']:>8} {r['unit'] or '':<3} {r.get('note') or ''}", flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
