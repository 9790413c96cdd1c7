"""One release at a time: the publish assets build a candidate beside the published release, and
`promote` swaps the whole candidate in, or nothing.

Promises:
- data/ holds one release: its manifest, schema, splits, reports and exports were built together.
  A blocked or failed publish leaves the previous release as it was; the candidate stays in
  work/.release-candidate/ with verdict.json saying what blocked it and where the rows are; a copy of
  that verdict and its steward report is kept in work/.release-blocked/ (never deleted by a later run).
- A swap is a handful of renames, journaled first (work/.release-swap.json): a crash between them is
  finished by `recover` before anything else reads or writes a release, so no mix survives a restart.
- A candidate starts from the published splits.json, so split assignments never move between releases.
- The per-conversation files (audio/, alignments/, redactions/) are release items like the rest: publish
  places into the candidate only the files of the records it keeps (`place_record_files`, hard links to
  the upload's private release files in work/<upload>/release/, copies where the filesystem cannot link),
  so a blocked release adds no file to data/, and at each swap a file of no released record is gone.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from .layout import RECORD_FILE_DIRS, RELEASE_ITEMS, DataLayout
from .storage import atomic_write_json, link_or_copy, resolve_inside

VERDICT_NAME = "verdict.json"
RELEASE_VERSION = "2"  # bump when a release of the same candidate would differ (code_version); 2: the step decides


class ReleaseVerdict(BaseModel):
    """What became of a candidate: released, or blocked with the reasons a steward reads."""

    status: Literal["released", "blocked"]
    manifest_sha256: str | None = None
    reasons: list[str] = Field(default_factory=list)
    where: list[str] = Field(default_factory=list, description="files to look at, relative to the data root")
    causes: list[dict] = Field(default_factory=list, description="root causes: check, code, file, field, fix")
    decided_at: str | None = Field(default=None, description="when the release step decided (UTC)")
    run_id: str | None = Field(default=None, description="the Dagster run whose release step decided")
    kept_at: str | None = Field(default=None, description="blocked: the copy under work/.release-blocked/")


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def begin_candidate(layout: DataLayout) -> DataLayout:
    """A fresh, empty candidate seeded with the published splits.json and its index (checked against the JSON's
    sha256 when opened, so the split step does not rebuild it); returns its layout."""
    published = layout.published()
    recover(published)
    cand = published.candidate()
    earlier = read_verdict(cand)
    if earlier is not None and earlier.status == "blocked":
        keep_blocked(published, earlier)  # its report outlives the candidate folder
    shutil.rmtree(cand.release_root, ignore_errors=True)
    cand.release_root.mkdir(parents=True)
    if published.splits.is_file():
        shutil.copy2(published.splits, cand.splits)
        if published.splits_index.is_file():
            shutil.copy2(published.splits_index, cand.splits_index)
    return cand


def _items(layout: DataLayout) -> tuple[str, ...]:
    return (*RELEASE_ITEMS, VERDICT_NAME)


def promote(layout: DataLayout, manifest_sha256: str | None = None, run_id: str | None = None) -> list[str]:
    """Swap the candidate in whole; returns the release items now published. Raises if there is no candidate."""
    published = layout.published()
    recover(published)
    cand = published.candidate()
    if not cand.manifest.is_file():
        raise FileNotFoundError(f"{cand.manifest} does not exist: materialize validated_manifest first")
    atomic_write_json(cand.release_verdict, ReleaseVerdict(status="released", manifest_sha256=manifest_sha256,
                                                         decided_at=_now(), run_id=run_id).model_dump(mode="json"))
    plan = {name: (cand.release_root / name).exists() for name in _items(published)}
    atomic_write_json(published.release_journal, {"items": plan})
    recover(published)
    return [name for name, has in plan.items() if has]


def recover(layout: DataLayout) -> bool:
    """Finish a swap that was journaled (by `promote`, or before a crash): roll forward, since the
    candidate was complete when the journal was written. Returns whether there was one."""
    published = layout.published()
    journal = published.release_journal
    if not journal.is_file():
        return False
    plan: dict[str, bool] = json.loads(journal.read_text(encoding="utf-8"))["items"]
    cand, prev = published.candidate_dir, published.previous_release_dir
    prev.mkdir(parents=True, exist_ok=True)
    for name, in_candidate in plan.items():
        new, live = cand / name, published.root / name
        if in_candidate and not new.exists():
            continue  # already swapped in
        if live.exists() or live.is_symlink():
            _remove(prev / name)
            os.replace(live, prev / name)  # set the old one aside (an item the new release lacks goes too)
        if in_candidate:
            os.replace(new, live)
    _remove(prev)
    shutil.rmtree(cand, ignore_errors=True)
    journal.unlink()
    return True


def block(layout: DataLayout, reasons: list[str], where: list[str] | None = None, run_id: str | None = None,
          causes: list[dict] | None = None) -> ReleaseVerdict:
    """Record in the candidate why it was not released; the published release is untouched."""
    cand = layout.published().candidate()
    sha = None
    if cand.manifest.is_file():
        from .manifest_hash import manifest_hash

        sha = manifest_hash(cand.manifest)
    verdict = ReleaseVerdict(status="blocked", manifest_sha256=sha, reasons=reasons, where=where or [],
                             causes=causes or [], decided_at=_now(), run_id=run_id)
    verdict.kept_at = str(_kept_dir(layout.published(), verdict).relative_to(layout.root))
    cand.release_root.mkdir(parents=True, exist_ok=True)
    atomic_write_json(cand.release_verdict, verdict.model_dump(mode="json"))
    return verdict


def _kept_dir(published: DataLayout, verdict: ReleaseVerdict) -> Path:
    stamp = (verdict.decided_at or "unknown").replace(":", "")
    return published.blocked_candidates_dir / f"{stamp}-{(verdict.manifest_sha256 or 'none')[:12]}"


def keep_blocked(layout: DataLayout, verdict: ReleaseVerdict) -> Path:
    """Copy a blocked candidate's verdict and steward report to work/.release-blocked/ (idempotent)."""
    published = layout.published()
    cand = published.candidate()
    dest = _kept_dir(published, verdict)
    dest.mkdir(parents=True, exist_ok=True)
    if cand.steward_dir.is_dir():
        shutil.copytree(cand.steward_dir, dest / "steward", dirs_exist_ok=True)
    atomic_write_json(dest / VERDICT_NAME, verdict.model_dump(mode="json"))
    return dest
def record_file_rels(record: dict[str, Any]) -> list[str]:
    """The per-conversation files a record names, relative to its release root: its audio, its redaction log
    and its word timings (alignments/<id>.json, named by id)."""
    rels = []
    audio = record.get("audio")
    if isinstance(audio, dict) and isinstance(audio.get("path"), str):
        rels.append(audio["path"])
    meta = record.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("redaction_log"), str):
        rels.append(meta["redaction_log"])
    if isinstance(record.get("id"), str):
        rels.append(f"alignments/{record['id']}.json")
    return [r for r in rels if r.replace("\\", "/").split("/")[0] in RECORD_FILE_DIRS]


def place_record_files(files_root: Path, release_root: Path, record: dict[str, Any],
                       real_roots: tuple[Path, Path] | None = None) -> list[Path]:
    """Link a record's files from its upload's release files (`files_root`) into a release tree; returns the
    files placed. A file already there (an earlier record with the same id) is left as it is; a file the
    upload does not have is not placed (validation then reports it missing, resolved in the release).
    `real_roots`: both roots already resolved (the caller places many records)."""
    placed = []
    real_src, real_dst = real_roots if real_roots is not None else (None, None)
    for rel in record_file_rels(record):
        if not os.path.isfile(os.path.join(files_root, rel)):  # most records have no alignments: no realpath
            continue
        src, dst = resolve_inside(files_root, rel, real_src), resolve_inside(release_root, rel, real_dst)
        if src is None or dst is None or dst.exists() or src.is_symlink() or not src.is_file():
            continue
        link_or_copy(src, dst)
        placed.append(dst)
    return placed


def unplace(paths: Iterable[Path]) -> None:
    """Take back files `place_record_files` placed (their record was rejected)."""
    for p in paths:
        p.unlink(missing_ok=True)


def read_verdict(layout: DataLayout) -> ReleaseVerdict | None:
    try:
        return ReleaseVerdict.model_validate_json(layout.release_verdict.read_bytes())
    except (OSError, ValueError):
        return None


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
