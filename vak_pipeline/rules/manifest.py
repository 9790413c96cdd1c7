"""Manifest-wide rules, checked while streaming: unique ids, and complete leak-free splits.

Ids are remembered as 8-byte hashes (not strings) so memory stays small as the manifest grows; the
rare hash collision is confirmed by comparing the real ids before anything is reported.
"""

from __future__ import annotations

import hashlib
import json
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
    """Checks records against splits.json: every id assigned, no speaker in two splits."""

    def __init__(self, splits_path: Path) -> None:
        self.path = Path(splits_path)
        self.issues: list[Issue] = []
        self.assignment: dict[str, str] = {}
        self._speaker_split: dict[tuple[str, str], str] = {}
        self._leaks: set[tuple[str, str]] = set()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            assignment = data["assignment"]
            if not isinstance(assignment, dict):
                raise TypeError("assignment is not an object")
            self.assignment = {str(k): str(v) for k, v in assignment.items()}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            self.issues.append(Issue(code="splits_file_invalid", family="manifest", file=str(self.path.name),
                                     message=f"splits.json cannot be read: {type(exc).__name__}",
                                     fix="re-run the splits stage (vak split)"))

    def check(self, record_id: str, speakers: dict[str, str] | None, line: int | None, file: str | None) -> list[Issue]:
        if not self.assignment:
            return []
        split = self.assignment.get(record_id)
        if split is None:
            return [Issue(code="split_missing", family="manifest", record_id=record_id, line=line, file=file,
                          field="id", message="record is not assigned to any split in splits.json",
                          fix="re-run the splits stage so every conversation is assigned")]
        out = []
        for role, spk in (speakers or {}).items():
            key = (role, spk)
            seen = self._speaker_split.setdefault(key, split)
            if seen != split and key not in self._leaks:
                self._leaks.add(key)
                out.append(Issue(code="split_leak", family="manifest", record_id=record_id, line=line, file=file,
                                 field=f"meta.speakers.{role}",
                                 message=f"{role} speaker appears in both {seen} and {split}",
                                 fix="re-run the splits stage; conversations sharing a speaker must share a split"))
        return out
