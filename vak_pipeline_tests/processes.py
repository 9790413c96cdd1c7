"""Child processes of tests: each in its own session, always under a timeout, torn down with all its children.

A test that starts `vak run`, `dagster dev` or a Dask cluster also starts what those start (run workers,
code servers, Dask nannies, Dagster's compute-log `tail -F`). Killing only the direct child leaves them
holding the test's pipes, and `subprocess.run(timeout=...)` then waits for EOF forever. Here every child
leads its own process group (`start_new_session=True`) and the whole group is killed on the way out:
on success, on timeout and when pytest-timeout interrupts the test.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

# How long leftovers of a finished child may keep its pipes open before they are killed.
_LINGER_S = 2.0


def kill_group(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    """Send `sig` to every process of the child's group (the child leads it: pgid == pid)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def group_members(proc: subprocess.Popen) -> list[str]:
    """The command lines of the processes still in the child's group, the child itself excluded."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == proc.pid:
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == proc.pid and fields[0] != "Z":  # fields: state, ppid, pgrp, ...
                members.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip())
        except (OSError, IndexError, ValueError):
            continue
    return members


def stop(proc: subprocess.Popen, grace_s: float = 30.0) -> None:
    """SIGTERM the group, wait up to `grace_s` for the child, then SIGKILL whatever of the group is left."""
    if proc.poll() is None:
        kill_group(proc, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace_s)
    kill_group(proc, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace_s)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


@contextlib.contextmanager
def spawned(args: Sequence[str], *, grace_s: float = 30.0, **popen_kw: Any) -> Iterator[subprocess.Popen]:
    """A long-lived child (e.g. `dagster dev`) in its own session; its whole group is stopped on exit."""
    proc = subprocess.Popen(list(args), start_new_session=True, **popen_kw)
    try:
        yield proc
    finally:
        stop(proc, grace_s)


class Finished(subprocess.CompletedProcess):
    """A finished child, with what of its group was still running when it exited (then killed)."""

    leftovers: list[str]


def run(args: Sequence[str], *, timeout: float, capture_output: bool = False, check: bool = False,
        input: str | bytes | None = None, **popen_kw: Any) -> Finished:
    """`subprocess.run` whose timeout holds: the child's whole group is killed when it expires, and
    leftovers that keep the pipes open after the child exited are killed too (after `_LINGER_S`)."""
    if capture_output:
        popen_kw.setdefault("stdout", subprocess.PIPE)
        popen_kw.setdefault("stderr", subprocess.PIPE)
    if input is not None:
        popen_kw["stdin"] = subprocess.PIPE
    deadline = time.monotonic() + timeout
    exited_at: float | None = None
    leftovers: list[str] = []
    with spawned(args, grace_s=5.0, **popen_kw) as proc:
        while True:
            try:
                out, err = proc.communicate(input, timeout=max(0.01, min(1.0, deadline - time.monotonic())))
                leftovers = group_members(proc)
                break
            except subprocess.TimeoutExpired:
                input = None  # sent by the first call; communicate refuses it again
                now = time.monotonic()
                if proc.poll() is not None and exited_at is None:
                    exited_at, leftovers = now, group_members(proc)
                if now >= deadline or (exited_at is not None and now - exited_at >= _LINGER_S):
                    kill_group(proc)
                    out, err = proc.communicate()
                    if now >= deadline and exited_at is None:
                        raise subprocess.TimeoutExpired(list(args), timeout, out, err) from None
                    break
    done = Finished(list(args), proc.returncode, out, err)
    done.leftovers = leftovers
    if check:
        done.check_returncode()
    return done


def run_starting_a_daemon(args: Sequence[str], *, timeout: float, **run_kw: Any) -> subprocess.CompletedProcess:
    """A command whose job is to leave a server running on its own (`pg_ctl start`): its timeout holds, but
    its group is not torn down (that would kill the server); the test stops the server with its own stop
    command in a `finally`."""
    return subprocess.run(list(args), timeout=timeout, start_new_session=True, **run_kw)
