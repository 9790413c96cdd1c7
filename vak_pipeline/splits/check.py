"""The manifest-wide split rule: assignments are complete and leak-free (no speaker in two splits).

Takes iterables of (conv_id, speakers) summaries so the validator, the asset check and the tests can
all call it on a streamed manifest. Messages name conversation ids, roles and splits — never speaker
ids, which may be customer identifiers.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..core.issue import Issue, Severity
from .manifest_rows import load_manifest
from .model import SplitsFile, without_fix
from .store import BATCH, SplitStore, as_store, connect
from .summaries import SplitSummary, load_summaries

_FIX_SPLIT = "run `vak split DATA_DIR` (or materialize the splits asset) after the manifest changes"
MAX_LEAK_ISSUES = 200  # one issue per leaking speaker, capped; the count is in the last message
MAX_PER_CODE = 1000  # per-conversation issues of one code; the rest are counted in one more issue


def check_splits(
    manifest: Iterable[SplitSummary | tuple],
    splits: SplitsFile | SplitStore | Mapping[str, Any],
    roles: Iterable[str] | None = None,
) -> list[Issue]:
    """Issues for: unassigned ids (ERROR), held-out ids (WARN), unknown split names (ERROR), ids assigned but
    absent from the manifest (WARN), and speakers that appear in more than one split (ERROR).

    The manifest's ids and speaker keys go into SQLite temp tables beside the split index, so the check
    holds no per-conversation state in Python however large the manifest is.
    """
    with as_store(splits) as store:
        return _check(manifest, store, roles)


def check_manifest(manifest: Path, splits: SplitStore, cache: Path | None = None) -> list[Issue]:
    """check_splits over a manifest file, its summaries read through manifest_rows (kept in `cache`,
    layout.split_rows). The index is opened again read-write, for the temp tables and the cache beside it:
    its own tables are only read."""
    with SplitStore(splits.path, connect(splits.path)) as store:
        load_manifest(store.conn, manifest, splits.header.roles, None, cache)
        return check_loaded(store)


def _check(manifest: Iterable[SplitSummary | tuple], store: SplitStore, roles: Iterable[str] | None) -> list[Issue]:
    roles = list(roles) if roles is not None else list(store.header.roles)
    load_summaries(store.conn, manifest, roles, "raw", "rawkey", BATCH)
    try:
        return check_loaded(store)
    finally:
        store.conn.executescript("DROP TABLE IF EXISTS raw; DROP TABLE IF EXISTS rawkey;")


def check_loaded(store: SplitStore) -> list[Issue]:
    """check_splits over summaries already in the temp tables raw/rawkey (summaries.load_summaries)."""
    conn = store.conn
    try:
        _index(conn)
        issues = list(_per_conversation(conn, sorted(store.header.ratios)))
        issues.extend(_leaks(conn))
        issues.extend(_stale(conn))
        return issues
    finally:
        conn.executescript("DROP TABLE IF EXISTS chk_first; DROP TABLE IF EXISTS chk_home;")


def _index(conn: sqlite3.Connection) -> None:
    """chk_first(id, seq): each conversation's first line; chk_home(key, split, seq, id): where each speaker
    is first seen in each split (speaker keys of a conversation's first line only)."""
    conn.executescript("""
        CREATE TEMP TABLE chk_first (id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE) WITHOUT ROWID;
        INSERT INTO chk_first SELECT id, MIN(seq) FROM raw GROUP BY id;
        CREATE TEMP TABLE chk_home (key TEXT NOT NULL, split TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL,
                                    PRIMARY KEY (key, split)) WITHOUT ROWID;
        INSERT INTO chk_home SELECT k.key, a.v, MIN(f.seq), f.id FROM rawkey k
            JOIN chk_first f ON f.seq = k.seq JOIN main.assignment a ON a.k = f.id GROUP BY k.key, a.v;
    """)


def _capped(issues: Iterator[Issue]) -> Iterator[Issue]:
    """At most MAX_PER_CODE issues of each code, then one that counts the rest."""
    shown: dict[str, int] = {}
    extra: dict[str, Issue] = {}
    hidden: dict[str, int] = {}
    for issue in issues:
        n = shown.get(issue.code, 0)
        if n < MAX_PER_CODE:
            shown[issue.code] = n + 1
            yield issue
        else:
            hidden[issue.code] = hidden.get(issue.code, 0) + 1
            extra.setdefault(issue.code, issue)
    for code, count in hidden.items():
        first = extra[code]
        yield Issue(code=code, severity=first.severity, family="manifest", field=first.field,
                    message=f"{count} more conversation(s) with this issue (first {MAX_PER_CODE} listed)",
                    fix=first.fix)


def _per_conversation(conn: sqlite3.Connection, names: list[str]) -> Iterator[Issue]:
    rows = conn.execute("""
        SELECT f.id, a.v, h.v FROM chk_first f LEFT JOIN main.assignment a ON a.k = f.id
            LEFT JOIN main.held_out h ON h.k = f.id
        WHERE a.v IS NULL OR (? AND a.v NOT IN (SELECT value FROM json_each(?))) ORDER BY f.seq
    """, (bool(names), json.dumps(names)))

    def issues() -> Iterator[Issue]:
        for conv_id, split, held in rows:
            if split is None and held is not None:
                yield Issue(code="split_held_out", severity=Severity.WARN, family="manifest", record_id=conv_id,
                            field="splits.json:held_out", message=without_fix(held),
                            fix="resolve the speaker conflict, then re-run splits; held-out conversations "
                                "are left out of every export")
            elif split is None:
                yield Issue(code="split_missing", family="manifest", record_id=conv_id,
                            field="splits.json:assignment", message="conversation is in the manifest but has no split",
                            fix=_FIX_SPLIT)
            else:
                yield Issue(code="split_unknown_name", family="manifest", record_id=conv_id,
                            field="splits.json:assignment",
                            message=f"assigned to split '{split}', which is not one of {names}",
                            fix="use the split names given in ratios, or add the name to ratios")

    return _capped(issues())


def _leaks(conn: sqlite3.Connection) -> Iterator[Issue]:
    """One issue per speaker found in two or more splits, in the order the manifest reveals them."""
    leaky = conn.execute("""
        SELECT h.key, (SELECT h2.seq FROM chk_home h2 WHERE h2.key = h.key ORDER BY h2.seq LIMIT 1 OFFSET 1) AS second
        FROM (SELECT key FROM chk_home GROUP BY key HAVING COUNT(*) > 1) h ORDER BY second
    """).fetchmany(MAX_LEAK_ISSUES + 1)
    if not leaky:
        return
    total = conn.execute("SELECT COUNT(*) FROM (SELECT key FROM chk_home GROUP BY key HAVING COUNT(*) > 1)"
                         ).fetchone()[0]
    for key, _ in leaky[:MAX_LEAK_ISSUES]:
        homes = conn.execute("SELECT split, id FROM chk_home WHERE key = ? ORDER BY split", (key,)).fetchall()
        role = key.split(":", 1)[0]
        where = ", ".join(f"{conv} ({split})" for split, conv in homes)
        yield Issue(code="split_leak", family="manifest", record_id=min(conv for _, conv in homes),
                    field=f"meta.speakers.{role}",
                    message=f"the same {role} speaker appears in {len(homes)} splits: {where}",
                    fix="re-run splits (speaker-disjoint), or correct meta.speakers if the ids are wrong")
    if total > MAX_LEAK_ISSUES:
        yield Issue(code="split_leak", family="manifest",
                    message=f"{total - MAX_LEAK_ISSUES} more speakers appear in several splits", fix=_FIX_SPLIT)


def _stale(conn: sqlite3.Connection) -> list[Issue]:
    absent = "FROM main.assignment a WHERE NOT EXISTS (SELECT 1 FROM chk_first f WHERE f.id = a.k)"
    count = conn.execute(f"SELECT COUNT(*) {absent}").fetchone()[0]
    if not count:
        return []
    examples = [k for (k,) in conn.execute(f"SELECT a.k {absent} ORDER BY a.k LIMIT 5")]
    return [Issue(code="split_stale_ids", severity=Severity.WARN, family="manifest", field="splits.json:assignment",
                  message=f"{count} assigned conversation(s) are not in the manifest (e.g. {', '.join(examples)})",
                  fix=_FIX_SPLIT + "; removed conversations move to 'retired' and keep their split")]
