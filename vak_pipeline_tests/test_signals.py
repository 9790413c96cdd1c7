"""The suite and `vak run` behave the same however they were started. A background job of a non-interactive
shell (`./dev test &`, `.ci/run &`) starts with SIGINT ignored; Dagster copies SIGINT's disposition onto
SIGTERM after a run on the main thread, so a later run's compute-log `tail -F` processes (runs on other
threads, as `vak run`'s ingest runs, or child processes) ignored SIGTERM: 30 s per step and orphaned tails
holding the test's stdout. The conftest and `vak run` give both signals their default actions back."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import dagster as dg

from vak_pipeline_tests import processes

REPO = Path(__file__).resolve().parents[1]


def _tail_children() -> list[int]:
    """This process's children that are `tail` (Dagster's compute-log capture)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            comm, rest = stat.split("(", 1)[1].rsplit(")", 1)
            if comm == "tail" and int(rest.split()[1]) == os.getpid():
                found.append(int(entry.name))
    return found


@dg.asset
def _speaks() -> int:
    print("captured by the compute-log manager")
    return 1


def test_a_run_on_another_thread_after_a_main_thread_run_stops_its_log_tails_at_once():
    """On the instance the tests use (DAGSTER_HOME's dagster.yaml: local compute logs, captured by tails)."""
    instance = dg.DagsterInstance.get()
    assert dg.materialize([_speaks], instance=instance).success  # main thread: sets SIGTERM like SIGINT after
    took: list[float] = []

    def second() -> None:
        started = time.monotonic()
        assert dg.materialize([_speaks], instance=instance).success
        took.append(time.monotonic() - started)

    worker = threading.Thread(target=second)
    worker.start()
    worker.join(timeout=120)
    assert took, "the second run did not finish in 120 s"
    assert _tail_children() == [], f"its compute-log tails ignored SIGTERM and outlived it (run took {took[0]:.0f} s)"


def test_the_dagster_tests_pass_in_bounded_time_under_an_ignored_sigint_with_no_tail_left(tmp_path):
    inner = test_a_run_on_another_thread_after_a_main_thread_run_stops_its_log_tails_at_once.__name__
    test = f"{Path(__file__).relative_to(REPO)}::{inner}"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    started = time.monotonic()
    done = processes.run(["bash", "-c", "trap '' INT; exec \"$@\"", "bash", sys.executable, "-m", "pytest", "-q",
                          "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'inner'}", test],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]
    assert time.monotonic() - started < 200
    assert [cmd for cmd in done.leftovers if cmd.startswith("tail")] == []


def test_vak_run_gives_inherited_ignored_signals_their_default_actions_and_keeps_chosen_handlers():
    check = ("import signal; from vak_pipeline.cli import default_signals; "
             "signal.signal(signal.SIGUSR1, signal.SIG_IGN); default_signals(); "
             "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler, "
             "signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, "
             "signal.getsignal(signal.SIGUSR1) is signal.SIG_IGN)")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = processes.run(["bash", "-c", "trap '' INT TERM; exec \"$@\"", "bash", sys.executable, "-c", check],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True", "True"]


def test_this_session_does_not_ignore_sigint_or_sigterm():
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN
