"""What the top of a steward page says, read from the release's files when the page is rendered.

A page is rendered again by the release step once it has decided, so a published page says whether it is
live, and says so when a newer candidate was blocked; a candidate page says BLOCKED with its root causes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..layout import DataLayout
from ..release import ReleaseVerdict, read_verdict


@dataclass
class ReleaseStatus:
    """headline: live | blocked | candidate | superseded; `live` is the published verdict, if any."""

    headline: str
    manifest_hash: str | None
    live: ReleaseVerdict | None = None
    blocked: ReleaseVerdict | None = None  # this candidate's verdict, or a newer blocked candidate's
    blocked_report: str | None = None  # link to the blocked candidate's page, relative to this page
    causes: list[dict] = field(default_factory=list)


def _rel_link(target: Path, page_dir: Path) -> str:
    return Path(os.path.relpath(target, page_dir)).as_posix()


def release_status(layout: DataLayout, manifest_hash: str | None, page_dir: Path) -> ReleaseStatus:
    """The status of the page in `page_dir`, built from `layout` (a published or candidate layout)."""
    published = layout.published()
    live = read_verdict(published)
    live = live if live is not None and live.status == "released" else None
    cand_verdict = read_verdict(published.candidate())
    if layout.is_candidate:
        if cand_verdict is not None and cand_verdict.status == "blocked":
            return ReleaseStatus("blocked", manifest_hash, live, cand_verdict, None, cand_verdict.causes)
        return ReleaseStatus("candidate", manifest_hash, live)
    if live is None or live.manifest_sha256 != manifest_hash:
        return ReleaseStatus("superseded" if live else "candidate", manifest_hash, live)
    status = ReleaseStatus("live", manifest_hash, live)
    newer = cand_verdict if cand_verdict is not None and cand_verdict.status == "blocked" else None
    if newer is not None and (newer.decided_at or "") >= (live.decided_at or ""):
        status.blocked, status.causes = newer, newer.causes
        kept = published.root / newer.kept_at / "steward" / "index.html" if newer.kept_at else None
        target = kept if kept is not None and kept.is_file() else published.candidate().steward_html
        status.blocked_report = _rel_link(target, page_dir)
    return status
