"""An operating-system error as one sentence a user can act on: what happened, on which path, what to do.

One place for the wording: `vak run` prints it instead of a traceback, the Dagster steps fail with it
(defs/failures.py), and the block handler records it as the reason a candidate was not released. Every
write of a release goes to a candidate first and is swapped in by renames, so the previous release is
intact whatever failed; the sentences say so.
"""

from __future__ import annotations

import errno
import re

_FULL = {errno.ENOSPC, errno.EDQUOT}
_DENIED = {errno.EACCES, errno.EPERM}
_READ_ONLY = {errno.EROFS}
# str(OSError): "[Errno 28] No space left on device: '/data/x'" (what a serialized step error holds)
_TEXT = re.compile(r"\[Errno (\d+)\] ([^:]+?)(?:: '(.*?)')?(?: -> '(.*?)')?\s*$")


def describe_os_error(exc: OSError, doing: str | None = None) -> str:
    """The sentence for `exc` (`doing`: what was being done, e.g. "publishing the release")."""
    return _sentence(exc.errno, exc.strerror or str(exc), exc.filename, doing)


def describe_os_error_text(text: str, doing: str | None = None) -> str | None:
    """The sentence for an OSError known only by its text (a Dagster step's serialized error), or None when
    `text` is not one."""
    m = _TEXT.search(text.strip().splitlines()[-1] if text.strip() else "")
    if m is None:
        return None
    return _sentence(int(m.group(1)), m.group(2), m.group(3), doing)


def is_environment_error(exc: BaseException) -> bool:
    """Whether `exc` is a problem of the machine (disk full, permissions, read-only), not of the data."""
    return isinstance(exc, OSError) and exc.errno in (_FULL | _DENIED | _READ_ONLY)


def _sentence(code: int | None, strerror: str, filename: object, doing: str | None) -> str:
    path = str(filename) if filename not in (None, "") else "a file under the data directory"
    while_ = f" while {doing}" if doing else ""
    intact = "Nothing was half written: the previous release (if any) is intact."
    if code in _FULL:
        return (f"The disk holding {path} is full (no space left on device){while_}. {intact} Free space on that "
                "disk, or run `vak run --data` on a directory with more room, then run `vak run` again.")
    if code in _DENIED:
        return (f"Permission denied on {path}{while_}. {intact} Give the account running vak read and write access "
                "to that path (or run as its owner), then run `vak run` again.")
    if code in _READ_ONLY:
        return (f"{path} is on a read-only file system{while_}. {intact} Remount it read-write, or run "
                "`vak run --data` on a writable directory, then run `vak run` again.")
    return (f"The operating system refused a file operation on {path}{while_}: {strerror}. {intact} Fix the cause "
            "named here, then run `vak run` again.")
