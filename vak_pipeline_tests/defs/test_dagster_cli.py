"""The code location as a user meets it: `dagster definitions validate` and `dagster dev` serving the graph."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "dagster_home"
    home.mkdir(exist_ok=True)
    shutil.copy(ROOT / "dagster.yaml", home / "dagster.yaml")
    env = dict(os.environ, DAGSTER_HOME=str(home), VAK_DAGSTER_STORAGE=str(home / "storage"),
               VAK_DAGSTER_LOGS=str(home / "logs"), VAK_DAGSTER_ARTIFACTS=str(home / "artifacts"),
               DAGSTER_TELEMETRY_DISABLED="1")
    return env


def test_dagster_definitions_validate_passes(tmp_path):
    out = subprocess.run([str(BIN / "dagster"), "definitions", "validate", "-w", "workspace.yaml"], cwd=ROOT,
                         env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "All code locations passed validation" in out.stderr + out.stdout


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_dagster_dev_serves_the_asset_graph(tmp_path):
    port = _free_port()
    proc = subprocess.Popen([str(BIN / "dagster"), "dev", "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(port)],
                            cwd=ROOT, env=_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    query = json.dumps({"query": "{ assetNodes { assetKey { path } } }"}).encode()
    keys: set[str] = set()
    try:
        deadline = time.time() + 180
        while time.time() < deadline:
            try:
                req = urllib.request.Request(f"http://127.0.0.1:{port}/graphql", data=query,
                                             headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(req, timeout=5) as resp:
                    nodes = json.loads(resp.read())["data"]["assetNodes"]
                keys = {"/".join(n["assetKey"]["path"]) for n in nodes}
                if keys:
                    break
            except (OSError, KeyError, TypeError, ValueError):
                pass
            time.sleep(2)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    assert {"raw_uploads", "normalized_audio", "transcripts", "tagged_turns", "redacted_manifest",
            "validated_manifest", "splits", "moshi_lora", "turn_based", "cascaded", "parquet_export"} <= keys
