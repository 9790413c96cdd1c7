"""What a publish found out about a line or a record, kept across publishes by content (issue 34).

One mechanism for every per-record cache of the publish (rule findings, manifest line facts): a key is the
sha256 of a fingerprint (the explicit versions and settings that shape the value), a few more parts and the
exact bytes of the line (`line_key`); a value is text. Stored in SQLite, one table per kind of value. An
entry the latest pass did not use is removed when the store closes, so a table holds one pass's worth: what
the manifest no longer has goes. An unwritable place, a locked or full database gives a store that remembers
nothing (every value is then computed again: slower, never wrong).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

BATCH = 500  # keys per query of `get_many` (well under SQLite's limit on bound parameters)
_TABLE = re.compile(r"[a-z_]+")


def line_key(fingerprint: str, raw: bytes, *head: Any) -> bytes:
    """The key of one line: its exact bytes under the fingerprint and `head` (JSON: where it is, its files)."""
    return hashlib.sha256(json.dumps([fingerprint, *head], ensure_ascii=False).encode() + b"\0" + raw).digest()


class KeyedStore:
    """Open with `KeyedStore.open(path, table)`; `get`, `get_many`, `put`; `close` keeps what was used."""

    def __init__(self, conn: sqlite3.Connection | None, table: str) -> None:
        self.conn, self.table = conn, table

    @classmethod
    def open(cls, path: Path, table: str) -> KeyedStore:
        """The table `table` of the store at `path` (both created); entries start unused."""
        if not _TABLE.fullmatch(table):
            raise ValueError(f"not a table name: {table!r}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path))
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (k BLOB PRIMARY KEY, v TEXT NOT NULL, used INTEGER)")
            conn.execute(f"UPDATE {table} SET used = 0")
        except (OSError, sqlite3.Error):
            return cls(None, table)
        return cls(conn, table)

    def get(self, key: bytes | None) -> str | None:
        if key is None or self.conn is None:
            return None
        try:
            row = self.conn.execute(f"SELECT v FROM {self.table} WHERE k = ?", (key,)).fetchone()
            if row is not None:
                self.conn.execute(f"UPDATE {self.table} SET used = 1 WHERE k = ?", (key,))
        except sqlite3.Error:
            return None
        return row[0] if row is not None else None

    def get_many(self, keys: Iterable[bytes]) -> dict[bytes, str]:
        """The stored values of `keys` (those found), in a few queries: a pass over many lines at once."""
        keys = list(dict.fromkeys(keys))
        found: dict[bytes, str] = {}
        if self.conn is None:
            return found
        try:
            for i in range(0, len(keys), BATCH):
                chunk = keys[i:i + BATCH]
                marks = ",".join("?" * len(chunk))
                found.update(self.conn.execute(f"SELECT k, v FROM {self.table} WHERE k IN ({marks})", chunk))
                self.conn.execute(f"UPDATE {self.table} SET used = 1 WHERE k IN ({marks})", chunk)
        except sqlite3.Error:
            return {}
        return found

    def put(self, key: bytes | None, value: str) -> None:
        if key is None or self.conn is None:
            return
        try:
            self.conn.execute(f"INSERT OR REPLACE INTO {self.table} VALUES (?, ?, 1)", (key, value))
        except sqlite3.Error:  # a full disk or a locked file: the value is still right, only not kept
            pass

    def close(self) -> None:
        if self.conn is None:
            return
        try:
            self.conn.execute(f"DELETE FROM {self.table} WHERE used = 0")
            self.conn.commit()
        except sqlite3.Error:
            pass
        self.conn.close()
        self.conn = None

    def __enter__(self) -> KeyedStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
