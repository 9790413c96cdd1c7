"""A manifest's split summaries, kept by content (issue 34): after a delivery only its lines are validated, and
the summaries reach a split's temp tables by INSERT ... SELECT, with no Python step per conversation.

The cache (layout.split_rows, beside the other publish caches under work/.publish/) holds the summary of each
content-defined chunk of manifest lines (`core.keyed_store.line_chunks`) as rows: a line's status, id, pinned
split and stratum, and its speaker keys by role (the roles a split reads are chosen in SQL, so a change of
roles needs no new summaries). A chunk's key is the sha256 of CACHE_VERSION, summaries.SUMMARIES_VERSION, the
schema's version and the digests of its lines' bytes: a line whose bytes change is summarized again. Chunks
the latest pass did not use are removed. With no cache, or one that cannot be used (unwritable, locked), a
private scratch database takes its place: the same code runs and every chunk is computed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ..core.issue import Issue
from ..core.keyed_store import line_chunks
from ..manifest_hash import manifest_hash
from ..schema.record import SCHEMA_VERSION
from ..storage import JsonLine, iter_jsonl, parse_json_line
from . import summaries
from .summaries import create_tables, read_issue, speaker_keys

CACHE_VERSION = "1"  # bump when what the cache's rows hold, or how a chunk is keyed, changes
Links = Callable[[], Iterable[tuple[str, str]]]  # every (conversation id, key) pair binding conversations

_SCHEMA = """
    CREATE TABLE IF NOT EXISTS sc.chunk (k BLOB PRIMARY KEY);
    CREATE TABLE IF NOT EXISTS sc.line (k BLOB NOT NULL, pos INTEGER NOT NULL, status TEXT NOT NULL, id TEXT,
        pinned TEXT, stratum TEXT, note TEXT, PRIMARY KEY (k, pos)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS sc.lkey (k BLOB NOT NULL, pos INTEGER NOT NULL, role TEXT NOT NULL, key TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS sc.lkey_by_chunk ON lkey (k);
    -- the latest pass: its manifest's chunks in order, and the issues of its lines that were never summarized
    CREATE TABLE IF NOT EXISTS sc.pass (k BLOB PRIMARY KEY, errors TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS sc.pass_chunk (k BLOB NOT NULL, idx INTEGER NOT NULL, chunk BLOB NOT NULL,
        base INTEGER NOT NULL, lines TEXT NOT NULL, PRIMARY KEY (k, idx));
"""


def load_manifest(conn: sqlite3.Connection, manifest: Path, roles: Iterable[str], issues: list[Issue] | None = None,
                  cache: Path | None = None, links: Links | None = None, raw: str = "raw",
                  keys: str = "rawkey") -> str:
    """Fill the temp tables `raw` and `keys` (summaries.create_tables) from the manifest, as load_summaries does
    from its summaries: one row per readable record line, its speaker keys of `roles`, and the `links` of its
    conversation. Unreadable lines and lines that are not records become `issues`, in line order. Returns the
    manifest's hash (manifest_hash) the rows were read under."""
    found: list[tuple[int, Issue]] = []
    try:
        sha = _load(conn, Path(manifest), list(roles), found, cache, raw, keys)
    except (sqlite3.Error, OSError):
        if cache is None:
            raise
        conn.rollback()
        conn.executescript(f"DROP TABLE IF EXISTS temp.{raw}; DROP TABLE IF EXISTS temp.{keys}; "
                           "DROP TABLE IF EXISTS temp.mchunk;")
        with contextlib.suppress(sqlite3.Error):
            conn.execute("DETACH DATABASE sc")
        found.clear()
        sha = _load(conn, Path(manifest), list(roles), found, None, raw, keys)  # a cache we cannot use: computed here
    if issues is not None:
        issues.extend(issue for _, issue in sorted(found, key=lambda li: li[0]))
    if links is not None:
        conn.execute("CREATE TEMP TABLE lnk (id TEXT NOT NULL, key TEXT NOT NULL)")
        conn.executemany("INSERT INTO lnk VALUES (?, ?)", links())
        conn.executescript(f"""
            CREATE INDEX temp.lnk_by_id ON lnk (id);
            INSERT INTO {keys} SELECT r.seq, l.key FROM {raw} r JOIN lnk l ON l.id = r.id;
            DROP TABLE temp.lnk;
        """)
    return sha


def _load(conn: sqlite3.Connection, manifest: Path, roles: list[str], found: list[tuple[int, Issue]],
          cache: Path | None, raw: str, keys: str) -> str:
    create_tables(conn, raw, keys)
    with _attached(conn, cache):
        fingerprint = json.dumps([CACHE_VERSION, summaries.SUMMARIES_VERSION, SCHEMA_VERSION]).encode()
        sha = manifest_hash(manifest)
        whole = hashlib.sha256(fingerprint + b"\0" + sha.encode()).digest()
        conn.execute("CREATE TEMP TABLE mchunk (idx INTEGER PRIMARY KEY, k BLOB NOT NULL, base INTEGER NOT NULL, "
                     "lines TEXT NOT NULL)")
        if not _passed(conn, manifest, whole, found):
            _chunk(conn, manifest, fingerprint, found)
            _remember(conn, whole, found)
        conn.execute(f"INSERT INTO {raw} SELECT m.base + l.pos, l.id, l.pinned, l.stratum FROM mchunk m "
                     "JOIN sc.line l ON l.k = m.k WHERE l.status = 'ok'")
        conn.execute(f"INSERT INTO {keys} SELECT m.base + l.pos, l.key FROM mchunk m JOIN sc.lkey l ON l.k = m.k "
                     "WHERE l.role IN (SELECT value FROM json_each(?))", (json.dumps(roles),))
        for line, status, note, rid in conn.execute(
                "SELECT json_extract(m.lines, '$[' || l.pos || ']'), l.status, l.note, l.id FROM mchunk m "
                "JOIN sc.line l ON l.k = m.k WHERE l.status != 'ok' ORDER BY m.base + l.pos"):
            value = ["unreadable", note] if status == "unreadable" else ["invalid", int(note), rid]
            found.append((line, read_issue(manifest, line, None, value)))
        if cache is not None:  # what this manifest no longer has goes
            conn.execute("DELETE FROM sc.pass WHERE k != ?", (whole,))
            conn.execute("DELETE FROM sc.pass_chunk WHERE k != ?", (whole,))
            conn.executescript("""
                DELETE FROM sc.chunk WHERE k NOT IN (SELECT k FROM temp.mchunk);
                DELETE FROM sc.line WHERE k NOT IN (SELECT k FROM temp.mchunk);
                DELETE FROM sc.lkey WHERE k NOT IN (SELECT k FROM temp.mchunk);
            """)
        conn.executescript("DROP TABLE temp.mchunk;")
    return sha


def _chunk(conn: sqlite3.Connection, manifest: Path, fingerprint: bytes, found: list[tuple[int, Issue]]) -> None:
    """mchunk: the manifest's chunks in order, each summarized unless the cache has it."""
    base = 0
    for idx, (items, lines, digests) in enumerate(line_chunks(_readable(manifest, found), lambda jl: jl.raw or b"")):
        key = hashlib.sha256(fingerprint + b"\0" + b"".join(digests)).digest()
        if conn.execute("SELECT 1 FROM sc.chunk WHERE k = ?", (key,)).fetchone() is None:
            _summarize(conn, key, lines)
        conn.execute("INSERT INTO mchunk VALUES (?, ?, ?, ?)", (idx, key, base, json.dumps([i.line for i in items])))
        base += len(items)


def _passed(conn: sqlite3.Connection, manifest: Path, whole: bytes, found: list[tuple[int, Issue]]) -> bool:
    """mchunk as the last pass over the same manifest bytes left it (the split's check after the split step, the
    report's after both), and its unreadable lines' issues; False when there is no such pass or a chunk is gone."""
    row = conn.execute("SELECT errors FROM sc.pass WHERE k = ?", (whole,)).fetchone()
    if row is None:
        return False
    conn.execute("INSERT INTO mchunk SELECT idx, chunk, base, lines FROM sc.pass_chunk WHERE k = ?", (whole,))
    if conn.execute("SELECT 1 FROM mchunk m WHERE NOT EXISTS (SELECT 1 FROM sc.chunk c WHERE c.k = m.k)"
                    ).fetchone() is not None:
        conn.execute("DELETE FROM mchunk")
        return False
    found.extend((line, read_issue(manifest, line, error, ["unreadable", error])) for line, error in json.loads(row[0]))
    return True


def _remember(conn: sqlite3.Connection, whole: bytes, found: list[tuple[int, Issue]]) -> None:
    conn.execute("DELETE FROM sc.pass_chunk WHERE k = ?", (whole,))
    conn.execute("INSERT INTO sc.pass_chunk SELECT ?, idx, k, base, lines FROM mchunk", (whole,))
    conn.execute("INSERT OR REPLACE INTO sc.pass VALUES (?, ?)",
                 (whole, json.dumps([[line, issue.message] for line, issue in found])))


def _readable(manifest: Path, found: list[tuple[int, Issue]]) -> Iterator[JsonLine]:
    """The manifest's lines that have bytes to summarize; the others (not UTF-8, too long, a BOM) as issues."""
    for jl in iter_jsonl(manifest, parse=False):
        if jl.error is not None:
            found.append((jl.line, read_issue(manifest, jl.line, jl.error, ["unreadable", jl.error])))
        else:
            yield jl


def _summarize(conn: sqlite3.Connection, key: bytes, lines: list[bytes]) -> None:
    """A chunk's rows, from each line validated as a record (summaries.summary_value)."""
    rows: list[tuple[Any, ...]] = []
    key_rows: list[tuple[Any, ...]] = []
    for pos, line in enumerate(lines):
        value = summaries.summary_value(parse_json_line(0, line))
        if value[0] == "ok":
            _, conv_id, speakers, pinned, stratum = value
            rows.append((key, pos, "ok", conv_id, pinned, stratum, None))
            key_rows.extend((key, pos, role, k) for role in (speakers or {}) for k in speaker_keys(speakers, [role]))
        elif value[0] == "invalid":
            rows.append((key, pos, "invalid", value[2], None, None, str(value[1])))
        else:
            rows.append((key, pos, "unreadable", None, None, None, value[1]))
    conn.execute("DELETE FROM sc.line WHERE k = ?", (key,))  # a chunk cut short by a crash: its rows again
    conn.execute("DELETE FROM sc.lkey WHERE k = ?", (key,))
    conn.executemany("INSERT INTO sc.line VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    conn.executemany("INSERT INTO sc.lkey VALUES (?, ?, ?, ?)", key_rows)
    conn.execute("INSERT INTO sc.chunk VALUES (?)", (key,))


@contextlib.contextmanager
def _attached(conn: sqlite3.Connection, cache: Path | None) -> Iterator[None]:
    """The cache attached to `conn` as `sc` (a private scratch database when `cache` is None), committed and
    detached on the way out."""
    conn.commit()
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        conn.execute("ATTACH DATABASE ? AS sc", (str(cache),))
        conn.execute("PRAGMA sc.journal_mode=WAL")
    else:
        conn.execute("ATTACH DATABASE '' AS sc")
    try:
        conn.executescript(_SCHEMA)
        yield
        conn.commit()
    finally:
        conn.execute("DETACH DATABASE sc")
