"""aidb.conversation/1.0 import: enterprise chats, email threads and tickets -> canonical records.

Two passes per JSONL line. First the schema's own checks (seeds/003, "Loading and validating"): the
version tag is recognised, required fields are present, `n` runs 1, 2, 3 ... without gaps, every
`reply_to` points backwards, timestamps rise, and no text holds a raw email address or phone number.
A record failing any of them is refused with line-numbered issues and the rest of the file goes on.
Then the record is mapped to a `VakRecord` (docs/aidb.md has the mapping tables): customer-side
messages become user turns, internal-side ones agent turns, notes and events stay out of the spoken
turns but travel in `meta` so `aidb_export.to_aidb` can rebuild the original record.

Text turns have no duration: a turn's start and end are both its `at` in seconds after period.start.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import phonenumbers
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.issue import Issue, Severity
from ..layout import DataLayout
from ..locales import PACKS, get_pack
from ..locales.lid import detect_lang
from ..schema.record import SCHEMA_VERSION, Language, Meta, Turn, VakRecord
from ..schema.redaction_log import RedactionLog, RedactionSpan
from ..uploads.descriptor import RecordingSettings
from .importing import ImportedRecord, LineImport, import_file

SCHEMA_TAG = "aidb.conversation/1.0"
SUPPORTED_TAGS = frozenset({SCHEMA_TAG})
SPOKEN_KINDS = ("message", "reply")
TURN_KINDS = ("message", "reply", "note", "event")
SIDE_TO_SPEAKER = {"customer": "user", "internal": "agent"}

# typed pseudonym tokens of the schema, and the redaction-log type each stands for
TOKEN_TYPES = {
    "PER": "person_name", "ORG": "organization", "EMAIL": "email", "PHONE": "phone", "ADDR": "address",
    "ID": "account_id", "URL": "url", "SECRET": "secret",
}
TOKEN_RE = re.compile(r"<(?:(PER|ORG|EMAIL|PHONE|ADDR|ID|URL)_([1-9][0-9]*)|(SECRET))>")

# language tag -> locale pack when neither upload.yaml's language_map nor its locale decides: each pack
# file's `default_for` (en -> en-US, nl -> nl-NL, de -> de-DE, de-AT -> de-AT ...); read at call time so a
# user's pack in data/locales/ counts


def default_pack_for(tag: str) -> str | None:
    table = {lang: p.id for p in PACKS.values() for lang in p.default_for}
    return table.get(tag) or table.get(base_language(tag))

# raw contact details the first pass refuses (the value is never reported, only type and range)
EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
INTL_PHONE_RE = re.compile(r"(?<![\w<])(?:\+|00)[1-9][0-9 ()./-]{6,}[0-9]")
# national phone formats are read with phonenumbers in the regions a record's language suggests
_LANG_REGIONS = {
    "nl": ("NL", "BE"), "de": ("DE", "AT", "CH"), "fr": ("FR", "BE"), "sv": ("SE",), "es": ("ES",),
    "it": ("IT",), "da": ("DK",), "nb": ("NO",), "no": ("NO",), "fi": ("FI",), "pl": ("PL",), "pt": ("PT",),
}


class _Aidb(BaseModel):
    """aidb objects: strict types (nothing silently coerced) and unknown fields kept, not dropped."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, strict=True)


class AidbSource(_Aidb):
    system: str | None = None
    kind: str | None = None
    channel: str | None = None


class AidbPeriod(_Aidb):
    start: str
    end: str


class AidbParticipant(_Aidb):
    ref: str = Field(min_length=1)
    side: str = Field(min_length=1)
    role: str | None = None


class AidbEvent(_Aidb):
    field: str | None = None
    value: Any = None


class AidbAttachment(_Aidb):
    type: str | None = None
    size: int | None = None


class AidbAnchor(_Aidb):
    path: str | None = None


class AidbTurn(_Aidb):
    n: int
    at: str
    from_: str = Field(alias="from")
    to: list[str] | None = None
    kind: str
    visibility: str | None = None
    text: str | None = None
    event: AidbEvent | None = None
    lang: str | None = None
    reply_to: int | None = None
    direction: str | None = None
    anchor: AidbAnchor | None = None
    attachments: list[AidbAttachment] | None = None
    reactions: dict[str, int] | None = None
    bot: bool | None = None


class AidbOutcome(_Aidb):
    status: str | None = None
    code: str | None = None
    reopened: bool | None = None
    closed_at: str | None = None


class AidbDeid(_Aidb):
    policy: str | None = None
    tokens: dict[str, int] | None = None
    date_offset: str | None = None
    review: str | None = None


class AidbProvenance(_Aidb):
    licensor: str | None = None
    route: str | None = None
    licence: str | None = None


class AidbConversation(_Aidb):
    schema_: str = Field(alias="schema")
    id: str = Field(min_length=1)
    dataset: str
    example: str | None = None
    source: AidbSource
    language: str = Field(min_length=1)
    period: AidbPeriod
    participants: list[AidbParticipant]
    labels: dict[str, Any] | None = None
    turns: list[AidbTurn]
    outcome: AidbOutcome | None = None
    links: list[Any] | None = None
    deid: AidbDeid
    provenance: AidbProvenance

    def dump(self) -> dict[str, Any]:
        """The record as it was read: aliases restored, absent fields left out, explicit nulls kept."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


@dataclass(frozen=True)
class AidbImportContext:
    """Where a record came from and the upload settings that govern it."""

    upload: str
    file: str
    settings: RecordingSettings
    layout: DataLayout | None = None
    keep_notes: bool | None = None  # None: the upload's keep_notes setting (default True)
    sha256: str | Callable[[], str] = ""  # the source file's (hashed once, when an id has to be cleaned)


# ----------------------------------------------------------------------------------------- first pass

def _issue(code: str, message: str, fix: str, *, file: str | None, line: int | None, record_id: str | None = None,
           turn: int | None = None, field: str | None = None, family: str = "structure",
           severity: Severity = Severity.ERROR) -> Issue:
    return Issue(code=code, message=message, fix=fix, severity=severity, family=family, record_id=record_id,
                 turn_index=turn, field=field, file=file, line=line)


def parse_timestamp(value: str) -> datetime | None:
    """An ISO 8601 timestamp with a UTC offset, or None (naive times are ambiguous, so refused)."""
    try:
        ts = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return None
    return ts if ts.tzinfo is not None else None


def raw_contacts(text: str, regions: tuple[str, ...]) -> list[tuple[str, int, int]]:
    """(type, start, end) of raw email addresses and phone numbers in `text`; pseudonym tokens never match."""
    found: list[tuple[str, int, int]] = [("email", m.start(), m.end()) for m in EMAIL_RE.finditer(text)]
    phones: set[tuple[int, int]] = {(m.start(), m.end()) for m in INTL_PHONE_RE.finditer(text)
                                    if sum(c.isdigit() for c in m.group()) >= 8}
    for region in regions:
        for m in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.STRICT_GROUPING):
            phones.add((m.start, m.end))
    emails = [(s, e) for _, s, e in found]
    for s, e in sorted(phones):
        if not any(s < ee and ss < e for ss, ee in emails):  # digits inside an address are the address
            found.append(("phone", s, e))
    return sorted(found, key=lambda f: f[1])


def phone_regions(language: str, pack_id: str | None = None) -> tuple[str, ...]:
    """Regions whose national phone formats a record in `language` is likely to use."""
    regions: list[str] = []
    parts = language.split("-")
    regions += [p.upper() for p in parts[1:] if len(p) == 2 and p.isalpha()]
    regions += list(_LANG_REGIONS.get(parts[0].lower(), ()))
    if pack_id in PACKS:
        regions += list(PACKS[pack_id].phone_regions)
    if not regions:
        regions = ["US", "GB"]
    return tuple(dict.fromkeys(r for r in regions if r in phonenumbers.SUPPORTED_REGIONS))


def _loc_field(loc: tuple[Any, ...]) -> tuple[str, int | None]:
    turn = loc[1] if len(loc) > 1 and loc[0] == "turns" and isinstance(loc[1], int) else None
    path = ""
    for p in loc:
        path += f"[{p}]" if isinstance(p, int) else (f".{p}" if path else str(p))
    return path, turn


def check_aidb_object(obj: dict[str, Any], *, file: str | None = None, line: int | None = None,
                      regions: tuple[str, ...] | None = None) -> tuple[AidbConversation | None, list[Issue]]:
    """The schema's first validation pass over one parsed line. Returns (model or None, issues).

    The model is None when any ERROR was found: such a record is refused, never half-imported.
    """
    rid = obj.get("id") if isinstance(obj.get("id"), str) else None
    kw = {"file": file, "line": line, "record_id": rid}
    if "schema" not in obj:
        return None, [_issue("aidb_required_missing", "required field 'schema' is missing",
                             f'add "schema": "{SCHEMA_TAG}"', field="schema", **kw)]
    if not isinstance(obj["schema"], str) or obj["schema"] not in SUPPORTED_TAGS:
        return None, [_issue("aidb_schema_unknown", f"schema tag {str(obj['schema'])[:60]!r} is not recognised; "
                             f"this loader reads {', '.join(sorted(SUPPORTED_TAGS))}",
                             "convert the record to aidb.conversation/1.0 or add a loader for its version",
                             field="schema", **kw)]
    try:
        conv = AidbConversation.model_validate(obj)
    except ValidationError as err:
        issues = []
        for e in err.errors():
            path, turn = _loc_field(e["loc"])
            if e["type"] == "missing":
                issues.append(_issue("aidb_required_missing", f"required field '{path}' is missing",
                                     f"add '{path}' (see the aidb.conversation/1.0 field table)", turn=turn,
                                     field=path, **kw))
            else:
                issues.append(_issue("aidb_field_invalid", f"'{path}': {e['msg']}",
                                     f"give '{path}' the type the aidb schema defines", turn=turn, field=path, **kw))
        return None, issues
    issues = _check_rules(conv, regions or phone_regions(conv.language), kw)
    ok = not any(i.severity == Severity.ERROR for i in issues)
    return (conv if ok else None), issues


def _check_rules(conv: AidbConversation, regions: tuple[str, ...], kw: dict[str, Any]) -> list[Issue]:
    out: list[Issue] = []
    p_start, p_end = parse_timestamp(conv.period.start), parse_timestamp(conv.period.end)
    for name, val in (("start", p_start), ("end", p_end)):
        if val is None:
            out.append(_issue("aidb_timestamp_invalid", f"period.{name} is not an ISO 8601 timestamp with a UTC "
                              "offset", 'write it like "2023-03-06T08:14:00Z"', field=f"period.{name}", **kw))
    if p_start and p_end and p_end < p_start:
        out.append(_issue("aidb_period_reversed", "period.end is before period.start",
                          "swap or correct the period", field="period.end", **kw))
    refs = {p.ref for p in conv.participants}
    seen_n: set[int] = set()
    prev_at: datetime | None = None
    for i, t in enumerate(conv.turns):
        tk = dict(kw, turn=i)
        expected = i + 1
        if t.n != expected:
            what = "must start at 1" if i == 0 else f"must follow {conv.turns[i - 1].n} without a gap"
            out.append(_issue("aidb_turn_n_sequence", f"turn n is {t.n}; n {what}",
                              f"renumber the turns 1, 2, 3 ... in order (expected {expected})", field="n",
                              family="turns", **tk))
        if t.reply_to is not None and (t.reply_to >= t.n or t.reply_to < 1 or t.reply_to not in seen_n):
            out.append(_issue("aidb_reply_to_forward", f"reply_to {t.reply_to} does not point to an earlier turn "
                              f"(this turn is n={t.n})", "point reply_to at the n of an earlier turn, or drop it",
                              field="reply_to", family="turns", **tk))
        seen_n.add(t.n)
        at = parse_timestamp(t.at)
        if at is None:
            out.append(_issue("aidb_timestamp_invalid", "at is not an ISO 8601 timestamp with a UTC offset",
                              'write it like "2023-03-06T08:14:00Z"', field="at", family="turns", **tk))
        else:
            if prev_at is not None and at < prev_at:
                out.append(_issue("aidb_timestamps_not_rising", "at is earlier than the previous turn's at",
                                  "order turns by time (and renumber n), or correct the timestamp", field="at",
                                  family="turns", **tk))
            if p_start is not None and at < p_start:
                out.append(_issue("aidb_turn_before_period", "at is before period.start",
                                  "widen period.start to the first turn's time", field="at", family="turns", **tk))
            prev_at = at
        if t.kind not in TURN_KINDS:
            out.append(_issue("aidb_kind_unknown", f"kind {t.kind[:40]!r} is not one of {', '.join(TURN_KINDS)}",
                              "use message, reply, note or event", field="kind", family="turns", **tk))
        if t.from_ not in refs:
            out.append(_issue("aidb_from_unknown", f"from {t.from_[:40]!r} is not a participant ref",
                              "add the author to participants or fix the token", field="from", family="turns", **tk))
        if t.kind == "event" and t.event is None:
            out.append(_issue("aidb_event_missing", "an event turn carries no event object",
                              'add "event": {"field": ..., "value": ...}', field="event", family="turns",
                              severity=Severity.WARN, **tk))
        if t.text:
            for typ, s, e in raw_contacts(t.text, regions):
                out.append(_issue("aidb_raw_contact", f"text holds a raw {typ} at characters {s}-{e}",
                                  f"replace it with a typed token such as <{'EMAIL' if typ == 'email' else 'PHONE'}_1>"
                                  " (the value is not shown here on purpose)", field="text", family="privacy", **tk))
    return out


# ------------------------------------------------------------------------------------- language, ids

def base_language(tag: str) -> str:
    return tag.split("-", 1)[0].lower()


def _declared_form(tag: str, languages: tuple[str, ...]) -> str | None:
    if tag in languages:
        return tag
    base = base_language(tag)
    return base if base in languages else None


def resolve_language(tag: str, settings: RecordingSettings) -> tuple[str, str] | tuple[None, Issue]:
    """(locale pack id, language tag the pack declares) for a record language, or (None, issue).

    Order: upload.yaml `language_map`, then the upload's own locale if its pack declares the language, then
    the default table (en -> en-US ...). A language no pack covers is refused, never guessed.
    """
    mapping: dict[str, str] = dict(getattr(settings, "language_map", None) or {})
    pack_id: str | None = None
    if tag in mapping:
        pack_id = mapping[tag]
        if pack_id not in PACKS:
            return None, _issue("aidb_language_map_unknown_pack", f"upload.yaml language_map sends {tag!r} to "
                                f"{pack_id!r}, which is not a registered pack",
                                f"use one of: {', '.join(sorted(PACKS))}", file=None, line=None, field="language")
    elif _declared_form(tag, PACKS[settings.locale].languages) is not None:
        pack_id = settings.locale
    else:
        pack_id = default_pack_for(tag)
    if pack_id is None:
        return None, _issue("aidb_language_no_pack", f"language {tag!r} has no locale pack (registered: "
                            f"{', '.join(sorted(PACKS))})",
                            f"add a locale pack or map the language in upload.yaml (language_map: {{{tag}: <pack>}}) "
                            "to a pack that declares it", file=None, line=None, field="language")
    declared = _declared_form(tag, get_pack(pack_id).languages)
    if declared is None:
        return None, _issue("aidb_language_not_declared", f"language {tag!r} is mapped to pack {pack_id}, which "
                            f"declares only {', '.join(get_pack(pack_id).languages)}",
                            "add a locale pack or map the language in upload.yaml to a pack that declares it",
                            file=None, line=None, field="language")
    return pack_id, declared


def conversation_id_for(upload: str, file: str, record_id: str, sha256: str | Callable[[], str] = "") -> str:
    """The shared id rule (uploads.ids) when present, else `<upload>-<record id>` slugified.

    `file` may be given as `<upload>/<path>` (how issues name it); the id uses the path inside the upload.
    `sha256` (the source file's, a callable called only when needed) tags an id that had to be cleaned, so a
    name in a script the recognizers do not read never becomes a hash of itself.
    """
    if file.startswith(upload + "/"):
        file = file[len(upload) + 1:]
    try:
        from ..uploads.ids import conversation_id
    except ImportError:  # pragma: no cover - ids.py is committed; kept for a partial checkout
        slug = re.sub(r"[^a-z0-9_-]+", "-", f"{upload}-{record_id}".lower()).strip("-")
        return slug or "conversation"
    return conversation_id(upload, file, record_id=record_id, sha256=sha256)


# --------------------------------------------------------------------------------------------- mapping

def token_redaction_log(conv_id: str, turns: list[Turn]) -> RedactionLog:
    """One span per pseudonym token occurrence in the turns' text: the evidence behind pii_redacted."""
    spans = []
    for i, t in enumerate(turns):
        for m in TOKEN_RE.finditer(t.text or ""):
            prefix = m.group(1) or m.group(3)
            spans.append(RedactionSpan(turn=i, field="text", type=TOKEN_TYPES[prefix], start=m.start(),
                                       end=m.end(), placeholder=m.group()))
    return RedactionLog(conversation_id=conv_id, spans=spans)


def provenance_meta(conv: AidbConversation, settings: RecordingSettings, has_raw_contact: bool) -> dict[str, Any]:
    """meta.source/consent/consent_ref/license/pii_redacted by the table in docs/aidb.md."""
    prov = conv.provenance
    fictional = conv.example is not None
    ref = f"{prov.licensor}/{prov.licence}" if prov.licensor and prov.licence else None
    return {
        "source": "synthetic" if fictional else settings.source,
        "consent": "synthetic" if fictional else settings.consent,
        "consent_ref": ref or settings.consent_ref,
        "license": prov.licence or settings.license,
        "pii_redacted": bool(conv.deid.policy) and not has_raw_contact,
    }


@dataclass
class _Turns:
    """An aidb record's turns sorted out: the spoken ones (with their aidb fields), and what stays in meta."""

    spoken: list[Turn] = field(default_factory=list)
    spoken_meta: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    unspoken: list[dict[str, Any]] = field(default_factory=list)  # e.g. an attachment-only message
    issues: list[Issue] = field(default_factory=list)


def _sort_turns(conv: AidbConversation, pack_id: str, primary: str, kw: dict[str, Any]) -> _Turns:
    """Customer and internal messages with text become user and agent turns; notes and events stay out."""
    pack = get_pack(pack_id)
    sides = {p.ref: p.side for p in conv.participants}
    base = parse_timestamp(conv.period.start)
    assert base is not None  # the first pass refuses records whose period does not parse
    out = _Turns()
    for i, t in enumerate(conv.turns):
        raw = t.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if t.kind == "event":
            out.events.append(raw)
            continue
        if t.kind == "note" or t.visibility == "internal":
            out.notes.append(raw)
            continue
        if not (t.text and t.text.strip()):
            out.unspoken.append(raw)
            continue
        speaker = SIDE_TO_SPEAKER.get(sides[t.from_])
        if speaker is None:
            out.issues.append(_issue("aidb_side_unmapped", f"participant side {sides[t.from_][:40]!r} has no "
                                     "canonical speaker", "use side customer or internal for authors of messages",
                                     turn=i, field="from", family="turns", **kw))
            continue
        fallback = primary
        if t.lang:
            declared = _declared_form(t.lang, pack.languages)
            if declared is None:
                out.issues.append(_issue("aidb_turn_lang_not_declared", f"turn lang {t.lang[:20]!r} is not "
                                         f"declared by pack {pack_id}", "add a locale pack or map the language in "
                                         "upload.yaml", turn=i, field="lang", family="turns", **kw))
                continue
            fallback = declared
        offset = round((parse_timestamp(t.at) - base).total_seconds(), 3)  # type: ignore[operator]
        out.spoken.append(Turn(speaker=speaker, start=offset, end=offset, text=t.text,
                               lang=detect_lang(pack, t.text, fallback)))
        out.spoken_meta.append({k: v for k, v in raw.items() if k != "text"})
    return out


def _record(conv: AidbConversation, ctx: AidbImportContext, line: int | None, pack_id: str, primary: str,
            turns: _Turns, conv_id: str) -> VakRecord:
    """The canonical record: provenance by docs/aidb.md, and the aidb fields `aidb_export` rebuilds from."""
    keep_notes = ctx.keep_notes if ctx.keep_notes is not None else getattr(ctx.settings, "keep_notes", True)
    header = conv.dump()
    header.pop("turns")
    aidb_meta = header | {"turns": turns.spoken_meta, "events": turns.events}
    if turns.unspoken:
        aidb_meta["unspoken"] = turns.unspoken
    if not keep_notes and turns.notes:
        aidb_meta["notes_dropped"] = len(turns.notes)
    s = ctx.settings
    meta: dict[str, Any] = provenance_meta(conv, s, has_raw_contact=False)
    meta |= {"redaction_log": (ctx.layout or DataLayout.at(".")).redaction_rel(conv_id), "aidb": aidb_meta,
             "origin": {"format": SCHEMA_TAG, "upload": ctx.upload, "file": ctx.file, "line": line}}
    if s.speakers:
        meta["speakers"] = dict(s.speakers)
    if s.allow_unconsented:
        meta["allow_unconsented"] = True
    if keep_notes and turns.notes:
        meta["notes"] = turns.notes
    mix = sorted({t.lang.split("-")[0] for t in turns.spoken if t.lang})  # base languages, as the format shows
    return VakRecord(id=conv_id, schema_version=SCHEMA_VERSION, locale=pack_id,
                     language=Language(primary=primary, mix=mix or [primary.split("-")[0]]), domain=s.domain,
                     scenario=s.scenario, system_prompt=s.system_prompt, tools=list(s.tools), turns=turns.spoken,
                     meta=Meta.model_validate(meta))


def aidb_to_vak(conv: AidbConversation, ctx: AidbImportContext, line: int | None = None,
                ) -> tuple[ImportedRecord | None, list[Issue]]:
    """Map a first-pass-clean aidb record to a canonical record (and its token redaction log)."""
    kw = {"file": ctx.file, "line": line, "record_id": conv.id}
    pack_id, primary = resolve_language(conv.language, ctx.settings)
    if pack_id is None:
        return None, [primary.model_copy(update=kw)]  # type: ignore[union-attr]
    turns = _sort_turns(conv, pack_id, primary, kw)  # type: ignore[arg-type]
    if any(x.severity == Severity.ERROR for x in turns.issues):
        return None, turns.issues
    if not turns.spoken:
        return None, turns.issues + [_issue("aidb_no_spoken_turns", "the record has no customer or agent message "
                                            "with text", "nothing to train on: drop the record or add its messages",
                                            field="turns", family="turns", **kw)]
    conv_id = conversation_id_for(ctx.upload, ctx.file, conv.id, ctx.sha256)
    record = _record(conv, ctx, line, pack_id, primary, turns, conv_id)  # type: ignore[arg-type]
    return ImportedRecord(record=record, redaction_log=token_redaction_log(conv_id, turns.spoken),
                          line=line or 0), turns.issues


def import_aidb_line(obj: dict[str, Any], ctx: AidbImportContext, line: int) -> LineImport:
    """One parsed line on its own: the schema's first pass, then the mapping (see sources.importing)."""
    regions = phone_regions(obj.get("language") if isinstance(obj.get("language"), str) else "", ctx.settings.locale)
    conv, issues = check_aidb_object(obj, file=ctx.file, line=line, regions=regions)
    if conv is None:
        return LineImport(source_id=obj.get("id") if isinstance(obj.get("id"), str) else None, checked=False,
                          pre=issues)
    imported, map_issues = aidb_to_vak(conv, ctx, line)
    return LineImport(source_id=conv.id, checked=True, pre=issues, imported=imported, post=map_issues)


def line_error(code: str | None, message: str, file: str, line: int | None) -> Issue:
    """A line that is not one JSON object."""
    return _issue(f"aidb_{code}", message, "fix the line so it holds one JSON object", file=file, line=line or None)


def duplicate_id(file: str) -> Callable[[str, int, int], Issue]:
    """The issue of a record id already used earlier in `file`."""
    def issue(rid: str, first: int, line: int) -> Issue:
        return _issue("aidb_id_duplicate", f"id already used on line {first}",
                      "ids are stable and unique within a dataset: give this record its own id",
                      file=file, line=line, record_id=rid, field="id")
    return issue


def iter_aidb_file(path: Path, ctx: AidbImportContext) -> Iterator[ImportedRecord | Issue]:
    """Stream one *.aidb.jsonl file: an ImportedRecord per good line, Issues for everything else."""
    yield from import_file(path, ctx.file, lambda value, line: import_aidb_line(value, ctx, line), line_error,
                           duplicate_id(ctx.file))


def token_counts(texts: list[str]) -> dict[str, int]:
    """Distinct pseudonym tokens per prefix (the shape of deid.tokens)."""
    seen = {m.group() for text in texts for m in TOKEN_RE.finditer(text)}
    return dict(Counter(TOKEN_RE.fullmatch(tok).group(1) or "SECRET" for tok in sorted(seen)))  # type: ignore[union-attr]
