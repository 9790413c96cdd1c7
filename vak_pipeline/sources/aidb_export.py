"""Canonical manifest -> aidb.conversation/1.0 (JSONL, and Parquet with the same field layout).

A record imported from aidb carries its original fields in meta.aidb (header, per-turn n/at/from/...,
events) and meta.notes, so `to_aidb` gives back the record it came from, with the canonical text
(which a later redaction may have changed). Any other record (a transcribed call, a messages import)
is described from scratch: participants from its speakers, `at` = a base time + turn start, tool
calls and results as bot `event` turns, deid/provenance from meta. Every exported record passes the
aidb first-pass checks before it is written; one that does not is reported, not written.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..core.issue import Issue
from ..schema.record import VakRecord
from ..storage import JsonlWriter, iter_jsonl
from .aidb import SCHEMA_TAG, TOKEN_RE, check_aidb_object, token_counts

DEFAULT_BASE_TIME = "1970-01-01T00:00:00Z"  # for records with no time of their own: intervals kept, dates not
_SPEAKER_SIDE = {"user": ("customer", "customer"), "agent": ("internal", "agent")}


def _iso(ts: datetime) -> str:
    s = ts.astimezone(UTC).isoformat(timespec="milliseconds" if ts.microsecond else "seconds")
    return s.replace("+00:00", "Z")


def _parse(ts: str | None) -> datetime | None:
    try:
        out = datetime.fromisoformat(ts) if ts else None
    except ValueError:
        return None
    return out if out is None or out.tzinfo else out.replace(tzinfo=UTC)


def to_aidb(record: VakRecord, dataset: str = "vakforge") -> dict[str, Any]:
    """The aidb.conversation/1.0 object of a canonical record (see the module docstring)."""
    extra = record.meta.model_extra or {}
    aidb = extra.get("aidb")
    if isinstance(aidb, dict) and isinstance(aidb.get("turns"), list) and len(aidb["turns"]) == len(record.turns):
        return _restore(record, aidb, extra.get("notes") or [])
    return _describe(record, aidb if isinstance(aidb, dict) else {}, dataset)


def _restore(record: VakRecord, aidb: dict[str, Any], notes: list[dict[str, Any]]) -> dict[str, Any]:
    out = {k: v for k, v in aidb.items() if k not in ("turns", "events", "unspoken", "notes_dropped")}
    turns = []
    for t, base in zip(record.turns, aidb["turns"], strict=True):
        turn = dict(base)
        if t.text is not None:
            turn["text"] = t.text
        turns.append(turn)
    turns += [dict(x) for x in (aidb.get("events") or []) + (aidb.get("unspoken") or []) + list(notes)]
    turns.sort(key=lambda x: x.get("n", 0))
    out["turns"] = turns
    return out


def _describe(record: VakRecord, aidb: dict[str, Any], dataset: str) -> dict[str, Any]:
    m = record.meta
    texts = [t.text for t in record.turns if t.text]
    taken = [int(x.group(2)) for s in texts for x in TOKEN_RE.finditer(s) if x.group(1) == "PER"]
    nxt = max(taken, default=0)
    refs: dict[str, str] = {}
    participants = []
    for speaker in ("user", "agent"):
        if any(t.speaker == speaker or (speaker == "agent" and t.speaker == "tool") for t in record.turns):
            nxt += 1
            refs[speaker] = f"<PER_{nxt}>"
            side, role = _SPEAKER_SIDE[speaker]
            participants.append({"ref": refs[speaker], "side": side, "role": role})
    refs["tool"] = refs.get("agent", "")
    base = _parse(aidb.get("period", {}).get("start") if isinstance(aidb.get("period"), dict) else None) \
        or _parse(m.created) or _parse(DEFAULT_BASE_TIME)
    assert base is not None
    turns = []
    for n, t in enumerate(record.turns, start=1):
        turn: dict[str, Any] = {"n": n, "at": _iso(base + timedelta(seconds=t.start)), "from": refs[t.speaker]}
        if t.tool_call is not None:
            turn |= {"kind": "event", "bot": True,
                     "event": {"field": "tool_call", "value": t.tool_call.model_dump(mode="json")}}
        elif t.tool_result is not None:
            turn |= {"kind": "event", "bot": True,
                     "event": {"field": "tool_result", "value": t.tool_result.model_dump(mode="json")}}
        else:
            turn |= {"kind": "message", "visibility": "public", "text": t.text or ""}
            if t.lang and t.lang != record.language.primary:
                turn["lang"] = t.lang
        turns.append(turn)
    end = base + timedelta(seconds=max((t.end for t in record.turns), default=0.0))
    audio = record.audio is not None
    return {
        "schema": SCHEMA_TAG,
        "id": record.id,
        "dataset": dataset,
        "source": {"system": "vak_pipeline", "kind": "call" if audio else "chat", "channel": "voice" if audio
                   else "chat"},
        "language": record.language.primary,
        "period": {"start": _iso(base), "end": _iso(end)},
        "participants": participants,
        "turns": turns,
        "deid": {"policy": "vak_pipeline" if m.pii_redacted else "none", "tokens": token_counts(texts),
                 "review": "automated"},
        "provenance": {"licensor": m.consent_ref, "route": "vak_pipeline export", "licence": m.license},
    }


@dataclass
class ExportSummary:
    written: int = 0
    refused: int = 0
    issues: list[Issue] = field(default_factory=list)


def iter_aidb(manifest_path: Path, dataset: str = "vakforge") -> Iterator[dict[str, Any] | Issue]:
    """Stream aidb objects for the records of a canonical manifest; Issues for rows that cannot go."""
    name = Path(manifest_path).name
    for jl in iter_jsonl(manifest_path):
        if jl.error:
            yield Issue(code=f"export_{jl.code}", message=jl.error, fix="validate the manifest first (vak validate)",
                        file=name, line=jl.line or None)
            continue
        try:
            rec = VakRecord.model_validate(jl.value)
        except ValidationError as err:
            yield Issue(code="export_record_invalid", message=f"not a canonical record ({err.error_count()} errors)",
                        fix="validate the manifest first (vak validate)", file=name, line=jl.line,
                        record_id=jl.value.get("id") if isinstance(jl.value.get("id"), str) else None)
            continue
        if rec.meta.source != "synthetic" and not rec.meta.pii_redacted:
            yield Issue(code="export_not_redacted", message="aidb records are de-identified; this one is not "
                        "pii_redacted", fix="run the redaction stage before exporting", file=name, line=jl.line,
                        record_id=rec.id, field="meta.pii_redacted", family="privacy")
            continue
        obj = to_aidb(rec, dataset)
        _, issues = check_aidb_object(obj, file=name, line=jl.line)
        errors = [i for i in issues if i.severity.value == "ERROR"]
        if errors:
            yield from errors
            continue
        yield obj


def export_aidb(manifest_path: Path, out_path: Path, parquet_path: Path | None = None,
                dataset: str = "vakforge") -> ExportSummary:
    """Write aidb.conversation/1.0 JSONL (and optionally Parquet) for a canonical manifest, atomically."""
    from ..core.parquet import ParquetStreamWriter

    summary = ExportSummary()
    with contextlib.ExitStack() as stack:
        pq = (stack.enter_context(ParquetStreamWriter(parquet_path, _arrow_schema())) if parquet_path else None)
        with JsonlWriter(Path(out_path)) as w:
            for item in iter_aidb(manifest_path, dataset):
                if isinstance(item, Issue):
                    summary.issues.append(item)
                    continue
                w.write(item)
                if pq is not None:
                    pq.write(_row(item))
                summary.written += 1
    summary.refused = len({i.line for i in summary.issues})
    return summary


# ------------------------------------------------------------------------------------------ Parquet
# Same top-level fields and nesting as the JSONL. Values the schema leaves free-form (labels, links,
# event.value, anchor, attachments, reactions, and any field outside the table) are JSON text in
# Parquet; `iter_aidb_parquet` decodes them, so the same first-pass checks run on both files.

_JSON_TOP = ("labels", "links")
_JSON_TURN = ("anchor", "attachments", "reactions")
_KNOWN_TOP = {"schema", "id", "dataset", "example", "source", "language", "period", "participants", "labels",
              "turns", "outcome", "links", "deid", "provenance"}
_KNOWN_TURN = {"n", "at", "from", "to", "kind", "visibility", "text", "event", "lang", "reply_to", "direction",
               "anchor", "attachments", "reactions", "bot"}


def _arrow_schema() -> Any:
    import pyarrow as pa

    s = pa.string()
    turn = pa.struct([
        ("n", pa.int64()), ("at", s), ("from", s), ("to", pa.list_(s)), ("kind", s), ("visibility", s),
        ("text", s), ("event", pa.struct([("field", s), ("value", s)])), ("lang", s), ("reply_to", pa.int64()),
        ("direction", s), ("anchor", s), ("attachments", s), ("reactions", s), ("bot", pa.bool_()), ("extra", s),
    ])
    return pa.schema([
        ("schema", s), ("id", s), ("dataset", s), ("example", s),
        ("source", pa.struct([("system", s), ("kind", s), ("channel", s)])), ("language", s),
        ("period", pa.struct([("start", s), ("end", s)])),
        ("participants", pa.list_(pa.struct([("ref", s), ("side", s), ("role", s)]))), ("labels", s),
        ("turns", pa.list_(turn)),
        ("outcome", pa.struct([("status", s), ("code", s), ("reopened", pa.bool_()), ("closed_at", s)])),
        ("links", s),
        ("deid", pa.struct([("policy", s), ("tokens", pa.map_(s, pa.int64())), ("date_offset", s), ("review", s)])),
        ("provenance", pa.struct([("licensor", s), ("route", s), ("licence", s)])), ("extra", s),
    ])


def _j(v: Any) -> str | None:
    return None if v is None else json.dumps(v, ensure_ascii=False, sort_keys=True)


def _extra(obj: dict[str, Any], known: set[str]) -> str | None:
    rest = {k: v for k, v in obj.items() if k not in known}
    return _j(rest) if rest else None


def _row(obj: dict[str, Any]) -> dict[str, Any]:
    row = {k: obj.get(k) for k in _KNOWN_TOP if k not in _JSON_TOP and k != "turns"}
    for k in _JSON_TOP:
        row[k] = _j(obj.get(k))
    if isinstance(row.get("deid"), dict) and isinstance(row["deid"].get("tokens"), dict):
        row["deid"] = dict(row["deid"], tokens=list(row["deid"]["tokens"].items()))
    turns = []
    for t in obj.get("turns", []):
        tr = {k: t.get(k) for k in _KNOWN_TURN if k not in _JSON_TURN}
        for k in _JSON_TURN:
            tr[k] = _j(t.get(k))
        if isinstance(t.get("event"), dict):
            tr["event"] = {"field": t["event"].get("field"), "value": _j(t["event"].get("value"))}
        tr["extra"] = _extra(t, _KNOWN_TURN)
        turns.append(tr)
    row["turns"] = turns
    row["extra"] = _extra(obj, _KNOWN_TOP)
    return row


def _unrow(row: dict[str, Any]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for k in _KNOWN_TOP:
        v = row.get(k)
        if k in _JSON_TOP:
            v = None if v is None else json.loads(v)
        elif k == "turns":
            v = [_unturn(t) for t in v or []]
        elif k == "deid" and isinstance(v, dict):
            v = dict(v, tokens=None if v.get("tokens") is None else dict(v["tokens"]))
        v = _drop_none(v)
        if v is not None:
            obj[k] = v
    if row.get("extra"):
        obj |= json.loads(row["extra"])
    return obj


def _unturn(t: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in _KNOWN_TURN:
        v = t.get(k)
        if k in _JSON_TURN and v is not None:
            v = json.loads(v)
        elif k == "event" and v is not None:
            v = {"field": v.get("field"), "value": None if v.get("value") is None else json.loads(v["value"])}
        v = v if k in _JSON_TURN or k == "event" else _drop_none(v)
        if v is not None:
            out[k] = v
    if t.get("extra"):
        out |= json.loads(t["extra"])
    return out


def _drop_none(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _drop_none(x) for k, x in v.items() if x is not None}
    return v


def iter_aidb_parquet(path: Path, batch_size: int = 1000) -> Iterator[dict[str, Any]]:
    """aidb objects back from a Parquet file written by export_aidb (absent and null both read absent)."""
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    for batch in pf.iter_batches(batch_size=batch_size):
        for row in batch.to_pylist():
            yield _unrow(row)
