"""Redact one conversation: text, system prompt and tool JSON get numbered placeholders, entity offsets
are remapped, and a RedactionLog records every replacement (type and position, never the value).

Numbering is per conversation, in order of first appearance, and identity-based: the same phone said as
"nine eight seven ..." and written "+91 98765 43210" is the same <PHONE_1> everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.corrections import CLEARABLE_TYPES, PiiSpan
from ..locales.base import LocalePack
from ..pii import UPSTREAM_PLACEHOLDER_RE, format_placeholder
from ..pii.recognizers import PLACEHOLDER_PREFIX, Match, find_pii, persona_names, resolve_overlaps
from ..pii.recognizers.asked import asked_types, asks_a_question, find_asked_runs, find_unsure_runs
from ..pii.recognizers.phone import asks_for_number, find_cued_digit_runs
from ..schema import Alignment, AudioMask, Entity, RedactionLog, RedactionSpan, Turn, VakRecord
from .audio import AudioSettings, locate_span, make_mask, redact_alignment
from .memo import remembered
from .spoken_ids import with_spoken_ids

# Entity types the format names that are a person's data: an annotated one is redacted even if no
# recognizer fired (the annotation is evidence), and its text becomes the placeholder.
PII_ENTITY_TYPES = {"phone": "phone", "person_name": "person_name", "address": "address", "email": "email",
                    "name": "person_name", "phone_number": "phone"}


@dataclass
class _Field:
    """One redactable string: where it lives (turn, field path) and its matches."""

    turn: int | None
    path: str  # "system_prompt" | "text" | "tool_call.arguments.x" | "tool_result.content[0].y"
    text: str
    schema: dict[str, Any] | None = None  # the JSON schema of a tool argument, when known
    numeric: bool = False  # the JSON leaf was a number, not a string
    matches: list[Match] = field(default_factory=list)
    keys: tuple[str | int, ...] = ()  # the JSON leaf's location below arguments/content (the path is for people)


@dataclass
class RedactedField:
    turn: int | None
    path: str
    original: str
    redacted: str
    # (orig_start, orig_end, new_start, new_end, type, placeholder, recognizer)
    spans: list[tuple[int, int, int, int, str, str, str]]


def _walk_json(value: Any, path: str, schema: dict[str, Any] | None, keys: tuple[str | int, ...] = ()
               ) -> Iterator[tuple[str, Any, dict | None, tuple[str | int, ...]]]:
    """(display path, leaf, its schema, its location) of every string or number leaf. The display path is
    for logs and people; the location is a tuple of keys and indices, so keys like "" or "a.b" stay exact."""
    if isinstance(value, dict):
        props = (schema or {}).get("properties", {}) if isinstance(schema, dict) else {}
        for k, v in value.items():
            yield from _walk_json(v, f"{path}.{k}", props.get(k) if isinstance(props, dict) else None, (*keys, k))
    elif isinstance(value, list):
        items = (schema or {}).get("items") if isinstance(schema, dict) else None
        for i, v in enumerate(value):
            yield from _walk_json(v, f"{path}[{i}]", items if isinstance(items, dict) else None, (*keys, i))
    elif isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool)):
        yield path, value, schema, keys


def _set_json(value: Any, keys: tuple[str | int, ...], new: Any) -> Any:
    """Return `value` with the leaf at `keys` replaced; the containers on the way are copied."""
    if not keys:
        return new
    head, rest = keys[0], keys[1:]
    out = list(value) if isinstance(value, list) else dict(value)
    out[head] = _set_json(value[head], rest, new)
    return out


def _schema_fits(schema: dict[str, Any] | None, numeric: bool) -> bool:
    if not schema:
        return not numeric
    if any(k in schema for k in ("pattern", "format", "enum", "const")):
        return False
    t = schema.get("type")
    return t in (None, "string") or (isinstance(t, list) and "string" in t)


class _Numbering:
    """value identity -> placeholder, numbered per placeholder prefix in order of first appearance."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, str], str] = {}
        self.counters: dict[str, int] = {}
        self.person_tokens: dict[str, str] = {}

    def placeholder(self, m: Match) -> str:
        key = (m.type, m.norm)
        if key in self.by_key:
            return self.by_key[key]
        if m.type == "person_name":
            toks = m.norm.split()
            known = [self.person_tokens[t] for t in toks if t in self.person_tokens]
            if known:  # "Priya" then "Priya Sharma" (or the reverse): the same person
                self.by_key[key] = known[0]
                for t in toks:
                    self.person_tokens.setdefault(t, known[0])
                return known[0]
        prefix = PLACEHOLDER_PREFIX.get(m.type, m.type.upper())
        n = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = n
        ph = format_placeholder(prefix, n)
        self.by_key[key] = ph
        if m.type == "person_name":
            for t in m.norm.split():
                if len(t) > 1:
                    self.person_tokens.setdefault(t, ph)
        return ph


def _collect_fields(rec: VakRecord) -> list[_Field]:
    fields: list[_Field] = []
    if rec.system_prompt:
        fields.append(_Field(None, "system_prompt", rec.system_prompt))
    tools = {t.name: t.parameters for t in rec.tools}
    for i, turn in enumerate(rec.turns):
        if turn.text:
            fields.append(_Field(i, "text", turn.text))
        if turn.tool_call is not None:
            params = tools.get(turn.tool_call.name)
            for path, v, sch, keys in _walk_json(turn.tool_call.arguments, "tool_call.arguments", params):
                fields.append(_Field(i, path, str(v), sch, numeric=not isinstance(v, str), keys=keys))
        if turn.tool_result is not None:
            for path, v, sch, keys in _walk_json(turn.tool_result.content, "tool_result.content", None):
                fields.append(_Field(i, path, str(v), sch, numeric=not isinstance(v, str), keys=keys))
    return fields


def _entity_hints(rec: VakRecord, f: _Field) -> list[Match]:
    if f.path != "text" or f.turn is None:
        return []
    out = []
    for e in rec.turns[f.turn].entities or []:
        # a recognizer's own type too: a reviewer marks spans with them (review/label_config.xml)
        ptype = PII_ENTITY_TYPES.get(e.type) or (e.type if e.type in PLACEHOLDER_PREFIX else None)
        if ptype is None or e.start_char is None or e.end_char is None:
            continue
        if f.text[e.start_char:e.end_char] == e.text and e.text.strip():
            norm = " ".join(e.text.lower().split())
            out.append(Match(ptype, e.start_char, e.end_char, 0.99, "entity", norm))
    return out


# (pack id, text, names, ner, persona) -> find_pii's matches: what a run remembers of the texts it scanned
TextMemo = dict[tuple[str, str, tuple[str, ...], bool, frozenset[str]], list[Match]]
MEMO_LIMIT = 20_000  # texts remembered at most (then forgotten at once): memory stays flat on any upload


def _find_pii(pack: LocalePack, text: str, names: tuple[str, ...], ner: bool, persona: frozenset[str],
              memo: TextMemo | None) -> list[Match]:
    """find_pii, remembered per text when the caller keeps a memo: chats and calls repeat many texts ("Thanks.",
    a bot's greeting, a tool's arguments), and find_pii depends on the text, pack, names and persona only. The
    list is shared: callers build new lists from it."""
    return remembered(memo, (pack.id, text, names, ner, persona), MEMO_LIMIT,
                      lambda: find_pii(pack, text, names, ner, persona))


def _scan(rec: VakRecord, fields: list[_Field], pack: LocalePack, names: tuple[str, ...], ner: bool,
          memo: TextMemo | None = None) -> None:
    persona = persona_names(rec.system_prompt)
    for f in fields:
        extra = _entity_hints(rec, f)
        if f.path == "text" and "phone" in pack.pii_types and _previous_asks_for_number(rec, f.turn):
            extra += list(find_cued_digit_runs(f.text, cued=True))
        question = _previous_question(rec, f.turn) if f.path == "text" else None
        asked = tuple(asked_types(question, pack.pii_types)) if question else ()
        for ptype in asked:  # "which card?" -> the reply's digits are a card
            extra += list(find_asked_runs(f.text, ptype))
        f.matches = resolve_overlaps(_find_pii(pack, f.text, names, ner, persona, memo) + extra)
        if question and asks_a_question(question):
            f.matches = _with_unsure_runs(f.matches, find_unsure_runs(f.text, pack.number_words, asked))
        elif f.path == "text" and rec.audio is not None:  # a heard turn: ASR may have lost the question's cue
            f.matches = _with_unsure_runs(f.matches, find_unsure_runs(f.text, pack.number_words))
        if f.path == "text":  # e-mail-like and spelled runs no recognizer typed (redaction/spoken_ids.py)
            f.matches = with_spoken_ids(f.matches, f.text)


def _with_unsure_runs(matches: list[Match], runs: Iterable[Match]) -> list[Match]:
    """The safety net's digit runs join the typed matches: a run that overlaps typed matches widens them
    (their type stays; "i8-5-3-5-8-6-1" is all masked, not only the part the phone recognizer took), a
    run that overlaps none is redacted as UNSURE."""
    out = list(matches)
    for r in runs:
        hit = [m for m in out if m.start < r.end and r.start < m.end]
        if not hit:
            out.append(r)
            continue
        keep = max(hit, key=lambda m: (m.end - m.start, m.score))
        out = [m for m in out if m not in hit]
        out.append(Match(keep.type, min(r.start, *(m.start for m in hit)), max(r.end, *(m.end for m in hit)),
                         keep.score, keep.recognizer, keep.norm))
    return resolve_overlaps(out)


def _previous_question(rec: VakRecord, turn: int | None) -> str | None:
    """The text of the spoken turn before `turn` when the other speaker said it."""
    if not turn:
        return None
    for prev in reversed(rec.turns[:turn]):
        if prev.is_spoken and prev.text:
            return prev.text if prev.speaker != rec.turns[turn].speaker else None
    return None


def _previous_asks_for_number(rec: VakRecord, turn: int | None) -> bool:
    """The spoken turn before `turn` (by the other speaker) asked for a phone number."""
    if not turn:
        return False
    for prev in reversed(rec.turns[:turn]):
        if prev.is_spoken and prev.text:
            return prev.speaker != rec.turns[turn].speaker and asks_for_number(prev.text)
    return False


def find_record_pii(rec: VakRecord, pack: LocalePack, names: tuple[str, ...] = (), ner: bool = False,
                    memo: TextMemo | None = None) -> list[_Field]:
    """Fields of `rec` with their matches. Names found anywhere (cues, NER, annotated entities) are then
    looked for everywhere, and every found value is looked for verbatim in every other field. `memo`: a dict
    the caller keeps for a run (`_find_pii`)."""
    fields = _collect_fields(rec)
    _scan(rec, fields, pack, names, ner, memo)
    found_names = {f.text[m.start:m.end] for f in fields for m in f.matches if m.type == "person_name"}
    extra = tuple(sorted(n for n in found_names if n not in names))
    if extra:
        _scan(rec, fields, pack, names + extra, ner, memo)
    # verbatim sweep: a value recognised in one field is the same value wherever it is repeated
    values: dict[str, Match] = {}
    for f in fields:
        for m in f.matches:
            surface = f.text[m.start:m.end]
            if len(surface) >= 4:
                values.setdefault(surface, m)
    if values:
        for f in fields:
            added = []
            for surface, m in values.items():
                start = f.text.find(surface)
                while start >= 0:
                    added.append(Match(m.type, start, start + len(surface), 0.5, "repeat", m.norm))
                    start = f.text.find(surface, start + 1)
            if added:
                f.matches = resolve_overlaps(f.matches + added)
    return fields


_ANY_PLACEHOLDER = UPSTREAM_PLACEHOLDER_RE
_UPSTREAM_TYPES = {v: k for k, v in PLACEHOLDER_PREFIX.items()} | {
    "PER": "person_name", "ORG": "organization", "ADDR": "address", "ID": "account_id", "URL": "url"}


def _existing_counters(fields: list[_Field]) -> dict[str, int]:
    counters: dict[str, int] = {}
    for f in fields:
        for m in _ANY_PLACEHOLDER.finditer(f.text):
            if m.group(2):  # a numbered one; <SECRET> has no number to continue
                counters[m.group(1)] = max(counters.get(m.group(1), 0), int(m.group(2)))
    return counters


def _upstream_spans(rec: VakRecord, new_spans: list[RedactionSpan]) -> list[RedactionSpan]:
    """Log spans for placeholders that were already in the text (the log covers every placeholder)."""
    ours = {(s.turn, s.field, s.start) for s in new_spans}
    texts = [(None, "system_prompt", rec.system_prompt or "")] + [(i, "text", t.text or "")
                                                                   for i, t in enumerate(rec.turns)]
    out = []
    for turn, field_name, text in texts:
        if "<" not in text:
            continue
        for m in _ANY_PLACEHOLDER.finditer(text):
            if (turn, field_name, m.start()) in ours:
                continue
            prefix = m.group(1) or "SECRET"
            out.append(RedactionSpan(turn=turn, field=field_name, type=_UPSTREAM_TYPES.get(prefix, prefix.lower()),
                                     start=m.start(), end=m.end(), placeholder=m.group(), recognizer="upstream"))
    return out


def _splice(f: _Field, numbering: _Numbering) -> RedactedField:
    parts: list[str] = []
    spans = []
    pos = 0
    out_len = 0
    for m in f.matches:
        ph = numbering.placeholder(m)
        chunk = f.text[pos:m.start]
        parts.append(chunk)
        out_len += len(chunk)
        parts.append(ph)
        spans.append((m.start, m.end, out_len, out_len + len(ph), m.type, ph, m.recognizer))
        out_len += len(ph)
        pos = m.end
    parts.append(f.text[pos:])
    return RedactedField(f.turn, f.path, f.text, "".join(parts), spans)


def _map_offset(pos: int, spans: list[tuple[int, int, int, int, str, str, str]], is_end: bool) -> int:
    """Original offset -> redacted offset; an offset inside a replaced span snaps to the placeholder edge."""
    shift = 0
    for os_, oe, ns, ne, *_ in spans:
        if pos <= os_:
            break
        if pos < oe:
            return ne if is_end else ns
        shift = ne - oe
    return pos + shift


def _remap_entities(entities: list[Entity], rf: RedactedField, replaced: dict[str, str]) -> list[Entity]:
    out = []
    for e in entities:
        upd: dict[str, Any] = {}
        if e.start_char is not None and e.end_char is not None:
            s = _map_offset(e.start_char, rf.spans, False)
            t = _map_offset(e.end_char, rf.spans, True)
            new_text = rf.redacted[s:t]
            upd = {"start_char": s, "end_char": t, "text": new_text}
            touched = any(os_ < e.end_char and e.start_char < oe for os_, oe, *_ in rf.spans)
        else:
            new_text = e.text
            for val, ph in sorted(replaced.items(), key=lambda kv: -len(kv[0])):
                if val and val in new_text:
                    new_text = new_text.replace(val, ph)
            touched = new_text != e.text
            upd = {"text": new_text}
        if touched and e.normalized is not None:
            upd["normalized"] = new_text
        out.append(e.model_copy(update=upd))
    return out


@dataclass
class RedactionOutcome:
    record: VakRecord
    log: RedactionLog
    masks: list[AudioMask]
    alignment: Alignment | None  # word timings with redacted words replaced by their placeholder
    counts: dict[str, int]  # replacements per PII type (for metadata: never values)
    cleared: int = 0  # spans a reviewer said are not PII, left in the text (core.corrections.CLEARABLE_TYPES)
    kept: int = 0  # spans a reviewer removed that stay redacted: a validated identifier


def redact_record(record: VakRecord, pack: LocalePack, names: tuple[str, ...] | list[str] = (),
                  audio_settings: AudioSettings | None = None, alignment: Alignment | None = None,
                  ner: bool = False) -> tuple[VakRecord, RedactionLog, list[AudioMask]]:
    """The redacted record, its log, and the audio masks to apply (one per redacted spoken span, on the
    speaker's channel). The record's meta is left to the caller (stage), which knows if audio was masked."""
    out = redact_record_full(record, pack, names, audio_settings, alignment, ner)
    return out.record, out.log, out.masks


def _clear_reviewed(fields: list[_Field], cleared: Mapping[int, list[PiiSpan]]) -> tuple[int, int]:
    """Drop the matches a reviewer said are not PII from their turn's text, where the type is one the
    recognizers only guess; (cleared, kept: a validated identifier stays redacted)."""
    done = kept = 0
    for f in fields:
        spans = cleared.get(f.turn) if f.path == "text" and f.turn is not None else None
        if not spans:
            continue
        said = {(s.type, " ".join(s.text.lower().split())) for s in spans}
        keep = []
        for m in f.matches:
            if (m.type, " ".join(f.text[m.start:m.end].lower().split())) not in said:
                keep.append(m)
            elif m.type in CLEARABLE_TYPES:
                done += 1
            else:
                kept += 1
                keep.append(m)
        f.matches = keep
    return done, kept


def redact_record_full(record: VakRecord, pack: LocalePack, names: tuple[str, ...] | list[str] = (),
                       audio_settings: AudioSettings | None = None, alignment: Alignment | None = None,
                       ner: bool = False, cleared: Mapping[int, list[PiiSpan]] | None = None,
                       memo: TextMemo | None = None) -> RedactionOutcome:
    """redact_record plus the rewritten alignment and per-type counts. `cleared`: turn index -> the spans a
    human reviewer said are not PII (core.corrections.cleared_spans). `memo`: see find_record_pii."""
    audio_settings = audio_settings or AudioSettings()
    fields = find_record_pii(record, pack, tuple(names), ner, memo)
    n_cleared, n_kept = _clear_reviewed(fields, cleared) if cleared else (0, 0)
    numbering = _Numbering()
    numbering.counters = _existing_counters(fields)  # <PHONE_1> already in the text keeps its meaning
    redacted = [_splice(f, numbering) for f in fields]
    replaced = {rf.original[os_:oe]: ph for rf in redacted for os_, oe, _, _, _, ph, _ in rf.spans}

    words_by_turn: dict[int, list] = {}
    if alignment is not None:
        for w in alignment.words:
            if w.turn is not None:
                words_by_turn.setdefault(w.turn, []).append(w)
    role_channel: dict[str, int] = {}
    if record.audio is not None and record.audio.channel_map:
        role_channel = {role: int(ch) for ch, role in record.audio.channel_map.items() if str(ch).isdigit()}

    data = record.model_dump(mode="python")
    log_spans: list[RedactionSpan] = []
    masks: list[AudioMask] = []
    for f, rf in zip(fields, redacted, strict=True):
        if not rf.spans:
            continue
        fit = True
        if f.path == "system_prompt":
            data["system_prompt"] = rf.redacted
        elif f.path == "text":
            data["turns"][f.turn]["text"] = rf.redacted
        else:
            whole = len(rf.spans) == 1 and rf.spans[0][0] == 0 and rf.spans[0][1] == len(f.text)
            fit = _schema_fits(f.schema, f.numeric) if (f.schema or f.numeric) else True
            new_val: Any = rf.redacted  # a number that held PII becomes a placeholder string
            if whole and not fit:
                pass  # still redacted; the log says the placeholder breaks the argument's schema
            top = "tool_call" if f.path.startswith("tool_call") else "tool_result"
            key = "arguments" if top == "tool_call" else "content"
            data["turns"][f.turn][top][key] = _set_json(data["turns"][f.turn][top][key], f.keys, new_val)
        turn: Turn | None = record.turns[f.turn] if f.turn is not None else None
        for os_, oe, ns, ne, ptype, ph, rec_name in rf.spans:
            mask = None
            if f.path == "text" and turn is not None and record.audio is not None:
                st, en, timing = locate_span(turn, f.text, os_, oe, words_by_turn.get(f.turn),
                                            reach_s=audio_settings.padding_s)
                ch = role_channel.get(turn.speaker) if role_channel else (0 if record.audio.channels == 1 else None)
                mask = make_mask(st, en, ch, timing, audio_settings, record.audio.duration_s or None)
                masks.append(mask)
            extra: dict[str, Any] = {"recognizer": rec_name}
            if not fit:
                extra["schema_fit"] = False
            log_spans.append(RedactionSpan(turn=f.turn, field=f.path, type=ptype, start=ns, end=ne,
                                           placeholder=ph, audio=mask, **extra))
    for i, turn in enumerate(record.turns):
        rf = next((r for r in redacted if r.turn == i and r.path == "text"), None)
        if turn.entities and (rf is not None or replaced):
            rfx = rf or RedactedField(i, "text", turn.text or "", turn.text or "", [])
            data["turns"][i]["entities"] = [e.model_dump(mode="python") for e in
                                            _remap_entities(turn.entities, rfx, replaced)]
    new_record = VakRecord.model_validate(data)
    new_alignment = None
    if alignment is not None:
        texts = {rf.turn: rf.original for rf in redacted if rf.path == "text" and rf.turn is not None}
        spans = {rf.turn: [(os_, oe, ph) for os_, oe, _, _, _, ph, _ in rf.spans]
                 for rf in redacted if rf.path == "text" and rf.turn is not None and rf.spans}
        new_alignment = redact_alignment(alignment, texts, spans)  # type: ignore[arg-type]
    log_spans.extend(_upstream_spans(new_record, log_spans))
    counts: dict[str, int] = {}
    for sp in log_spans:
        counts[sp.type] = counts.get(sp.type, 0) + 1
    return RedactionOutcome(new_record, RedactionLog(conversation_id=record.id, spans=log_spans), masks,
                            new_alignment, counts, n_cleared, n_kept)
