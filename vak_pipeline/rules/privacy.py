"""pii_redacted is re-checked, not trusted: the locale pack scans every text the record carries.

Beyond the turns and the system prompt, the same published strings the redaction stage cleans
(`pii.fields.published_strings`: speaker ids, descriptor fields, free-form metadata) are scanned, so
validation catches what redaction missed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from ..locales import get_pack
from ..locales.base import LocalePack
from ..pii import scan_pii
from ..pii.fields import findings, published_strings
from ..pii.recognizers import persona_names
from ..schema.record import VakRecord
from .context import RecordIssues, ValidationContext


def texts_of(rec: VakRecord) -> Iterator[tuple[int | None, str, str]]:
    """(turn index, field, text) for system_prompt, every turn text, and tool arguments/results as JSON."""
    if rec.system_prompt:
        yield None, "system_prompt", rec.system_prompt
    for i, t in enumerate(rec.turns):
        if t.text:
            yield i, "text", t.text
        if t.tool_call is not None and t.tool_call.arguments:
            yield i, "tool_call.arguments", json.dumps(t.tool_call.arguments, ensure_ascii=False)
        if t.tool_result is not None and t.tool_result.content is not None:
            yield i, "tool_result.content", json.dumps(t.tool_result.content, ensure_ascii=False)


def check_pii(rec: VakRecord, ctx: ValidationContext, out: RecordIssues) -> None:
    # a synthetic record's turns are nobody's words, but its speaker ids and metadata are published strings
    if not rec.meta.pii_redacted and rec.meta.source != "synthetic":
        return
    pack = get_pack(rec.locale)
    names = tuple(ctx.names)
    persona = persona_names(rec.system_prompt)
    if rec.meta.pii_redacted:
        _check_texts(rec, pack, names, persona, out)
    _check_published(rec, pack, names, persona, out)


def _check_texts(rec: VakRecord, pack: LocalePack, names: tuple[str, ...], persona: frozenset[str],
                 out: RecordIssues) -> None:
    for turn, field, text in texts_of(rec):
        for f in scan_pii(pack, text, names, persona):
            out.add("pii_present",
                    f"pii_redacted is true but {field} still holds a {f.type} at characters {f.start}-{f.end}",
                    "re-run redaction (the value is not shown here on purpose)", family="privacy", turn=turn,
                    field=field)


def _check_published(rec: VakRecord, pack: LocalePack, names: tuple[str, ...], persona: frozenset[str],
                     out: RecordIssues) -> None:
    from ..pii.identifiers import identifier_pii

    # ids are made clean where they are made (uploads.ids, the strict policy); never changed here
    for f in identifier_pii(pack, rec.id, strict=True):
        out.add("pii_present", f"the conversation id holds a {f.type} at characters {f.start}-{f.end}",
                "give the source a name without personal data (or a clean conv_id), then run again",
                family="privacy", field="id")
    doc = rec.dump()
    claim = "pii_redacted is true but" if rec.meta.pii_redacted else "the record is synthetic but"
    for s in published_strings(doc):
        for f in findings(pack, s, names, persona):
            field = s.field(pack)
            what = "the key" if s.kind == "key" else "the speaker id" if s.kind == "speaker" else ""
            out.add("pii_present",
                    f"{claim} {field} ({what or 'its value'}) still holds a {f.type} at "
                    f"characters {f.start}-{f.end}",
                    "re-run redaction (the value is not shown here on purpose)", family="privacy",
                    field=field)
