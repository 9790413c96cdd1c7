"""Entity rules: offsets come in pairs and slice exactly the entity's text (redaction and scoring rely on it)."""

from __future__ import annotations

from ..schema.record import VakRecord
from .context import RecordIssues


def check_entities(rec: VakRecord, out: RecordIssues) -> None:
    for i, t in enumerate(rec.turns):
        for k, e in enumerate(t.entities or ()):
            field = f"entities[{k}]"
            if (e.start_char is None) != (e.end_char is None):
                out.add("entity_offsets_partial", "only one of start_char/end_char is set",
                        "give both offsets or neither", family="entities", turn=i, field=field)
                continue
            if e.start_char is None:
                continue
            text = t.text or ""
            if e.end_char < e.start_char or e.end_char > len(text):
                out.add("entity_offsets_out_of_range",
                        f"offsets [{e.start_char}:{e.end_char}] fall outside the turn text (length {len(text)})",
                        "recompute the offsets against the current text", family="entities", turn=i, field=field)
            elif text[e.start_char:e.end_char] != e.text:
                out.add("entity_offsets_mismatch",
                        f"text[{e.start_char}:{e.end_char}] does not equal the {e.type} entity's text",
                        "recompute the offsets (a stale offset corrupts redaction and scoring)",
                        family="entities", turn=i, field=field)
