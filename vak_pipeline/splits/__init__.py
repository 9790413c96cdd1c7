"""Speaker-disjoint, seeded, stable splits (splits.json) and the manifest-wide split rule."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..core.issue import Issue
from .assign import UnionFind, assign_into, assign_loaded, build_splits, component_order_key
from .check import check_loaded, check_manifest, check_splits
from .manifest_rows import Links, load_manifest
from .model import DEFAULT_RATIOS, Conflict, SplitConfig, SplitsFile, SplitsHeader, read_splits, without_fix
from .store import SplitsFileError, SplitStore, open_splits, publish, write_splits
from .summaries import SplitSummary, iter_summaries, speaker_keys, summary_of


def split_manifest(manifest: str | Path, out: str | Path, config: SplitConfig | None = None,
                   previous: str | Path | None = None,
                   links: Links | None = None,
                   forget: Callable[[str], bool] | None = None,
                   cache: Path | None = None) -> tuple[SplitsHeader, list[Issue]]:
    """Build splits.json (and its index) for a manifest, keeping any assignment in `previous` (default: `out`).
    `links()`: (conversation id, key) pairs beyond the speakers' keys that bind conversations to one split
    (duplicate groups: identity.split_links).
    `forget(key)`: a conversation id (or a speaker key) no longer in the manifest that must not be kept as
    retired either (erased: splits.json keeps no trace of it).
    `cache` (layout.split_rows): each manifest line's summary is kept by its bytes (`manifest_rows`).

    One streamed pass over the manifest feeds both the assignment and its check, and the assignment
    lives in SQLite, so memory does not grow with the number of conversations. Returns the header and
    the issues found (unreadable manifest lines, plus check_splits' findings).
    """
    manifest, out = Path(manifest), Path(out)
    config = config or SplitConfig()
    read_issues: list[Issue] = []
    prev = open_splits(Path(previous) if previous is not None else out)
    out.parent.mkdir(parents=True, exist_ok=True)
    store = SplitStore.create_temp(out.parent, out.name)
    try:
        sha = load_manifest(store.conn, manifest, config.roles, read_issues, cache, links)
        header = assign_loaded(store, config, prev, sha)
        if forget is not None:
            store.conn.create_function("vak_forget", 1, lambda k: bool(forget(k)), deterministic=True)
            store.conn.execute("DELETE FROM main.retired WHERE vak_forget(k)")
            store.conn.execute("DELETE FROM main.speakers WHERE vak_forget(k)")
            store.conn.commit()
        issues = read_issues + check_loaded(store)
        store.conn.executescript("DROP TABLE raw; DROP TABLE rawkey;")
        if prev is not None:
            prev.close()
            prev = None
        publish(store, out)
    except BaseException:
        store.close()
        store.path.unlink(missing_ok=True)
        raise
    finally:
        if prev is not None:
            prev.close()
    return header, issues


__all__ = [
    "Conflict", "DEFAULT_RATIOS", "Links", "SplitConfig", "SplitStore", "SplitSummary", "SplitsFile",
    "SplitsFileError", "SplitsHeader", "UnionFind", "assign_into", "build_splits", "check_manifest", "check_splits",
    "component_order_key", "iter_summaries", "load_manifest", "open_splits", "read_splits", "speaker_keys",
    "split_manifest", "summary_of", "without_fix", "write_splits",
]
