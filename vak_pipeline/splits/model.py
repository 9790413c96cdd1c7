"""splits.json: what a split run decided, and everything needed to reproduce or extend it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_RATIOS = {"train": 0.8, "validation": 0.1, "test": 0.1}
DEFAULT_ROLES = ("agent", "user")


class SplitConfig(BaseModel):
    """How to split. Ratios are normalised; their keys are the split names, in order."""

    model_config = ConfigDict(extra="forbid")
    seed: int = 1234
    ratios: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_RATIOS))
    roles: list[str] = Field(default_factory=lambda: list(DEFAULT_ROLES),
                             description="meta.speakers roles that tie conversations together")

    @field_validator("ratios")
    @classmethod
    def _ratios_positive(cls, v: dict[str, float]) -> dict[str, float]:
        if not v or any(r < 0 for r in v.values()) or sum(v.values()) <= 0:
            raise ValueError("ratios need at least one split name with a non-negative share and a positive sum")
        total = sum(v.values())
        return {k: r / total for k, r in v.items()}


class Conflict(BaseModel):
    """A component whose conversations already sit in more than one split."""

    model_config = ConfigDict(extra="forbid")
    code: str  # bridge | existing_leak
    conversations: list[str]
    splits: list[str]
    message: str


class SplitsHeader(BaseModel):
    """splits.json without its per-conversation maps: what a split run decided, in a few hundred bytes.

    The maps (assignment, held_out, retired, speakers) grow with the dataset, so large consumers read
    them through the on-disk index (store.SplitStore) rather than as dicts.
    """

    model_config = ConfigDict(extra="allow")
    seed: int
    ratios: dict[str, float] = Field(default_factory=dict, description="empty in a hand-made file: names unchecked")
    roles: list[str] = Field(default_factory=lambda: list(DEFAULT_ROLES))
    counts: dict[str, int] = Field(default_factory=dict)
    strata: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="conversations per split for conversations with audio and without "
                                           "(\"audio\" / \"text\"); \"groups\": speaker-linked groups in each")
    conflicts: list[Conflict] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    manifest_hash: str | None = None


MAPS = ("assignment", "held_out", "retired", "speakers")
# splits.json's key order: header fields with the maps where the file has always had them
JSON_KEY_ORDER = ("seed", "ratios", "roles", "assignment", "counts", "strata", "held_out", "conflicts", "retired",
                  "speakers", "warnings", "manifest_hash")
FIX_SEPARATOR = ". Fix:"  # a held-out reason is "<why>. Fix: <what to do>"


def without_fix(reason: str) -> str:
    """A held-out reason without its fix, for one-line reports."""
    return reason.split(FIX_SEPARATOR)[0]


class SplitsFile(SplitsHeader):
    """The whole splits.json in memory (small datasets, tests, hand-made files)."""

    assignment: dict[str, str]
    held_out: dict[str, str] = Field(default_factory=dict, description="conv_id -> why it was held out")
    retired: dict[str, str] = Field(
        default_factory=dict, description="conversations no longer in the manifest, kept so they never move")
    speakers: dict[str, str] = Field(
        default_factory=dict, description="role-qualified speaker key -> split, so a returning speaker stays put")

    def header(self) -> SplitsHeader:
        return SplitsHeader.model_validate(self.model_dump(mode="json", exclude=set(MAPS)))

    def dump(self) -> dict[str, Any]:
        """The splits.json object, keys in JSON_KEY_ORDER (extra keys of a hand-made file last)."""
        data = self.model_dump(mode="json")
        return {**{k: data[k] for k in JSON_KEY_ORDER}, **{k: v for k, v in data.items() if k not in JSON_KEY_ORDER}}


def read_splits(path: str | Path) -> SplitsFile | None:
    """The whole splits file at `path` in memory, or None when there is none yet (small datasets and tests;
    everything that may meet a large dataset uses store.open_splits)."""
    path = Path(path)
    if not path.exists():
        return None
    return SplitsFile.model_validate_json(path.read_bytes())
