"""Crash safety and concurrency of `vak run`: nothing lost, nothing half-written, nothing interleaved.

A `vak run` is SIGKILLed at random points several times; the next run finishes and its outputs equal those of
an uninterrupted run, byte for byte. After every kill, every file under its final name is complete (JSON
parses, WAVs decode to their header's length). Two `vak run`s started at once over the same data both succeed
(one waits for the other's lock) and leave the same outputs. Small data dir: sample-chats plus one call.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import soundfile as sf

from vak_pipeline_tests import processes

ROOT = Path(__file__).resolve().parents[2]
VAK = [sys.executable, "-c", "from vak_pipeline.cli import app; app()"]
CALL = "call_003"
CSV = ('file,conv_id,channel_map,user_speaker,scenario,names\n'
       f'{CALL}.flac,sample_{CALL},"{{""0"": ""user"", ""1"": ""agent""}}",cust-4471,check_status,\n')


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["DAGSTER_HOME"] = ""  # an ephemeral instance per run
    return env


def _make_data(dest: Path) -> Path:
    raw = ROOT / "data" / "raw"
    shutil.copytree(raw / "sample-chats", dest / "raw" / "sample-chats")  # copy2: mtimes (meta.created) kept
    calls = dest / "raw" / "sample-calls"
    calls.mkdir(parents=True)
    for name in ("upload.yaml", f"{CALL}.flac", f"{CALL}.events.jsonl"):
        shutil.copy2(raw / "sample-calls" / name, calls / name)
    (calls / "recordings.csv").write_text(CSV)
    return dest


def _start(data: Path) -> contextlib.AbstractContextManager[subprocess.Popen]:
    return processes.spawned([*VAK, "run", "--data", str(data)], cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)


def _run(data: Path) -> str:
    done = processes.run([*VAK, "run", "--data", str(data)], cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=300)
    assert done.returncode == 0, done.stdout
    return done.stdout


def outputs(data: Path) -> dict[str, bytes]:
    """Every published file (manifest, splits, reports, redaction logs, exports, audio) by relative path."""
    out: dict[str, bytes] = {}
    for rel in ("vakforge.jsonl", "splits.json", "reports/rejected.jsonl", "vakforge.schema.json"):
        out[rel] = (data / rel).read_bytes()
    for folder in ("redactions", "alignments", "audio", "exports"):
        for p in sorted((data / folder).rglob("*")):
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(data).parts):
                out[p.relative_to(data).as_posix()] = p.read_bytes()
    return out


def assert_nothing_half_written(data: Path) -> None:
    """Under its final (non-hidden) name, every JSON/JSONL file parses and every WAV holds its whole data."""
    for p in data.rglob("*"):
        rel = p.relative_to(data)
        if not p.is_file() or rel.parts[0] == "raw" or any(part.startswith(".") for part in rel.parts):
            continue
        if p.suffix == ".json":
            json.loads(p.read_bytes())
        elif p.suffix == ".jsonl":
            raw = p.read_bytes()
            assert raw == b"" or raw.endswith(b"\n"), f"{rel} ends mid-line"
            for line in raw.splitlines():
                json.loads(line)
        elif p.suffix == ".wav":
            with sf.SoundFile(p) as f:
                assert len(f.read(dtype="int16")) == f.frames, f"{rel} is shorter than its header"


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, bytes]:
    data = _make_data(tmp_path_factory.mktemp("ref") / "data")
    _run(data)
    return outputs(data)


def test_killed_runs_leave_no_half_files_and_the_next_run_equals_an_uninterrupted_one(tmp_path, reference):
    data = _make_data(tmp_path / "data")
    rng = random.Random(int(os.environ.get("VAK_CRASH_SEED", "20261129")))
    kills = 0
    for delay in (rng.uniform(1.0, 4.0), rng.uniform(4.0, 9.0), rng.uniform(9.0, 15.0), rng.uniform(0.2, 1.0)):
        with _start(data) as p:
            time.sleep(delay)
            if p.poll() is None:
                processes.kill_group(p, signal.SIGKILL)
                kills += 1
            p.communicate(timeout=60)
        assert_nothing_half_written(data)
    assert kills >= 2
    _run(data)
    assert_nothing_half_written(data)
    got = outputs(data)
    assert sorted(got) == sorted(reference)
    assert [rel for rel, blob in reference.items() if got[rel] != blob] == []


def test_two_runs_at_once_both_succeed_one_waits_and_outputs_are_not_interleaved(tmp_path, reference):
    data = _make_data(tmp_path / "data")
    with _start(data) as a, _start(data) as b:
        out_a, _ = a.communicate(timeout=300)
        out_b, _ = b.communicate(timeout=300)
    assert a.returncode == 0 and b.returncode == 0, (out_a, out_b)
    assert "waiting" in out_a + out_b  # the second one waited for the data dir's lock
    assert_nothing_half_written(data)
    got = outputs(data)
    assert sorted(got) == sorted(reference)
    assert [rel for rel, blob in reference.items() if got[rel] != blob] == []
