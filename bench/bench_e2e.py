"""End to end: the whole pipeline (`run_pipeline`, as `vak run`) on a generated corpus, then again after
one new upload.

Corpus (scripts/make_corpus.py): stereo calls spoken by espeak-ng (agent and customer on separate
channels, planted fake PII) plus chat conversations in a `*.messages.jsonl` upload. Full: 200 calls
(about 2.4 h of audio) + 100,000 chats; quick: 20 calls + 10,000 chats. The new upload holds 5 % as
many calls and chats.

Each pipeline run is its own process (peak RSS is the run's own); per-stage times are the Dagster
step durations, summed over upload partitions. References measured in the same run:
- run 1: the audio duration (ratio = x real time for the whole pipeline);
- run 1, transcription: the first 3 (full: 10) calls decoded by bare faster-whisper sequential (beam 5),
  bare batched and the stage's decoding, in this process, with WER against the calls' script text
  (bench/decoding.py);
- run 2 (corpus + new upload): the same new upload run alone on an empty data dir. Ingest of the old
  uploads must be near zero (incremental stages) so run 2 ~ new-upload-alone + re-publishing the
  manifest (validate, split, export: unpartitioned, they stream the whole manifest again).
normalized_audio and redacted_manifest run with `workers` = the core count (VAK_BENCH_WORKERS to change).
Output is written to a temp dir and deleted. Set VAK_BENCH_KEEP=1 to keep it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from .common import _PEAK, row

ROOT = Path(__file__).resolve().parent.parent

CHILD = _PEAK + r"""
import json, resource, sys, time
from pathlib import Path
import dagster as dg
from vak_pipeline.orchestrate import run_pipeline
root, home, executor, workers = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
ops = {"normalized_audio": {"config": {"workers": workers}}, "redacted_manifest": {"config": {"workers": workers}}}
with dg.DagsterInstance.local_temp(home) as inst:
    t0 = time.perf_counter()
    rep = run_pipeline(root, instance=inst, echo=lambda s: None, executor=executor, run_config={"ops": ops})
    total = time.perf_counter() - t0
    steps = []
    for r in rep.runs:
        for s in inst.get_run_step_stats(r.run_id):
            if s.start_time and s.end_time:
                steps.append({"run": r.name, "partition": r.partition, "step": s.step_key,
                              "s": s.end_time - s.start_time})
    out = {"total": total, "success": rep.success, "steps": steps,
           "failed": [f for r in rep.runs for f in r.failed_steps + r.failed_checks],
           "rss": _peak_mib(),
           "rss_children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}
print("__RESULT__" + json.dumps(out))
"""

STAGES = ("raw_uploads", "normalized_audio", "transcripts", "tagged_turns", "redacted_manifest",
          "validated_manifest", "splits", "moshi_lora", "turn_based", "cascaded", "parquet_export", "steward_report")


def make_corpus(root: Path, calls: int, texts: int, *args: str) -> list[dict]:
    """scripts/make_corpus.py in a child process (its TTS pool needs an importable module); its summaries."""
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_corpus.py"), str(root), "--calls", str(calls),
                          "--texts", str(texts), *args], capture_output=True, text=True, check=True, cwd=ROOT)
    return [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]


def pipeline_run(root: Path, home: Path, executor: str = "in_process") -> dict:
    """One `run_pipeline` over `root` in a fresh process: total seconds, per-step seconds, peak RSS (MiB)."""
    home.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, HF_HUB_OFFLINE="1", DAGSTER_HOME="")
    workers = os.environ.get("VAK_BENCH_WORKERS", str(os.cpu_count() or 1))
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), str(home), executor, workers], capture_output=True,
                         text=True, cwd=ROOT, env=env)
    lines = [x for x in out.stdout.splitlines() if x.startswith("__RESULT__")]
    if out.returncode or not lines:
        raise RuntimeError(f"pipeline run failed (rc {out.returncode}): {out.stderr[-2000:]}")
    return json.loads(lines[-1][len("__RESULT__"):])


def by_stage(res: dict, partitions: set[str] | None = None) -> dict[str, float]:
    """Seconds per asset step (checks folded into their asset), summed over the chosen partitions."""
    out: dict[str, float] = defaultdict(float)
    for s in res["steps"]:
        if partitions is not None and s["partition"] is not None and s["partition"] not in partitions:
            continue
        key = s["step"] if s["step"] in STAGES else "checks"
        out[key] += s["s"]
    return out


def ingest_seconds(res: dict, partitions: set[str]) -> float:
    return sum(s["s"] for s in res["steps"] if s["run"] == "ingest_job" and s["partition"] in partitions)


def run(quick: bool) -> list[dict]:
    return measure(*((20, 10_000) if quick else (200, 100_000)))


def measure(calls: int, texts: int) -> list[dict]:
    """The e2e rows for a corpus of `calls` calls and `texts` chats (run() picks the sizes)."""
    new_calls, new_texts = max(1, calls // 20), texts // 20
    tmp = Path(tempfile.mkdtemp(prefix="vak-bench-e2e-"))
    rows: list[dict] = []
    b = "e2e"
    try:
        root = tmp / "data"
        t0 = time.perf_counter()
        made = make_corpus(root, calls, texts)
        audio_s = sum(m["audio_seconds"] for m in made)
        rows.append(row(b, "corpus", f"{calls} calls, {audio_s / 3600:.2f} h audio, {texts:,} chats",
                        note=f"made with espeak-ng in {time.perf_counter() - t0:.0f} s"))
        first = pipeline_run(root, tmp / "dagster")
        if not first["success"]:
            rows.append(row(b, "run 1 failed steps/checks", ", ".join(first["failed"])))
        stages = by_stage(first)
        step_total = sum(stages.values()) or 1.0
        for st in STAGES:
            if st in stages:
                rows.append(row(b, f"run 1: {st}", round(stages[st], 1), "s",
                                note=f"{100 * stages[st] / step_total:.0f}% of the step time"))
        # where the transcription time goes: bare faster-whisper on the same calls, alternating, same process
        from .decoding import corpus_calls, decoding_rows

        rows += decoding_rows(b, corpus_calls(root / "raw" / "corpus-calls", min(calls, 3 if calls <= 20 else 10)),
                              repeats=1)
        if "checks" in stages:
            rows.append(row(b, "run 1: asset checks (GX, rules)", round(stages["checks"], 1), "s"))
        rows.append(row(b, "run 1: whole pipeline", round(first["total"], 1), "s", reference=round(audio_s, 1),
                        ratio=round(first["total"] / audio_s, 3), note="reference = audio seconds (x real time)"))
        rows.append(row(b, "run 1: peak RSS", round(first["rss"], 0), "MiB"))

        new = ("--upload", "delta", "--seed", "7")
        delta = make_corpus(root, new_calls, new_texts, *new)[0]
        alone_root = tmp / "alone"
        make_corpus(alone_root, new_calls, new_texts, *new)
        second = pipeline_run(root, tmp / "dagster")
        alone = pipeline_run(alone_root, tmp / "dagster-alone")
        old = {m["upload"] for m in made}
        rows.append(row(b, "new upload", f"{new_calls} calls, {delta['audio_seconds']:.0f} s audio, "
                        f"{new_texts:,} chats"))
        rows.append(row(b, "run 2: ingest of the old uploads", round(ingest_seconds(second, old), 1), "s",
                        reference=round(ingest_seconds(first, old), 1),
                        ratio=round(ingest_seconds(second, old) / max(ingest_seconds(first, old), 1e-9), 3),
                        note="reference = their ingest in run 1"))
        rows.append(row(b, "run 2: ingest of the new upload", round(ingest_seconds(second, {"delta"}), 1), "s",
                        reference=round(ingest_seconds(alone, {"delta"}), 1),
                        ratio=round(ingest_seconds(second, {"delta"}) / max(ingest_seconds(alone, {"delta"}), 1e-9),
                                    2), note="reference = the new upload ingested alone"))
        pub2 = sum(s["s"] for s in second["steps"] if s["run"] == "publish_job")
        pub1 = sum(s["s"] for s in first["steps"] if s["run"] == "publish_job")
        rows.append(row(b, "run 2: publish (validate, split, export)", round(pub2, 1), "s", reference=round(pub1, 1),
                        ratio=round(pub2 / max(pub1, 1e-9), 2), note="reference = publish in run 1 (whole manifest)"))
        rows.append(row(b, "run 2: whole pipeline", round(second["total"], 1), "s",
                        reference=round(first["total"], 1), ratio=round(second["total"] / first["total"], 3),
                        note=f"reference = run 1; new upload alone took {alone['total']:.1f} s"))
        st2 = by_stage(second, old)
        slow = ", ".join(f"{k} {v:.1f}s" for k, v in sorted(st2.items(), key=lambda kv: -kv[1])[:4])
        rows.append(row(b, "run 2: slowest stages", slow, note="old uploads + publish"))
        rows.append(row(b, "run 2: peak RSS", round(second["rss"], 0), "MiB", reference=round(first["rss"], 0),
                        ratio=round(second["rss"] / first["rss"], 2)))
        return rows
    finally:
        if not os.environ.get("VAK_BENCH_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"kept {tmp}", flush=True)


if __name__ == "__main__":  # pragma: no cover
    for r in run(quick="--quick" in sys.argv):
        print(r)
