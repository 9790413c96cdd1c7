"""The small per-conversation facts a split needs, read from a streamed manifest.

Splitting is a global pass (union-find over all conversations), so it keeps only these summaries —
an id, the known speaker ids by role and an optional pinned split — never whole records.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from ..core.issue import Issue
from ..schema import VakRecord
from ..storage import JsonLine, iter_jsonl


class SplitSummary(NamedTuple):
    conv_id: str
    speakers: Mapping[str, str] | None = None
    pinned: str | None = None  # meta.split already carried by the record
    stratum: str | None = None  # "audio|<locale>|<source>" or "text|...": what the split balances per split


def stratum_of(record: VakRecord) -> str:
    """The record's stratum: whether it has audio first (speech recipes need speech rows in every split),
    then its locale and source."""
    return f"{'audio' if record.audio is not None else 'text'}|{record.locale}|{record.meta.source}"


def summary_of(record: VakRecord) -> SplitSummary:
    return SplitSummary(record.id, dict(record.meta.speakers or {}), record.meta.split, stratum_of(record))


def as_summary(item: SplitSummary | tuple | VakRecord) -> SplitSummary:
    """Accept a SplitSummary, a plain (conv_id, speakers[, pinned]) tuple or a VakRecord."""
    if isinstance(item, VakRecord):
        return summary_of(item)
    if isinstance(item, SplitSummary):
        return item
    conv_id, speakers, *rest = item
    return SplitSummary(str(conv_id), speakers or {}, rest[0] if rest else None, rest[1] if len(rest) > 1 else None)


def speaker_keys(speakers: Mapping[str, str] | None, roles: Iterable[str]) -> list[str]:
    """Role-qualified speaker keys ("agent:priya"): an agent voice and a customer id never collide."""
    if not speakers:
        return []
    return [f"{role}:{speakers[role]}" for role in roles if speakers.get(role)]


SUMMARIES_VERSION = "1"  # bump when what a line's summary holds, or how it is read, changes


def iter_summaries(manifest: str | Path, issues: list[Issue] | None = None) -> Iterator[SplitSummary]:
    """Stream (conv_id, speakers, pinned) from a manifest; unreadable lines become Issues, not crashes.
    (split_manifest and check_manifest read a manifest through manifest_rows, which keeps each line's summary.)"""
    manifest = Path(manifest)
    for jl in iter_jsonl(manifest):
        value = summary_value(jl)
        if value[0] == "ok" and jl.error is None:
            yield SplitSummary(*value[1:])
        elif issues is not None:
            issues.append(read_issue(manifest, jl.line, jl.error, value))


def summary_value(jl: JsonLine) -> list[Any]:
    """A parsed line's summary as JSON: ["ok", id, speakers, pinned, stratum], ["invalid", errors, id] or
    ["unreadable", why]."""
    if jl.error is not None:
        return ["unreadable", jl.error]
    try:
        record = VakRecord.model_validate(jl.value)
    except ValidationError as exc:
        return ["invalid", exc.error_count(), str(jl.value.get("id")) if jl.value else None]
    s = summary_of(record)
    return ["ok", s.conv_id, s.speakers, s.pinned, s.stratum]


def read_issue(manifest: Path, line: int, error: str | None, value: list[Any]) -> Issue:
    """The issue of a manifest line with no summary: unreadable (`error`, or value ["unreadable", why]) or
    not a record (value ["invalid", errors, id])."""
    if error is not None or value[0] == "unreadable":
        return Issue(code="manifest_line_unreadable", message=error or value[1], family="manifest",
                     fix="re-run validated_manifest; the manifest should hold valid records only",
                     file=str(manifest), line=line)
    return Issue(code="manifest_record_invalid", family="manifest", file=str(manifest), line=line,
                 record_id=value[2], message=f"record does not match the schema ({value[1]} errors)",
                 fix="re-run validated_manifest; the manifest should hold valid records only")


def create_tables(conn: Any, raw: str, keys: str) -> None:
    """The temp tables a split starts from: `raw`(seq, id, pinned, stratum), one row per readable manifest line
    in manifest order, and `keys`(seq, key), the keys that bind a line's conversation to others."""
    conn.executescript(f"""
        CREATE TEMP TABLE {raw} (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, pinned TEXT, stratum TEXT);
        CREATE TEMP TABLE {keys} (seq INTEGER NOT NULL, key TEXT NOT NULL);
    """)


def load_summaries(conn: Any, summaries: Iterable[SplitSummary | tuple], roles: list[str], raw: str,
                   keys: str, batch: int = 10_000) -> None:
    """Stream summaries into SQLite temp tables `raw` and `keys` (create_tables), in batches: the split
    assignment and its check both start from these, whatever the size of the manifest."""
    create_tables(conn, raw, keys)
    rows: list[tuple] = []
    key_rows: list[tuple] = []

    def flush() -> None:
        conn.executemany(f"INSERT INTO {raw} VALUES (?, ?, ?, ?)", rows)
        conn.executemany(f"INSERT INTO {keys} VALUES (?, ?)", key_rows)
        rows.clear()
        key_rows.clear()

    for seq, item in enumerate(summaries):
        s = as_summary(item)
        rows.append((seq, s.conv_id, s.pinned, s.stratum))
        key_rows.extend((seq, k) for k in speaker_keys(s.speakers, roles))
        if len(rows) >= batch:
            flush()
    flush()
