"""Manifest-wide rules, checked while streaming: unique ids, and complete leak-free splits.

Ids are remembered as 8-byte hashes (not strings) so memory stays small as the manifest grows; the
rare hash collision is confirmed by comparing the real ids before anything is reported.
"""

from __future__ import annotations

import hashlib
from array import array
from pathlib import Path

from .issue import Issue


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
    """Checks records against splits.json as they stream past: every id assigned, no speaker in two splits.

    Lookups go to the split index (splits.store) and the speaker -> first split seen map to a SQLite
    temp table, so checking a million records holds no per-record state in Python.
    """

    def __init__(self, splits_path: Path) -> None:
        from ..splits.store import SplitsFileError, open_splits

        self.path = Path(splits_path)
        self.issues: list[Issue] = []
        self.store = None
        self._leaks: set[tuple[str, str]] = set()
        try:
            self.store = open_splits(self.path)
        except (OSError, SplitsFileError) as exc:
            self.issues.append(Issue(code="splits_file_invalid", family="manifest", file=str(self.path.name),
                                     message=f"splits.json cannot be read: {exc}",
                                     fix="re-run the splits stage (vak split)"))
        if self.store is not None and self.store.count("assignment") == 0:
            self.close()
        if self.store is not None:
            self.store.conn.execute("CREATE TEMP TABLE IF NOT EXISTS seen_speaker (role TEXT NOT NULL, "
                                    "speaker TEXT NOT NULL, split TEXT NOT NULL, PRIMARY KEY (role, speaker))")

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    def check(self, record_id: str, speakers: dict[str, str] | None, line: int | None, file: str | None) -> list[Issue]:
        if self.store is None:
            return []
        split = self.store.split_of(record_id)
        if split is None:
            return [Issue(code="split_missing", family="manifest", record_id=record_id, line=line, file=file,
                          field="id", message="record is not assigned to any split in splits.json",
                          fix="re-run the splits stage so every conversation is assigned")]
        out = []
        conn = self.store.conn
        for role, spk in (speakers or {}).items():
            key = (role, spk)
            conn.execute("INSERT OR IGNORE INTO seen_speaker VALUES (?, ?, ?)", (role, spk, split))
            (seen,) = conn.execute("SELECT split FROM seen_speaker WHERE role = ? AND speaker = ?", key).fetchone()
            if seen != split and key not in self._leaks:
                self._leaks.add(key)
                out.append(Issue(code="split_leak", family="manifest", record_id=record_id, line=line, file=file,
                                 field=f"meta.speakers.{role}",
                                 message=f"{role} speaker appears in both {seen} and {split}",
                                 fix="re-run the splits stage; conversations sharing a speaker must share a split"))
        return out
