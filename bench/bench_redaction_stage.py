"""The redaction stage alone, on the e2e bench's corpus: where its time goes.

Why: in the quick e2e bench `redacted_manifest` was 69.8 s of 341 s of step time (20.5%), against an aim of
<= 10% (issue 27). This runs the real stage (`redact_upload`) on the same generated chats as `bench_e2e`
(scripts/make_corpus.py, 10,000 chats quick, 100,000 full), imported by `tag_upload` first, and prints:
- the stage's wall and CPU seconds with `workers` processes (as the e2e run: the core count) and with one,
  each per 1,000 turns and per 1,000 records (CPU: this process, its reaped children, and a forkserver's
  start-up and workers);
- one more in-process run (workers=1) split into parts, each timed by wrapping its function: the recognizers on
  turns and tool JSON, the published strings outside the turns (ids, metadata, tool schemas), release file
  writes (redaction logs, alignments), audio, the ledger's stamps, and the rest (runner, items and keys, ledger,
  redacted.jsonl).

Calls are left out unless `--calls DIR` names a data directory whose `work/<upload>/conversations.jsonl` was
transcribed already (an e2e run kept with VAK_BENCH_KEEP=1): transcription needs Whisper and minutes, the
chats are 99.8% of the records. Output goes to a temp dir, deleted after.

    python -m bench.bench_redaction_stage --texts 10000           # the e2e quick corpus
    python -m bench.bench_redaction_stage --texts 2000 --no-parts
    python -m bench redaction_stage --quick                       # 10,000 chats, as e2e quick
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .common import row

ROOT = Path(__file__).resolve().parent.parent
UPLOAD = "corpus-chats"
# the parts of a timed run: (label, the names in redaction.stage whose calls are that part, timed by wrapping them);
# the rest is the runner's (items, keys, the ledger, redacted.jsonl). Wrapping costs microseconds a call, where
# cProfile multiplied the time of call-heavy code (libphonenumber) several times.
PARTS = (
    ("recognizers on turns and tool JSON (redact_record_full)", ("redact_record_full",)),
    ("published strings outside the turns (clean_published)", ("clean_published",)),
    ("redaction logs and alignments written (atomic_write_*)", ("atomic_write_bytes", "atomic_write_text")),
    ("audio masked or linked (write_masked, publish_copy)", ("write_masked", "publish_copy")),
    ("stamps of the release files for the ledger (_published)", ("_published",)),
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


def redaction_run(data: Path, uploads: list[str], workers: int, parts: dict[str, float] | None = None
                  ) -> tuple[float, float, int, int]:
    """(wall s, CPU s of this process and its children, records, turns) of one first redaction of `uploads`;
    with `parts` (workers=1), the seconds of each PARTS entry are added to it."""
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.redaction import stage
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
    originals = {}
    if parts is not None:
        for label, names in PARTS:
            parts.setdefault(label, 0.0)
            for name in names:
                originals[name] = getattr(stage, name)
                setattr(stage, name, _timed(originals[name], parts, label))
    try:
        t0, c0, s0 = time.perf_counter(), os.times(), _servers_cpu()
        for u in uploads:
            res = stage.redact_upload(layout, u, workers=workers)
            if res.failed or not res.redacted:
                raise RuntimeError(f"redaction of {u} failed: {res.failed} failed, {res.redacted} redacted")
        c1, s1 = os.times(), _servers_cpu()
    finally:
        for name, fn in originals.items():
            setattr(stage, name, fn)
    cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) + (
        c1.children_system - c0.children_system) + sum(v - s0.get(pid, 0.0) for pid, v in s1.items())
    return time.perf_counter() - t0, cpu, records, turns


def _servers_cpu() -> dict[int, float]:
    """CPU seconds of this process's live children and the children they reaped: a forkserver (its own start-up
    and every worker it forked), which os.times() never counts because it outlives the run."""
    import psutil

    out = {}
    for child in psutil.Process().children():
        try:
            t = child.cpu_times()
            out[child.pid] = t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return out


def _timed(fn: Callable[..., Any], into: dict[str, float], label: str) -> Callable[..., Any]:
    def wrapper(*args: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kw)
        finally:
            into[label] += time.perf_counter() - t0
    return wrapper


def measure(texts: int, workers: int, calls: Path | None = None, parts: bool = True) -> list[dict]:
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
        if parts:
            spent: dict[str, float] = {}
            wall, _, _, turns = redaction_run(data, uploads, 1, spent)
            spent["the rest: runner, items and keys, ledger, redacted.jsonl"] = max(0.0, wall - sum(spent.values()))
            for label, s in spent.items():
                rows.append(row(b, f"workers=1, part: {label}", round(s, 1), "s",
                                note=f"{100 * s / wall:.0f}% of {wall:.1f} s; "
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
    ap.add_argument("--no-parts", action="store_true", help="skip the run split into parts")
    args = ap.parse_args()
    for r in measure(args.texts, args.workers, args.calls, not args.no_parts):
        print(f"{r['metric']:<70} {r['value']:>8} {r['unit'] or '':<3} {r.get('note') or ''}", flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
