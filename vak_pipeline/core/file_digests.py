"""Content keys of files a publish reads again and again: the sha256 of a file's bytes and what was
found out about those bytes (an audio probe, an SNR), kept in SQLite under work/.publish/.

A digest is remembered by the file's (device, inode, size, mtime): the release files are hard links of
the stages' private outputs, so an unchanged recording keeps its inode and is not even re-read; a rewritten
one gets a new mtime and is hashed again. Results are keyed by the digest, so the same bytes at another path
(a re-delivery) are not checked twice either.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ..storage import Closing, sha256_file

T = TypeVar("T")


class FileDigests(Closing):
    """sha256 of files by stat, and results computed from a file's bytes, by sha256 and kind."""

    def __init__(self, conn: sqlite3.Connection | None) -> None:
        self.conn = conn
        self.computed: Counter = Counter()  # kind -> results computed (a miss: the file was read/decoded)
        self.reused: Counter = Counter()  # kind -> results found

    @classmethod
    def open(cls, path: Path) -> FileDigests:
        """The store at `path` (created); an unwritable place gives a store that remembers nothing."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path), isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE IF NOT EXISTS digest (stat TEXT PRIMARY KEY, sha TEXT NOT NULL)")
            conn.execute("CREATE TABLE IF NOT EXISTS result (sha TEXT, kind TEXT, value TEXT, "
                         "PRIMARY KEY (sha, kind))")
        except (OSError, sqlite3.Error):
            return cls(None)
        return cls(conn)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def sha256(self, path: str | Path) -> str:
        """The file's sha256, read again only when its stat changed."""
        st = os.stat(path)
        key = f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"
        if self.conn is not None:
            row = self.conn.execute("SELECT sha FROM digest WHERE stat = ?", (key,)).fetchone()
            if row is not None:
                return row[0]
        sha = sha256_file(path)
        self._write("INSERT OR REPLACE INTO digest VALUES (?, ?)", (key, sha))
        return sha

    def cached(self, kind: str, path: Path, compute: Callable[[], T]) -> T:
        """`compute()` (a JSON value) for the bytes of `path`, computed once per content and kind."""
        sha = self.sha256(path)
        if self.conn is not None:
            row = self.conn.execute("SELECT value FROM result WHERE sha = ? AND kind = ?", (sha, kind)).fetchone()
            if row is not None:
                self.reused[kind] += 1
                return json.loads(row[0])
        value = compute()
        self.computed[kind] += 1
        self._write("INSERT OR REPLACE INTO result VALUES (?, ?, ?)", (sha, kind, json.dumps(value)))
        return value

    def _write(self, sql: str, args: tuple) -> None:
        if self.conn is None:
            return
        try:
            self.conn.execute(sql, args)
        except sqlite3.Error:  # a full disk or a locked file: the result is still right, only not kept
            pass
