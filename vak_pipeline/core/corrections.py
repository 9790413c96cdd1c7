"""The corrections store: what human reviewers changed (Label Studio), kept under the data root for every re-run.

`work/review/corrections.jsonl`, one line per reviewed conversation (its latest review wins), rewritten
atomically by `vak review import`. A turn is named by its conversation and its time as the reviewer saw it
(`TurnCorrection.start` / `end`), never by list index, so a re-transcription that shifts or renumbers turns
still finds it. Every stage that builds records reads it (like the erasure ledger), and the digest of an
upload's corrections is part of what says the upload is ingested, so a new review re-runs what it changes.
The store is private (it holds what reviewers typed): it never leaves `work/`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..storage import atomic_write_text, load_store

STORE_VERSION = "1"
MATCH_IOU = 0.5  # a corrected turn is the one of a run that overlaps it at least this much (time IoU)
# what a reviewer may clear ("not PII"): the types only guessed by cues, lexicons and digit nets. A validated
# identifier (a phone number libphonenumber accepts, a card with its checksum, an e-mail) stays redacted even
# when a reviewer removes its span: un-redacting it is a decision for the steward's settings, not a click
CLEARABLE_TYPES = frozenset({"person_name", "address", "unsure_number"})
Basis = Literal["redacted", "private"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PiiSpan(_Model):
    """A PII span a reviewer added or removed: its type and the words it covers in the turn's text."""

    type: str = Field(min_length=1)
    text: str = Field(description="The words the span covers (private: the store never leaves work/).")


class TurnCorrection(_Model):
    """What a reviewer said about one turn; a field left None was not changed (the turn was confirmed)."""

    start: float = Field(ge=0, description="The turn's start (s) when it was exported: its identity.")
    end: float = Field(ge=0, description="The turn's end (s) when it was exported: its identity.")
    text: str | None = None
    speaker: Literal["user", "agent"] | None = None
    new_start: float | None = Field(default=None, ge=0)
    new_end: float | None = Field(default=None, ge=0)
    lang: str | None = None
    pii_added: list[PiiSpan] = Field(default_factory=list)
    pii_removed: list[PiiSpan] = Field(default_factory=list)

    @property
    def changes(self) -> list[str]:
        """The kinds of change this correction makes (empty: the reviewer confirmed the turn)."""
        kinds = [k for k in ("text", "speaker", "lang") if getattr(self, k) is not None]
        if self.new_start is not None or self.new_end is not None:
            kinds.append("boundaries")
        kinds += [k for k in ("pii_added", "pii_removed") if getattr(self, k)]
        return kinds


class _Span(Protocol):
    start: float
    end: float

    @property
    def is_spoken(self) -> bool: ...


def _iou(a: tuple[float, float], b: tuple[float, float]) -> float:
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    if union <= 0:
        return 1.0 if a == b else 0.0
    return inter / union


def match_turns(turns: Sequence[_Span], wanted: Sequence[TurnCorrection], applied: bool = False) -> dict[int, int]:
    """Correction index -> turn index: each correction to the spoken turn it overlaps most, one turn each. With
    `applied`, the turns already carry the corrections (the redaction stage), so a moved turn is matched by its
    new boundaries; else by the time the reviewer saw it (tag_upload, which applies them)."""
    def span(c: TurnCorrection) -> tuple[float, float]:
        if not applied:
            return c.start, c.end
        return (c.new_start if c.new_start is not None else c.start, c.new_end if c.new_end is not None else c.end)

    pairs = sorted(((_iou(span(c), (t.start, t.end)), ci, ti)
                    for ci, c in enumerate(wanted) for ti, t in enumerate(turns) if t.is_spoken), reverse=True)
    out: dict[int, int] = {}
    taken: set[int] = set()
    for score, ci, ti in pairs:
        if score >= MATCH_IOU and ci not in out and ti not in taken:
            out[ci] = ti
            taken.add(ti)
    return out


class Correction(_Model):
    """One reviewed conversation: who reviewed it, when, against which audio, and each turn they touched."""

    version: str = STORE_VERSION
    upload: str
    conv_id: str
    audio_sha: str | None = Field(default=None, description="sha256 of the recording when the task was exported; "
                                  "a correction of audio that changed since is reported, not applied.")
    basis: Basis = Field(default="redacted", description="The text the reviewer saw: the redacted release's or "
                         "the private transcript's.")
    reviewer: str
    at: str = Field(description="UTC time of the review (ISO 8601).")
    source: str = Field(default="", description="Where it came from, e.g. label-studio:task/12.")
    turns: list[TurnCorrection]

    def digest(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode("utf-8")).hexdigest()[:16]


def store_path(root: Path) -> Path:
    return Path(root) / "work" / "review" / "corrections.jsonl"


def load_corrections(root: Path) -> list[Correction]:
    """Every correction of the data root, in store order (empty without a store)."""
    return load_store(store_path(root), Correction, "a correction", "restore the line from a backup, or run "
                      "`vak review import` again on the export it came from")


def for_upload(root: Path, upload: str) -> dict[str, Correction]:
    """The corrections of one upload, by conversation id."""
    return {c.conv_id: c for c in load_corrections(root) if c.upload == upload}


def cleared_spans(correction: Correction, turns: Sequence[_Span]) -> dict[int, list[PiiSpan]]:
    """Turn index -> the spans its reviewer said are not PII, on a record the correction was applied to."""
    out: dict[int, list[PiiSpan]] = {}
    for ci, ti in match_turns(turns, correction.turns, applied=True).items():
        if correction.turns[ci].pii_removed:
            out[ti] = list(correction.turns[ci].pii_removed)
    return out


def upload_digest(root: Path, upload: str) -> str | None:
    """The digest of an upload's corrections (None without any): part of its ingest's identity."""
    found = for_upload(root, upload)
    if not found:
        return None
    return hashlib.sha256(json.dumps(sorted(c.digest() for c in found.values())).encode()).hexdigest()[:16]


def save_corrections(root: Path, new: list[Correction]) -> tuple[int, int]:
    """Merge `new` into the store (a conversation's later review replaces an earlier one), atomically.
    Returns (added or replaced, kept as they were)."""
    by_key = {(c.upload, c.conv_id): c for c in load_corrections(root)}
    changed = 0
    for c in new:
        old = by_key.get((c.upload, c.conv_id))
        if old is None or (old.at <= c.at and old != c):
            by_key[(c.upload, c.conv_id)] = c
            changed += 1
    lines = [json.dumps(c.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
             for _, c in sorted(by_key.items())]
    atomic_write_text(store_path(root), "".join(line + "\n" for line in lines))
    return changed, len(by_key) - changed


def dropped_path(root: Path) -> Path:
    """What erasure took out of the store: per upload, how many reviewed turns, never an id or a text."""
    return Path(root) / "work" / "review" / "dropped.jsonl"


def drop_conversations(root: Path, conv_ids: set[str], reason: str, at: str) -> int:
    """Take the corrections of `conv_ids` out of the store (erasure: no trace of them may stay in work/), and
    note each as a line without id or text in dropped.jsonl, which tag_upload reports to the steward."""
    kept, gone = [], []
    for c in load_corrections(root):
        (gone if c.conv_id in conv_ids else kept).append(c)
    if not gone:
        return 0
    lines = [json.dumps(c.model_dump(mode="json"), sort_keys=True, ensure_ascii=False) for c in kept]
    atomic_write_text(store_path(root), "".join(line + "\n" for line in lines))
    old = dropped_path(root).read_text(encoding="utf-8") if dropped_path(root).is_file() else ""
    notes = "".join(json.dumps({"upload": c.upload, "reason": reason, "turns": len(c.turns), "at": at},
                               sort_keys=True) + "\n" for c in gone)
    atomic_write_text(dropped_path(root), old + notes)
    return len(gone)


def dropped_for_upload(root: Path, upload: str) -> list[dict]:
    """The notes of corrections erasure took out of the store for `upload`."""
    path = dropped_path(root)
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            note = json.loads(line)
        except ValueError:
            continue
        if isinstance(note, dict) and note.get("upload") == upload:
            out.append(note)
    return out
