"""A test's child process cannot outlive it: its timeout holds even when grandchildren keep its pipes open,
and whatever it started is killed with it."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest

from vak_pipeline_tests import processes


def _alive(marker: str) -> bool:
    """Whether any process's command line holds `marker`."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    return True
            except OSError:
                continue
    return False


def test_a_grandchild_holding_the_pipe_does_not_keep_a_finished_child_waiting_and_is_killed():
    marker = "317.123"  # a sleep nobody else runs
    started = time.monotonic()
    done = processes.run(["bash", "-c", f"sleep {marker} & echo started"], capture_output=True, text=True,
                         timeout=60)
    assert done.returncode == 0 and done.stdout == "started\n"
    assert time.monotonic() - started < 30
    assert any(marker in cmd for cmd in done.leftovers)  # it was still running when bash exited ...
    assert not _alive(marker)  # ... and is gone now


def test_a_timeout_kills_the_child_and_its_children_and_raises():
    marker = "318.123"
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        processes.run(["bash", "-c", f"sleep {marker} & sleep {marker}; echo never"], capture_output=True,
                      timeout=2)
    assert time.monotonic() - started < 30
    assert not _alive(marker)


def test_a_spawned_server_is_stopped_with_its_children_on_leaving_the_block():
    marker = "319.123"
    with processes.spawned(["bash", "-c", f"sleep {marker} & wait"]) as proc:
        time.sleep(0.5)
        assert _alive(marker)
    assert proc.returncode is not None and not _alive(marker)


def test_every_test_starts_its_processes_through_the_helper():
    """A bare subprocess call has no group teardown; `processes.run` / `processes.spawned` do."""
    here = Path(__file__).parent
    bare = re.compile(r"\bsubprocess\.(run|Popen|call|check_call|check_output)\(")
    offenders = [f"{p.relative_to(here.parent)}:{n}" for p in sorted(here.rglob("*.py")) if p.name != "processes.py"
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if bare.search(line)]
    assert offenders == [], f"use vak_pipeline_tests.processes.run / .spawned instead of subprocess at {offenders}"
