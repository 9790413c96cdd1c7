"""Manifest-wide rules, checked while streaming: unique ids, and complete leak-free splits.

Ids are remembered as 8-byte hashes (not strings) so memory stays small as the manifest grows; the
rare hash collision is confirmed by comparing the real ids before anything is reported.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterator
from pathlib import Path

from ..core.issue import Issue


def id_hash(record_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(record_id.encode("utf-8"), digest_size=8).digest(), "little")


class DuplicateIds:
    """Collects id hashes in a compact array; `duplicates()` returns the hashes seen more than once."""

    def __init__(self) -> None:
        self._hashes = array("Q")

    def add(self, record_id: str) -> int:
        h = id_hash(record_id)
        self._hashes.append(h)
        return h

    def duplicates(self) -> set[int]:
        if len(self._hashes) < 2:
            return set()
        import numpy as np

        a = np.frombuffer(self._hashes, dtype=np.uint64).copy()
        a.sort()
        dup = a[1:][a[1:] == a[:-1]]
        return {int(x) for x in np.unique(dup)}


class SplitsChecker:
    """Checks records against splits.json: every id assigned, no speaker in two splits.

    Like duplicate ids, both are found after the stream: each record's id and speakers go, in batches, to
    SQLite temp tables beside the split index, and two queries find the unassigned ids and the leaking
    speakers. A million records hold no state in Python and cost no per-record query.
    """

    BATCH = 10_000

    def __init__(self, splits_path: Path) -> None:
        from ..splits.store import SplitsFileError, open_splits

        self.path = Path(splits_path)
        self.issues: list[Issue] = []
        self.store = None
        self._records: list[tuple] = []
        self._speakers: list[tuple] = []
        try:
            self.store = open_splits(self.path)
        except (OSError, SplitsFileError) as exc:
            self.issues.append(Issue(code="splits_file_invalid", family="manifest", file=str(self.path.name),
                                     message=f"splits.json cannot be read: {exc}",
                                     fix="re-run the splits stage (vak split)"))
        if self.store is not None and self.store.count("assignment") == 0:
            self.close()
        if self.store is not None:
            self.store.conn.executescript("""
                CREATE TEMP TABLE seen_record (line INTEGER PRIMARY KEY, record_id TEXT NOT NULL, ok INTEGER NOT NULL);
                CREATE TEMP TABLE seen_speaker (line INTEGER NOT NULL, role TEXT NOT NULL, speaker TEXT NOT NULL);
            """)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    def add(self, record_id: str, speakers: dict[str, str] | None, line: int, ok: bool) -> None:
        """Remember a parsed record (and whether it was valid so far) for `issues_after_stream`."""
        if self.store is None:
            return
        self._records.append((line, record_id, int(ok)))
        self._speakers.extend((line, role, spk) for role, spk in (speakers or {}).items())
        if len(self._records) >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        self.store.conn.executemany("INSERT OR IGNORE INTO seen_record VALUES (?, ?, ?)", self._records)
        self.store.conn.executemany("INSERT INTO seen_speaker VALUES (?, ?, ?)", self._speakers)
        self._records.clear()
        self._speakers.clear()

    def issues_after_stream(self, file: str | None) -> Iterator[tuple[Issue, bool]]:
        """(issue, the record was otherwise valid): every unassigned record, then each speaker seen in a
        second split at the first record that puts it there; in manifest order. Speaker ids are never named."""
        if self.store is None:
            return
        self._flush()
        conn = self.store.conn
        for line, record_id, ok in conn.execute(
                "SELECT r.line, r.record_id, r.ok FROM seen_record r LEFT JOIN main.assignment a ON a.k = r.record_id "
                "WHERE a.v IS NULL ORDER BY r.line"):
            yield Issue(code="split_missing", family="manifest", record_id=record_id, line=line, file=file,
                        field="id", message="record is not assigned to any split in splits.json",
                        fix="re-run the splits stage so every conversation is assigned"), bool(ok)
        conn.executescript("""
            CREATE TEMP TABLE placed AS SELECT s.line, r.record_id, s.role, s.speaker, a.v AS split, r.ok
                FROM seen_speaker s JOIN seen_record r ON r.line = s.line JOIN main.assignment a ON a.k = r.record_id;
            CREATE INDEX placed_by_speaker ON placed (role, speaker, line);
        """)
        rows = conn.execute("""
            WITH firsts AS (SELECT role, speaker, split AS first_split, MIN(line) FROM placed GROUP BY role, speaker)
            SELECT p.role, f.first_split, p.split, MIN(p.line) AS line, p.record_id, p.ok
            FROM placed p JOIN firsts f ON f.role = p.role AND f.speaker = p.speaker
            WHERE p.split != f.first_split GROUP BY p.role, p.speaker ORDER BY line
        """)
        for role, first, split, line, record_id, ok in rows:
            yield Issue(code="split_leak", family="manifest", record_id=record_id, line=line, file=file,
                        field=f"meta.speakers.{role}", message=f"{role} speaker appears in both {first} and {split}",
                        fix="re-run the splits stage; conversations sharing a speaker must share a split"), bool(ok)
