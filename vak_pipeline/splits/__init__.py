"""Speaker-disjoint, seeded, stable splits (splits.json) and the manifest-wide split rule."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..manifest_hash import manifest_hash
from ..rules.issue import Issue
from .assign import UnionFind, assign_into, build_splits, component_order_key
from .check import check_splits
from .model import DEFAULT_RATIOS, Conflict, SplitConfig, SplitsFile, SplitsHeader, read_splits, write_splits
from .store import SplitsFileError, SplitStore, open_splits, publish
from .summaries import SplitSummary, iter_summaries, speaker_keys, summary_of


def split_manifest(manifest: str | Path, out: str | Path, config: SplitConfig | None = None,
                   previous: str | Path | None = None) -> tuple[SplitsHeader, list[Issue]]:
    """Build splits.json (and its index) for a manifest, keeping any assignment in `previous` (default: `out`).

    Streams the manifest twice (assign, then check) and keeps the assignment in SQLite, so memory does
    not grow with the number of conversations. Returns the header and the issues found (unreadable
    manifest lines, plus check_splits' findings).
    """
    manifest, out = Path(manifest), Path(out)
    read_issues: list[Issue] = []
    prev = open_splits(Path(previous) if previous is not None else out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".sqlite.tmp", dir=out.parent)
    os.close(fd)
    store = SplitStore.create(Path(tmp))
    try:
        header = assign_into(store, iter_summaries(manifest, read_issues), config, prev, manifest_hash(manifest))
        if prev is not None:
            prev.close()
            prev = None
        publish(store, out)
    except BaseException:
        store.close()
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        if prev is not None:
            prev.close()
    with open_splits(out) as written:
        return header, read_issues + check_splits(iter_summaries(manifest), written)


__all__ = [
    "DEFAULT_RATIOS", "Conflict", "SplitConfig", "SplitStore", "SplitSummary", "SplitsFile", "SplitsFileError",
    "SplitsHeader", "UnionFind", "assign_into", "build_splits", "check_splits", "component_order_key",
    "iter_summaries", "open_splits", "read_splits", "speaker_keys", "split_manifest", "summary_of", "write_splits",
]
