"""The package's own bytes as one key: a result cached across publishes (an export shard, a record's rule
findings) is never reused across a code or locale-pack change, even one that forgot to bump a version."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path


@cache
def code_fingerprint() -> str:
    """sha256 of every file of the package (modules, locale packs, schemas), read once per process."""
    pkg = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(pkg.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            digest.update(path.relative_to(pkg).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
