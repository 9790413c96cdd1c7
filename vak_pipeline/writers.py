"""One writer per upload (and one publish) of a data root, whoever launches it.

`vak run`, a run launched by the daemon (sensor, schedule, backfill) and a run from the UI all take the
same lock: an advisory `flock` on a file under the data root (`work/<upload>/.writer.lock`, or
`work/.publish.lock`), so it holds across processes and across Dagster instances. The file also says who
holds it (a token: the run id, or the token `vak run` puts on the runs it launches) and when it was last
taken or given back. A run whose steps run in separate processes holds the lock step by step; between two
of its steps the lock is free but the lease is fresh (`LEASE_GRACE_S`), and `busy` still says so, which is
what `vak run` and the upload sensor read before they start a second writer.

Holding is re-entrant by token: a step whose run carries the token of the process that already holds the
lock (`vak run` around its own in-process or multiprocess run) goes ahead without waiting for itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

LEASE_GRACE_S = 30.0  # a lease released this recently by another token may be a run between two of its steps
TOKEN_TAG = "vak/writer_token"  # run tag: the token of the lock holder that launched the run (vak run)


@dataclass(frozen=True)
class Lease:
    token: str
    held: bool  # False: given back at `updated` (a run between steps, or finished)
    updated: float
    final: bool = False  # given back for good (vak run's end), not between two steps of a run
    pid: int = 0
    host: str = ""

    def fresh(self, now: float | None = None) -> bool:
        return self.held or (not self.final and ((now or time.time()) - self.updated) < LEASE_GRACE_S)


_held: dict[str, tuple[str, int]] = {}  # lock path -> (token, depth): the locks this process holds
_guard = threading.Lock()


def read_lease(path: Path) -> Lease | None:
    """Who last took the lock at `path` (None: never taken, or unreadable)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Lease(str(raw["token"]), bool(raw["held"]), float(raw["updated"]), bool(raw.get("final")),
                     int(raw.get("pid", 0)), str(raw.get("host", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_locked(path: Path) -> bool:
    """True while some process holds the flock at `path` (this process included)."""
    if str(path) in _held:
        return True
    if not path.is_file():
        return False
    with open(path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)  # fails while anyone holds it, shared or not
        except BlockingIOError:
            return True
        fcntl.flock(fh, fcntl.LOCK_UN)
    return False


def busy(path: Path, token: str | None = None, now: float | None = None) -> Lease | None:
    """The lease of another writer that is at work on `path` now (held, or given back moments ago), else None."""
    lease = read_lease(path)
    if lease is not None and lease.token == token:
        return None
    if is_locked(path):
        return lease or Lease("?", True, time.time())  # taken, its lease not written yet
    if lease is not None and lease.held:
        return None  # it says held, yet nobody holds the flock: its holder died (killed, a crash); the kernel freed it
    return lease if lease is not None and lease.fresh(now) else None


def _write(fh, token: str, held: bool, final: bool = False) -> None:
    fh.seek(0)
    fh.truncate()
    fh.write(json.dumps({"token": token, "held": held, "updated": time.time(), "final": final, "pid": os.getpid(),
                         "host": socket.gethostname()}))
    fh.flush()


@contextlib.contextmanager
def hold(path: Path, token: str, on_wait: Callable[[Lease | None], None] | None = None,
         final: bool = False, shared: bool = False) -> Iterator[None]:
    """Hold the writer lock at `path` as `token`, waiting for another holder to finish (`on_wait` is told
    once who it is). Re-entrant in this process. `final`: the lease is given back for good at the end (a
    whole run's holder, `vak run`), not between two steps of a run. `shared`: a step of a run, which
    steps of the same run (the same token) may hold at once (parallel exports); another token waits."""
    key = str(path)
    with _guard:
        mine = _held.get(key)
        if mine is not None:
            _held[key] = (mine[0], mine[1] + 1)
    if mine is not None:
        try:
            yield
        finally:
            with _guard:
                t, depth = _held[key]
                _held[key] = (t, depth - 1)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        told = False

        def tell() -> None:
            nonlocal told
            if on_wait is not None and not told:
                on_wait(read_lease(path))
            told = True

        if shared:  # wait for another token's run to be done, then share with this run's other steps
            while True:
                if busy(path, token) is not None:  # another run holds it, or is between two of its steps
                    tell()
                    time.sleep(0.5)
                    continue
                try:
                    fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:  # a whole-run holder (vak run) took it meanwhile
                    tell()
                    fcntl.flock(fh, fcntl.LOCK_SH)
                lease = read_lease(path)
                if lease is None or lease.token == token or not lease.fresh():
                    break
                fcntl.flock(fh, fcntl.LOCK_UN)  # another run's step took it meanwhile: wait for that run
        else:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                tell()
                fcntl.flock(fh, fcntl.LOCK_EX)
        with _guard:
            _held[key] = (token, 1)
        _write(fh, token, True)
        try:
            yield
        finally:
            with _guard:
                t, depth = _held.pop(key)
                if depth > 1:  # a nested holder outlived this one (threads): keep the lock until it ends
                    _held[key] = (t, depth - 1)
            _write(fh, token, False, final)
            fcntl.flock(fh, fcntl.LOCK_UN)


def holder_token(path: Path) -> str | None:
    """The token this process holds `path` under, if it holds it."""
    mine = _held.get(str(path))
    return mine[0] if mine else None
