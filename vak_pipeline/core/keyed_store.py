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
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from ..storage import Closing

BATCH = 500  # keys per query of `get_many` (well under SQLite's limit on bound parameters)
T = TypeVar("T")
_TABLE = re.compile(r"[a-z_]+")


def line_key(fingerprint: str, raw: bytes, *head: Any) -> bytes:
    """The key of one line: its exact bytes under the fingerprint and `head` (JSON: where it is, its files)."""
    return hashlib.sha256(json.dumps([fingerprint, *head], ensure_ascii=False).encode() + b"\0" + raw).digest()


class KeyedStore(Closing):
    """Open with `KeyedStore.open(path, table)`; `get`, `get_many`, `put`; `close` keeps what was used."""

    def __init__(self, conn: sqlite3.Connection | None, table: str) -> None:
        self.conn, self.table = conn, table
        self._used: list[bytes] = []  # keys found by `get`, marked used a batch at a time

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
        except sqlite3.Error:
            return None
        if row is None:
            return None
        self._used.append(key)
        if len(self._used) >= BATCH:
            self._mark_used()
        return row[0]

    def _mark_used(self) -> None:
        keys, self._used = self._used, []
        if self.conn is None or not keys:
            return
        try:
            self.conn.execute(f"UPDATE {self.table} SET used = 1 WHERE k IN ({','.join('?' * len(keys))})", keys)
        except sqlite3.Error:  # not marked: dropped at close, computed again next time (slower, never wrong)
            pass

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
        self._mark_used()
        try:
            self.conn.execute(f"DELETE FROM {self.table} WHERE used = 0")
            self.conn.commit()
        except sqlite3.Error:
            pass
        self.conn.close()
        self.conn = None


CUT = 8  # a chunk of lines ends after a line whose digest starts with a byte below CUT: 32 lines on average
MAX_CHUNK = 256  # ... or after this many lines


class LineChunks:
    """A value per line (`compute(line)`, JSON), kept per chunk of lines in one table of a KeyedStore.

    Chunks are cut where a line's own digest says (content-defined: an inserted or appended line changes only
    the chunk it falls in, whatever moved around it), so a whole-manifest pass costs one look-up per chunk,
    not per line, and after a delivery only the chunks its lines fall in are computed again."""

    def __init__(self, store: KeyedStore, fingerprint: str, compute: Callable[[bytes], Any]) -> None:
        self.store, self.fingerprint, self.compute = store, fingerprint, compute
        self.computed = 0  # lines whose value was computed in this pass (those of new or changed chunks)

    def values(self, items: Iterable[T], raw: Callable[[T], bytes] = bytes) -> Iterator[tuple[T, Any]]:
        """(item, the value of its line `raw(item)`) for each item as given; surrounding whitespace is not part
        of a line's key."""
        for chunk, lines, digests in line_chunks(items, raw):
            yield from self._chunk(chunk, lines, digests)

    def _chunk(self, items: list[T], lines: list[bytes], digests: list[bytes]) -> Iterator[tuple[T, Any]]:
        key = line_key(self.fingerprint, b"".join(digests))
        text = self.store.get(key)
        values = json.loads(text) if text is not None else None
        if not isinstance(values, list) or len(values) != len(lines):
            values = [self.compute(line) for line in lines]
            self.computed += len(lines)
            self.store.put(key, json.dumps(values, ensure_ascii=False))
        yield from zip(items, values, strict=True)


def line_chunks(items: Iterable[T], raw: Callable[[T], bytes] = bytes
                ) -> Iterator[tuple[list[T], list[bytes], list[bytes]]]:
    """The items cut into content-defined chunks: (items, their lines `raw(item)`, the sha256 of each line
    stripped), a chunk ending after a line whose digest starts with a byte below CUT, or at MAX_CHUNK lines."""
    chunk: list[T] = []
    lines: list[bytes] = []
    digests: list[bytes] = []
    for item in items:
        line = raw(item)
        digest = hashlib.sha256(line.strip()).digest()
        chunk.append(item)
        lines.append(line)
        digests.append(digest)
        if digest[0] < CUT or len(chunk) >= MAX_CHUNK:
            yield chunk, lines, digests
            chunk, lines, digests = [], [], []
    if chunk:
        yield chunk, lines, digests
