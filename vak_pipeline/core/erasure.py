"""The erasure ledger: what was withdrawn, for good, as hashes and fingerprints (never a value in the clear).

`work/erasure/ledger.jsonl` under the data root, append-only, one line per request. Every stage reads it
(`ErasedSet`): a conversation id, a raw file's bytes or decoded samples, or a text that an entry names is not
ingested, transcribed, redacted or released again, whatever its file is called now. Ids are kept as salted
sha256 digests so the ledger itself holds no trace an id scan could find.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..storage import atomic_open, load_store

LEDGER_VERSION = "1"
_SALT = b"vak-erasure-v1:"


def digest(value: str) -> str:
    """The ledger's form of a conversation id, speaker id or text key: not the value, comparable."""
    return hashlib.sha256(_SALT + value.encode("utf-8")).hexdigest()


class ErasureEntry(BaseModel):
    """One erasure request as the ledger keeps it."""

    model_config = ConfigDict(extra="forbid")

    version: str = LEDGER_VERSION
    at: str = Field(description="UTC time the request was carried out (ISO 8601)")
    by: str | None = Field(None, description="who asked or carried it out, if known (an operator name, not a subject)")
    reference: str | None = Field(None, description="a ticket or request id the steward can trace")
    selector: str = Field(description="how they were chosen: conversation | speaker | upload | file | value")
    conversations: list[str] = Field(default_factory=list, description="digests of the erased conversation ids")
    speakers: list[str] = Field(default_factory=list, description="digests of speaker ids erased as a person")
    files: list[str] = Field(default_factory=list, description="sha256 of the raw files erased (their bytes)")
    pcm: list[str] = Field(default_factory=list, description="exact keys of the decoded audio (identity)")
    texts: list[str] = Field(default_factory=list, description="digests of the normalised text keys (identity)")
    prints: list[dict[str, Any]] = Field(default_factory=list,
                                         description="Chromaprint fingerprints per channel (base64), for re-encodes")
    weights: list[dict[str, Any]] = Field(default_factory=list,
                                          description="energy weights of those frames per channel (base64 uint8), "
                                                      "in the order of `prints`; silence counts for nothing")
    uploads: list[str] = Field(default_factory=list,
                               description="digests of the uploads it touched (their ingest is stale after it); "
                                           "empty in entries written before: every upload")
    hours: float = 0.0
    purged_raw: int = 0


@dataclass
class ErasedSet:
    """Everything the ledger names, as sets a stage tests membership in."""

    conversations: set[str] = field(default_factory=set)
    speakers: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    pcm: set[str] = field(default_factory=set)
    texts: set[str] = field(default_factory=set)
    prints: list[dict[str, Any]] = field(default_factory=list)
    weights: list[dict[str, Any]] = field(default_factory=list)  # parallel to prints ({} where none was kept)
    entries: int = 0

    def has_conv(self, conv_id: str) -> bool:
        return bool(self.conversations) and digest(conv_id) in self.conversations

    def has_key(self, key: str) -> bool:
        """A splits.json key: a conversation id, or a role-qualified speaker key ("user:<id>")."""
        return digest(key) in self.conversations or digest(key.partition(":")[2]) in self.speakers

    def has_file(self, sha256: str) -> bool:
        return sha256 in self.files

    def __bool__(self) -> bool:
        return self.entries > 0


def ledger_key(root: Path, upload: str) -> str:
    """What an upload's ingest must have seen of the ledger: the entries that touch it, hashed ("" when none).
    An ingest marker keyed on it goes stale when an erasure touches the upload, and only then."""
    d = digest(upload)
    touching = [e.model_dump_json() for e in read_entries(root) if not e.uploads or d in e.uploads]
    return hashlib.sha256("\n".join(touching).encode()).hexdigest()[:16] if touching else ""


def forget_in_splits(root: Path):
    """splits.split_manifest's `forget` for the data root: None while nothing was ever erased."""
    erased = load_erased(root)
    return erased.has_key if erased else None


def ledger_path(root: Path) -> Path:
    return Path(root) / "work" / "erasure" / "ledger.jsonl"


def read_entries(root: Path) -> list[ErasureEntry]:
    return load_store(ledger_path(root), ErasureEntry, "an erasure entry", "the ledger is append-only: restore the "
                      "line from a backup, never delete it")


def load_erased(root: Path) -> ErasedSet:
    """The union of every entry of the data root's ledger (empty when there is none)."""
    s = ErasedSet()
    for e in read_entries(root):
        s.entries += 1
        s.conversations.update(e.conversations)
        s.speakers.update(e.speakers)
        s.files.update(e.files)
        s.pcm.update(e.pcm)
        s.texts.update(e.texts)
        s.prints.extend(e.prints)
        s.weights.extend([*e.weights, *[{}] * (len(e.prints) - len(e.weights))][:len(e.prints)])
    return s


def append_entry(root: Path, entry: ErasureEntry) -> None:
    """Append one line (the ledger is rewritten atomically with the old lines first, so a crash keeps them)."""
    path = ledger_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    with atomic_open(path, "w") as f:
        f.write(old)
        f.write(json.dumps(entry.model_dump(mode="json"), sort_keys=True) + "\n")


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
