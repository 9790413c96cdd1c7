"""splits.json: what a split run decided, and everything needed to reproduce or extend it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..storage import atomic_write_text

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
    conflicts: list[Conflict] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    manifest_hash: str | None = None


MAPS = ("assignment", "held_out", "retired", "speakers")


class SplitsFile(SplitsHeader):
    """The whole splits.json in memory (small datasets, tests, hand-made files)."""

    assignment: dict[str, str]
    held_out: dict[str, str] = Field(default_factory=dict, description="conv_id -> why it was held out")
    retired: dict[str, str] = Field(
        default_factory=dict, description="conversations no longer in the manifest, kept so they never move")
    speakers: dict[str, str] = Field(
        default_factory=dict, description="role-qualified speaker key -> split, so a returning speaker stays put")

    def split_of(self, conv_id: str) -> str | None:
        return self.assignment.get(conv_id)

    def header(self) -> SplitsHeader:
        return SplitsHeader.model_validate(self.model_dump(mode="json", exclude=set(MAPS)))

    def dump(self) -> dict[str, Any]:
        """splits.json's key order: header fields with the maps where the file has always had them."""
        data = self.model_dump(mode="json")
        order = ["seed", "ratios", "roles", "assignment", "counts", "held_out", "conflicts", "retired", "speakers",
                 "warnings", "manifest_hash"]
        return {**{k: data[k] for k in order}, **{k: v for k, v in data.items() if k not in order}}


def read_splits(path: str | Path) -> SplitsFile | None:
    """The splits file at `path`, or None when there is none yet."""
    path = Path(path)
    if not path.exists():
        return None
    # parsed straight into the model: no intermediate dict, repeated split names shared (about 25% less
    # peak memory for a million-conversation assignment, measured in bench_million)
    return SplitsFile.model_validate_json(path.read_bytes())


def write_splits(path: str | Path, splits: SplitsFile) -> Path:
    text = json.dumps(splits.dump(), ensure_ascii=False, indent=1, sort_keys=False) + "\n"
    return atomic_write_text(Path(path), text)
