"""The same Definitions on a cluster: `vak run --executor dask` on a local Dask cluster of two workers gives
the same vakforge.jsonl as the in-process run; `--executor multiprocess --parallel-uploads 2` runs upload
partitions side by side and gives the same manifest too."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "raw"
CALL = "call_001.flac"  # stereo, channel_map agent/user


def _data_dir(root: Path, calls: bool = True) -> Path:
    """root/raw/sample-chats (copied) and, with calls, root/raw/sample-calls holding one stereo call."""
    raw = root / "raw"
    shutil.copytree(SAMPLE / "sample-chats", raw / "sample-chats")
    if calls:
        up = raw / "sample-calls"
        up.mkdir(parents=True)
        shutil.copy(SAMPLE / "sample-calls" / "upload.yaml", up / "upload.yaml")
        shutil.copy(SAMPLE / "sample-calls" / CALL, up / CALL)
        with open(SAMPLE / "sample-calls" / "recordings.csv", newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        with open(up / "recordings.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(r for r in rows if r["file"] == CALL)
    return root


def vak_run(data: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "VAK_"))}
    env.update(HF_HUB_OFFLINE="1", DAGSTER_TELEMETRY_DISABLED="1", DASK_DISTRIBUTED__WORKER__DAEMON="False")
    cmd = [sys.executable, "-c", "from vak_pipeline.cli import app; app()", "run", "--data", str(data), *args]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out


def manifest(data: Path) -> dict[str, dict]:
    """Records by id, without meta.created (the wall-clock time the record was built)."""
    lines = (data / "vakforge.jsonl").read_text(encoding="utf-8").splitlines()
    out = {}
    for r in map(json.loads, lines):
        r["meta"].pop("created", None)
        out[r["id"]] = r
    return out


@pytest.fixture(scope="module")
def in_process_run(tmp_path_factory) -> Path:
    data = _data_dir(tmp_path_factory.mktemp("in_process"))
    vak_run(data)
    return data


@pytest.mark.slow
def test_dask_run_on_two_local_workers_matches_the_in_process_run(tmp_path, in_process_run):
    data = _data_dir(tmp_path)
    out = vak_run(data, "--executor", "dask", "--parallel-uploads", "2")
    assert "ingest_job[sample-calls]: ok" in out.stdout and "publish_job: ok" in out.stdout
    got, want = manifest(data), manifest(in_process_run)
    assert any(r.get("audio") for r in want.values()) and len(want) > 3  # the call and the chats made it
    assert got == want
    splits, want_splits = (json.loads((d / "splits.json").read_text()) for d in (data, in_process_run))
    splits.pop("manifest_hash"), want_splits.pop("manifest_hash")  # the hash covers meta.created
    assert splits == want_splits


@pytest.mark.slow
def test_multiprocess_executor_runs_two_uploads_at_once_with_the_same_result(tmp_path, in_process_run):
    data = _data_dir(tmp_path)
    out = vak_run(data, "--executor", "multiprocess", "--parallel-uploads", "2")
    assert "ingest_job[sample-chats]: ok" in out.stdout and "ingest_job[sample-calls]: ok" in out.stdout
    assert manifest(data) == manifest(in_process_run)
