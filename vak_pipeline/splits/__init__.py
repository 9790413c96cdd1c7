"""Speaker-disjoint, seeded, stable splits (splits.json) and the manifest-wide split rule."""

from __future__ import annotations

from pathlib import Path

from ..manifest_hash import manifest_hash
from ..rules.issue import Issue
from .assign import UnionFind, build_splits, component_order_key
from .check import check_splits
from .model import DEFAULT_RATIOS, Conflict, SplitConfig, SplitsFile, read_splits, write_splits
from .summaries import SplitSummary, iter_summaries, speaker_keys, summary_of


def split_manifest(manifest: str | Path, out: str | Path, config: SplitConfig | None = None,
                   previous: str | Path | None = None) -> tuple[SplitsFile, list[Issue]]:
    """Build splits.json for a manifest, keeping any existing assignment in `previous` (default: `out`).

    Returns the splits and the issues found (unreadable manifest lines, plus check_splits' findings).
    """
    manifest, out = Path(manifest), Path(out)
    prev = read_splits(Path(previous) if previous is not None else out)
    read_issues: list[Issue] = []
    splits = build_splits(iter_summaries(manifest, read_issues), config, prev, manifest_hash(manifest))
    write_splits(out, splits)
    return splits, read_issues + check_splits(iter_summaries(manifest), splits)


__all__ = [
    "DEFAULT_RATIOS", "Conflict", "SplitConfig", "SplitSummary", "SplitsFile", "UnionFind", "build_splits",
    "check_splits", "component_order_key", "iter_summaries", "read_splits", "speaker_keys", "split_manifest",
    "summary_of", "write_splits",
]
