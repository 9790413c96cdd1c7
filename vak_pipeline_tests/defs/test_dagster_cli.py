"""The code location as a user meets it, with the project's venv active and nothing else (no DAGSTER_HOME,
no VAK_* variables), from the repo root: `dagster definitions validate`, `dg check defs`, `dg list defs`,
and `dagster dev` serving the graph. Plain Dagster makes a temporary instance in the working directory
and reads the repo's dagster.yaml, which therefore must not need any environment variable."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from vak_pipeline_tests import processes

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _env(tmp_path: Path) -> dict[str, str]:
    """A shell with the venv activated and nothing of ours set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "VAK_"))}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(BIN.parent), HOME=str(tmp_path))
    return env


def _run(tmp_path: Path, *cmd: str) -> subprocess.CompletedProcess:
    out = processes.run([str(BIN / cmd[0]), *cmd[1:]], cwd=ROOT, env=_env(tmp_path), capture_output=True,
                        text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return out


def test_dagster_definitions_validate_passes_with_no_environment_set(tmp_path):
    out = _run(tmp_path, "dagster", "definitions", "validate", "-w", "workspace.yaml")
    assert "All code locations passed validation" in out.stderr + out.stdout


def test_dg_check_and_list_defs_work_as_pyproject_promises(tmp_path):
    out = _run(tmp_path, "dg", "check", "defs")
    assert "All definitions loaded successfully" in out.stdout + out.stderr
    listed = json.loads(_run(tmp_path, "dg", "list", "defs", "--json").stdout)
    keys = {a["asset_key"] for a in listed["assets"]}
    assert {"raw_uploads", "transcripts", "validated_manifest", "steward_report"} <= keys


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_dagster_dev_serves_the_asset_graph(tmp_path):
    port = _free_port()
    query = json.dumps({"query": "{ assetNodes { assetKey { path } } }"}).encode()
    keys: set[str] = set()
    with processes.spawned([str(BIN / "dagster"), "dev", "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(port)],
                           cwd=ROOT, env=_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
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
    assert {"raw_uploads", "normalized_audio", "transcripts", "tagged_turns", "redacted_manifest",
            "validated_manifest", "splits", "moshi_lora", "turn_based", "cascaded", "parquet_export"} <= keys
