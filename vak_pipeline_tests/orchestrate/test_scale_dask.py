"""Same bytes on every executor: one upload through the in-process executor (under OMP_NUM_THREADS=1, as a
Dask nanny sets it), the multiprocess executor with two uploads side by side, and a local Dask cluster of two
workers gives byte-identical vakforge.jsonl and splits.json. Raw files are copied with their mtimes (the
recording's mtime is its meta.created), so the runs see the same inputs."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vak_pipeline_tests import processes

# the first test also runs the module's reference run: two `vak run`s, each allowed 900 s
pytestmark = pytest.mark.timeout(1900)

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "raw"
CALL = "call_001.flac"  # stereo, channel_map agent/user


PSEUDONYM_KEY = "5a" * 32  # the data root's secret (redaction.published): the same data, the same key, in every root


def _data_dir(root: Path, calls: bool = True) -> Path:
    """root/raw/sample-chats (copied) and, with calls, root/raw/sample-calls holding one stereo call; the
    data root's pseudonym key is the same in every root (it is an input of the release, like its raw files)."""
    raw = root / "raw"
    (root / "work").mkdir(parents=True, exist_ok=True)
    (root / "work" / ".pseudonym-key").write_text(PSEUDONYM_KEY, encoding="ascii")
    shutil.copytree(SAMPLE / "sample-chats", raw / "sample-chats")  # copy2 keeps mtimes
    if calls:
        up = raw / "sample-calls"
        up.mkdir(parents=True)
        shutil.copy2(SAMPLE / "sample-calls" / "upload.yaml", up / "upload.yaml")
        shutil.copy2(SAMPLE / "sample-calls" / CALL, up / CALL)
        with open(SAMPLE / "sample-calls" / "recordings.csv", newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        with open(up / "recordings.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(r for r in rows if r["file"] == CALL)
    return root


def vak_run(data: Path, *args: str, **extra_env: str) -> subprocess.CompletedProcess:
    pinned = ("DAGSTER_", "VAK_", "OMP_", "MKL_", "CT2_", "ONEDNN_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(pinned)}
    env.update(HF_HUB_OFFLINE="1", DAGSTER_TELEMETRY_DISABLED="1", DASK_DISTRIBUTED__WORKER__DAEMON="False",
               **extra_env)
    cmd = [sys.executable, "-c", "from vak_pipeline.cli import app; app()", "run", "--data", str(data), *args]
    out = processes.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out


def release_bytes(data: Path) -> dict[str, bytes]:
    return {name: (data / name).read_bytes() for name in ("vakforge.jsonl", "splits.json")}


@pytest.fixture(scope="module")
def in_process_run(tmp_path_factory) -> Path:
    """The reference: every step in one process, with one OpenMP thread (what a Dask nanny imposes)."""
    data = _data_dir(tmp_path_factory.mktemp("in_process"))
    vak_run(data, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    records = [json.loads(line) for line in (data / "vakforge.jsonl").read_text(encoding="utf-8").splitlines()]
    assert any(r.get("audio") for r in records) and len(records) > 3  # the call and the chats made it
    return data


@pytest.mark.slow
def test_dask_run_on_two_local_workers_gives_the_same_bytes_as_the_in_process_run(tmp_path, in_process_run):
    data = _data_dir(tmp_path)
    out = vak_run(data, "--executor", "dask", "--parallel-uploads", "2")
    assert "ingest_job[sample-calls]: ok" in out.stdout and "publish_job: ok" in out.stdout
    assert release_bytes(data) == release_bytes(in_process_run)


@pytest.mark.slow
def test_multiprocess_executor_runs_two_uploads_at_once_with_the_same_bytes(tmp_path, in_process_run):
    data = _data_dir(tmp_path)
    out = vak_run(data, "--executor", "multiprocess", "--parallel-uploads", "2")
    assert "ingest_job[sample-chats]: ok" in out.stdout and "ingest_job[sample-calls]: ok" in out.stdout
    assert release_bytes(data) == release_bytes(in_process_run)
