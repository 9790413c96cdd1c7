"""What an upload folder holds: every file with size, sha256, mtime and kind. Read-only by construction.

Two views of an upload: `inventory()` hashes every byte (the record of what was received), while
`fingerprint()` only stats files (name:size:mtime_ns), cheap enough for a sensor tick on a large folder.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..storage import sha256_file
from .descriptor import DESCRIPTOR_NAME, OVERRIDES_NAME
from .links import first_link, inside

FileKind = Literal["audio", "aidb", "messages", "vakforge", "events", "descriptor", "unknown"]
INVENTORY_VERSION = "1"  # bump when the output for the same inputs and settings would change (the asset's code_version)
AUDIO_SUFFIXES = (".wav", ".flac", ".mp3", ".ogg", ".m4a", ".aac")
_TEXT_KINDS: tuple[tuple[str, FileKind], ...] = (
    (".aidb.jsonl", "aidb"), (".messages.jsonl", "messages"), (".vakforge.jsonl", "vakforge"),
    (".events.jsonl", "events"),
)


class InventoryFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str  # relative to the upload folder, '/'-separated
    size: int
    sha256: str
    mtime_ns: int
    kind: FileKind


class Inventory(BaseModel):
    model_config = ConfigDict(extra="forbid")
    upload: str
    fingerprint: str
    files: list[InventoryFile]
    links: list[str] = Field(default_factory=list, description="Symbolic links found and refused (never "
                             "followed), relative to the upload folder; '.' when the folder itself is one.")

    def of_kind(self, kind: FileKind) -> list[InventoryFile]:
        return [f for f in self.files if f.kind == kind]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in self.files:
            out[f.kind] = out.get(f.kind, 0) + 1
        return out

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)


def kind_of(name: str) -> FileKind:
    """The kind of a file, by its name alone (contents are checked later, by the stage that reads it)."""
    base = name.rsplit("/", 1)[-1]
    low = base.lower()
    if base in (DESCRIPTOR_NAME, OVERRIDES_NAME) and "/" not in name:
        return "descriptor"
    for suffix, kind in _TEXT_KINDS:
        if low.endswith(suffix):
            return kind
    if low.endswith(AUDIO_SUFFIXES):
        return "audio"
    return "unknown"


def is_plain_file(upload_dir: Path, path: Path) -> bool:
    """True for a regular file reached from `upload_dir` without following a symlink (as the inventory sees it).

    Every reader of an upload uses this rule, so a link out of the dataset is never read, whatever its suffix.
    The upload folder itself may not be a link either.
    """
    return first_link(upload_dir, path) is None and Path(path).is_file() and inside(upload_dir, path)


def links(upload_dir: Path) -> list[str]:
    """Every symbolic link in the upload (names relative to it, sorted; '.' for the folder itself), unfollowed."""
    upload_dir = Path(upload_dir)
    if upload_dir.is_symlink():
        return ["."]
    found = _scan(upload_dir)[1]
    return sorted(found)


def _walk(upload_dir: Path) -> list[tuple[str, os.stat_result]]:
    """(relative name, stat) of every regular file, sorted by name; hidden files and symlinks skipped.

    An upload folder that is itself a link has no files: nothing outside the data directory is listed."""
    return _scan(upload_dir)[0]


def _scan(upload_dir: Path) -> tuple[list[tuple[str, os.stat_result]], list[str]]:
    """(_walk's files, the relative names of the links it skipped)."""
    out: list[tuple[str, os.stat_result]] = []
    found: list[str] = []
    if Path(upload_dir).is_symlink():
        return out, ["."]
    stack = [upload_dir]
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            for e in it:
                if e.name.startswith("."):
                    continue
                if e.is_symlink():
                    found.append(Path(e.path).relative_to(upload_dir).as_posix())
                    continue
                if e.is_dir(follow_symlinks=False):
                    stack.append(Path(e.path))
                elif e.is_file(follow_symlinks=False):
                    rel = Path(e.path).relative_to(upload_dir).as_posix()
                    out.append((rel, e.stat(follow_symlinks=False)))
    out.sort(key=lambda t: t[0])
    return out, found


def _fingerprint(entries: list[tuple[str, os.stat_result]], found: list[str] | None = None) -> str:
    h = hashlib.sha256()
    for name, st in entries:
        h.update(f"{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    for name in sorted(found or []):  # a link is refused, but adding one changes what the report says
        h.update(f"link:{name}\n".encode())
    return h.hexdigest()


def fingerprint(upload_dir: Path) -> str:
    """Hash over name:size:mtime_ns of every file: changes when a file is added, removed, replaced or touched."""
    return _fingerprint(*_scan(Path(upload_dir)))


def inventory(upload_dir: Path) -> Inventory:
    """Every file of the upload with its sha256 (files are only opened for reading)."""
    upload_dir = Path(upload_dir)
    entries, found = _scan(upload_dir)
    files = [InventoryFile(name=name, size=st.st_size, sha256=sha256_file(upload_dir / name),
                           mtime_ns=st.st_mtime_ns, kind=kind_of(name)) for name, st in entries]
    return Inventory(upload=upload_dir.name, fingerprint=_fingerprint(entries, found), files=files,
                     links=sorted(found))


def current_inventory(upload_dir: Path, cached: Path | None = None) -> Inventory:
    """The inventory of `upload_dir`, reusing `cached` (an inventory.json) when its fingerprint still matches."""
    upload_dir = Path(upload_dir)
    if cached is not None and Path(cached).is_file():
        try:
            inv = Inventory.model_validate_json(Path(cached).read_text(encoding="utf-8"))
        except ValueError:
            inv = None
        if inv is not None and inv.upload == upload_dir.name and inv.fingerprint == fingerprint(upload_dir):
            return inv
    return inventory(upload_dir)
