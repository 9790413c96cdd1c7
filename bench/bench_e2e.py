"""End to end: the whole pipeline (`run_pipeline`, as `vak run`) on a generated corpus, then again after
one new upload.

Corpus (scripts/make_corpus.py): stereo calls spoken by espeak-ng (agent and customer on separate
channels, planted fake PII) plus chat conversations in a `*.messages.jsonl` upload. Full: 200 calls
(about 2.4 h of audio) + 100,000 chats; quick: 20 calls + 10,000 chats. The new upload holds 5 % as
many calls and chats.

Each pipeline run is its own process (peak RSS is the run's own); per-stage times are read from the
Dagster runs' events (STEP_START to STEP_SUCCESS/STEP_FAILURE of each step), summed over upload partitions:
one row per asset step (named by the assets it materialized: synth, duplex_s2s and release included), one
per asset-check step, all checks together, the time outside any step, each with its share of the step time.
References measured in the same run:
- run 1: the audio duration (ratio = x real time for the whole pipeline);
- run 1, transcription: the first 3 (full: 10) calls decoded by bare faster-whisper sequential (beam 5),
  bare batched and the stage's decoding, in this process, with WER against the calls' script text
  (bench/decoding.py);
- run 2 (corpus + new upload): the same new upload run alone on an empty data dir. Ingest of the old
  uploads must be near zero (incremental stages) so run 2 ~ new-upload-alone + re-publishing the
  manifest (validate, split, export: unpartitioned, they stream the whole manifest again).
- run 1, bytes: every export's bytes on disk (each inode once, so a file linked to the published audio costs
  nothing) against the bytes of the published audio/ (aim <= 2x with defaults), embedded audio named;
- run 1, synth: audio seconds rendered per second of synth step (one core) beside the espeak-ng command line
  on the texts of 20 synthesized conversations, a process per conversation and per turn (start-ups included;
  skipped with a line saying so when the command line is missing).
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
KEEP = {"STEP_START", "STEP_SUCCESS", "STEP_FAILURE", "ASSET_MATERIALIZATION", "ASSET_CHECK_EVALUATION"}
with dg.DagsterInstance.local_temp(home) as inst:
    t0 = time.perf_counter()
    rep = run_pipeline(root, instance=inst, echo=lambda s: None, executor=executor, run_config={"ops": ops})
    total = time.perf_counter() - t0
    events = []
    for r in rep.runs:
        for e in inst.all_logs(r.run_id):
            de = e.dagster_event
            if de is None or not de.step_key or de.event_type_value not in KEEP:
                continue
            ev = {"run_id": r.run_id, "run": r.name, "partition": r.partition, "step": de.step_key,
                  "type": de.event_type_value, "t": e.timestamp}
            if de.event_type_value == "ASSET_MATERIALIZATION":
                ev["asset"] = de.asset_key.to_user_string()
            elif de.event_type_value == "ASSET_CHECK_EVALUATION":
                ev["check"] = de.event_specific_data.check_name
            events.append(ev)
    out = {"total": total, "success": rep.success, "events": events,
           "failed": [f for r in rep.runs for f in r.failed_steps + r.failed_checks],
           "rss": _peak_mib(),
           "rss_children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}
print("__RESULT__" + json.dumps(out))
"""



def step_times(events: list[dict]) -> list[dict]:
    """One entry per executed step, from the run's own events: seconds from STEP_START to STEP_SUCCESS (or
    STEP_FAILURE), and what the step was: an `asset` step (it materialized something; named by its assets),
    a `check` step (it only evaluated asset checks; named by its step key) or an `op`."""
    steps: dict[tuple, dict] = {}
    for e in events:
        key = (e.get("run_id") or e["run"], e["partition"], e["step"])
        st = steps.setdefault(key, {"run": e["run"], "partition": e["partition"], "step": e["step"],
                                    "start": None, "end": None, "assets": [], "checks": [], "failed": False})
        kind = e["type"]
        if kind == "STEP_START":
            st["start"] = e["t"] if st["start"] is None else min(st["start"], e["t"])
        elif kind in ("STEP_SUCCESS", "STEP_FAILURE"):
            st["end"] = e["t"] if st["end"] is None else max(st["end"], e["t"])
            st["failed"] = st["failed"] or kind == "STEP_FAILURE"
        elif kind == "ASSET_MATERIALIZATION" and e.get("asset") not in st["assets"]:
            st["assets"].append(e["asset"])
        elif kind == "ASSET_CHECK_EVALUATION" and e.get("check") not in st["checks"]:
            st["checks"].append(e["check"])
    out = []
    for st in steps.values():
        if st["start"] is None or st["end"] is None:
            continue
        if st["assets"]:
            kind, name = "asset", "+".join(sorted(st["assets"]))
        elif st["checks"]:
            kind, name = "check", st["step"]
        else:
            kind, name = "op", st["step"]
        out.append({"run": st["run"], "partition": st["partition"], "step": st["step"], "kind": kind, "name": name,
                    "s": st["end"] - st["start"], "start": st["start"], "checks": len(st["checks"]),
                    "failed": st["failed"]})
    return sorted(out, key=lambda s: s["start"])


def by_stage(steps: list[dict], partitions: set[str] | None = None) -> dict[tuple[str, str], float]:
    """Seconds per (kind, name) of step, summed over the chosen partitions (unpartitioned steps always count),
    in the order the steps first ran."""
    out: dict[tuple[str, str], float] = defaultdict(float)
    for s in steps:
        if partitions is not None and s["partition"] is not None and s["partition"] not in partitions:
            continue
        out[(s["kind"], s["name"])] += s["s"]
    return dict(out)


def stage_rows(bench: str, label: str, steps: list[dict], wall: float | None = None) -> list[dict]:
    """A row per asset step, a row per asset-check step, then all checks together and the total, each with its
    share of the summed step time; with `wall`, the time outside any step (run start-up, orchestration)."""
    stages = by_stage(steps)
    total = sum(stages.values()) or 1e-9
    inline = defaultdict(int)
    for s in steps:
        if s["kind"] == "asset" and s["checks"]:
            inline[s["name"]] = max(inline[s["name"]], s["checks"])

    def share(v: float) -> str:
        return f"{100 * v / total:.1f}% of the step time"

    rows = []
    for kind, prefix in (("asset", ""), ("op", "op "), ("check", "check ")):
        for (k, name), v in stages.items():
            if k != kind:
                continue
            note = share(v)
            if inline.get(name):
                note += f"; evaluates {inline[name]} asset check(s) in its own step"
            rows.append(row(bench, f"{label}: {prefix}{name}", round(v, 1), "s", note=note))
    checks = sum(v for (k, _), v in stages.items() if k == "check")
    rows.append(row(bench, f"{label}: asset checks (all check steps)", round(checks, 1), "s", note=share(checks)))
    rows.append(row(bench, f"{label}: all steps", round(total, 1), "s", note="100% (the shares above)"))
    if wall is not None:
        rows.append(row(bench, f"{label}: outside steps", round(max(0.0, wall - total), 1), "s",
                        note="run launch, orchestration, waits between steps (wall - step time)"))
    return rows


def _files(d: Path):
    for p in sorted(d.rglob("*")) if d.is_dir() else []:
        if p.is_file() and not p.is_symlink():
            yield p


def export_bytes(root: Path) -> tuple[int, dict[str, int], dict[str, int]]:
    """(bytes of the published audio/, {export: bytes on disk}, {export: audio bytes embedded}) of a release.

    Disk bytes count each file once by inode: an export file hard-linked to the published audio costs nothing,
    and a clip linked from two exports is counted in the first of them (alphabetical). Embedded bytes are the
    `audio_bytes_embedded` an export's build.json reports (Parquet with embed_audio)."""
    seen: set[tuple[int, int]] = set()
    audio = 0
    for p in _files(root / "audio"):
        st = p.stat()
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            audio += st.st_size
    disk: dict[str, int] = {}
    embedded: dict[str, int] = {}
    for e in sorted(x for x in (root / "exports").iterdir() if x.is_dir()) if (root / "exports").is_dir() else []:
        n = 0
        for p in _files(e):
            st = p.stat()
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                n += st.st_size
        disk[e.name] = n
        try:
            counts = json.loads((e / "build.json").read_text(encoding="utf-8")).get("counts", {})
        except (OSError, ValueError):
            counts = {}
        if counts.get("audio_bytes_embedded"):
            embedded[e.name] = int(counts["audio_bytes_embedded"])
    return audio, disk, embedded


def bytes_rows(bench: str, label: str, root: Path) -> list[dict]:
    """Bytes of every export against the bytes of the published audio (aim <= 2x with defaults)."""
    audio, disk, embedded = export_bytes(root)
    rows = []
    for name, n in disk.items():
        note = f"{n / 2**20:.1f} MiB on disk (files linked to the published audio not counted)"
        if name in embedded:
            note += (f"; embeds {embedded[name] / 2**20:.1f} MiB of WAV bytes before the container's own "
                     "compression (a setting: embed or reference)")
        rows.append(row(bench, f"{label}: bytes of export {name}", n, "B", reference=audio,
                        ratio=round(n / max(audio, 1), 3), note=note))
    total = sum(disk.values())
    rows.append(row(bench, f"{label}: bytes of all exports", total, "B", reference=audio,
                    ratio=round(total / max(audio, 1), 3),
                    note=f"reference = bytes of the published audio/ ({audio / 2**20:.1f} MiB); aim <= 2x"))
    return rows


def synth_rows(bench: str, root: Path, steps: list[dict], sample: int = 20) -> list[dict]:
    """The synth stage's throughput per core in run 1 (audio seconds it rendered over its step seconds; it runs
    one render process at a time, each conversation in a process of its own) beside the espeak-ng CLI speaking
    the same texts (the first `sample` synthesized conversations of the manifest) with a process per
    conversation and per turn, start-ups included."""
    import re
    import shutil as _shutil

    rendered_s = 0.0
    for rep in sorted((root / "work").glob("*/synth_report.json")):
        rendered_s += float(json.loads(rep.read_text(encoding="utf-8")).get("counts", {}).get("audio_s", 0.0))
    synth_s = by_stage(steps).get(("asset", "synth"), 0.0)
    if not rendered_s or not synth_s:
        return [row(bench, "run 1: synth throughput per core", None, note="nothing was synthesized in run 1")]
    ours = rendered_s / synth_s
    rows = [row(bench, "run 1: synth throughput per core", round(ours, 1), "audio s/s",
                note=f"{rendered_s:.0f} s rendered in {synth_s:.1f} s of synth steps (synth workers = 1, "
                     "its default: one render process at a time, a process per conversation)")]
    if _shutil.which("espeak-ng") is None:
        return rows + [row(bench, "run 1: synth vs espeak-ng CLI", "SKIPPED",
                           note="no espeak-ng command line: apt-get install -y espeak-ng (./dev bench installs it)")]
    from .bench_synth import _cli_seconds, cli_per_conversation

    placeholder = re.compile(r"<[A-Z_]+_\d+>")
    convs = []
    with open(root / "vakforge.jsonl", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if (rec.get("audio") or {}).get("synthesis"):
                turns = [placeholder.sub("one two three", t["text"]) for t in rec["turns"] if t.get("text")]
                convs.append([t for t in turns if t.strip()])
            if len(convs) >= sample:
                break
    tmp = Path(tempfile.mkdtemp(prefix="vak-bench-cli-"))
    try:
        conv_wall, conv_audio = cli_per_conversation(convs, tmp)
        turn_wall, turn_audio, _ = _cli_seconds([t for c in convs for t in c], tmp)
    finally:
        _shutil.rmtree(tmp, ignore_errors=True)
    for what, wall, audio in (("per conversation", conv_wall, conv_audio), ("per turn", turn_wall, turn_audio)):
        cli = audio / wall
        rows.append(row(bench, f"run 1: synth vs espeak-ng CLI, a process {what}", round(ours, 1), "audio s/s",
                        reference=round(cli, 1), ratio=round(ours / cli, 3),
                        note=f"reference = the CLI on the texts of {len(convs)} synthesized conversations "
                             f"(placeholders read as digits), one core, its process start-ups included"))
    return rows


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
    res = json.loads(lines[-1][len("__RESULT__"):])
    res["steps"] = step_times(res.pop("events"))
    return res


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
        rows += stage_rows(b, "run 1", first["steps"], first["total"])
        # where the transcription time goes: bare faster-whisper on the same calls, alternating, same process
        from .decoding import corpus_calls, decoding_rows

        rows += decoding_rows(b, corpus_calls(root / "raw" / "corpus-calls", min(calls, 3 if calls <= 20 else 10)),
                              repeats=1)
        rows.append(row(b, "run 1: whole pipeline", round(first["total"], 1), "s", reference=round(audio_s, 1),
                        ratio=round(first["total"] / audio_s, 3), note="reference = audio seconds (x real time)"))
        rows.append(row(b, "run 1: peak RSS", round(first["rss"], 0), "MiB"))
        rows += bytes_rows(b, "run 1", root)
        rows += synth_rows(b, root, first["steps"])

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
        st2 = by_stage(second["steps"], old)
        slow = ", ".join(f"{n} {v:.1f}s" for (_, n), v in sorted(st2.items(), key=lambda kv: -kv[1])[:4])
        rows.append(row(b, "run 2: slowest stages", slow, note="old uploads + publish"))
        rows += stage_rows(b, "run 2", second["steps"], second["total"])
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
