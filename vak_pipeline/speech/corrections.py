"""Human corrections (core.corrections) applied to a freshly built record, on every run of tag_upload.

A correction names its turn by the time the reviewer saw it; here it is matched to the turn of this run's
record that overlaps it most (intersection over union >= core.corrections.MATCH_IOU), so a re-transcription
with another model or other bleed / diarization settings keeps it. Text, speaker, boundaries and language
replace the ASR's; a PII span the reviewer added becomes an entity on the turn, which the redaction stage
redacts whether or not a recognizer fires (and redaction runs over every corrected text anyway: a typed
phone number is redacted).
The alignment words of a corrected turn are re-fitted (same number of words: the ASR's timings, the
reviewer's words) or spread over the turn and marked `approximate`. A correction that no longer fits is an
issue for the steward, never dropped silently. A span the reviewer removed is cleared by the redaction stage
when its type is one the recognizers only guess (core.corrections.CLEARABLE_TYPES); a validated identifier
stays redacted and the steward is told.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.corrections import Correction, match_turns
from ..core.issue import Issue, Severity
from ..locales.lid import tag_languages
from ..schema.alignment import Alignment, Word
from ..schema.record import Entity, Transcription, Turn, VakRecord


@dataclass
class Applied:
    record: VakRecord
    alignment: Alignment
    issues: list[Issue] = field(default_factory=list)
    turns: int = 0  # corrected turns found and applied
    removed_pii: int = 0  # spans a reviewer said are not PII (cleared by the redaction stage where allowed)


def review_issue(code: str, message: str, fix: str, *, upload: str, record_id: str | None, file: str | None = None,
                 field_name: str | None = None, severity: Severity = Severity.WARN) -> Issue:
    return Issue(code=code, message=message, fix=fix, severity=severity, family="review", record_id=record_id,
                 file=f"{upload}/{file}" if file else "work/review/corrections.jsonl", field=field_name)


def refit_words(words: list[Word], text: str, start: float, end: float, speaker: str, turn: int,
                text_changed: bool) -> list[Word]:
    """The corrected turn's words: the ASR's timings with the reviewer's words when the counts agree and the
    boundaries hold them, else the reviewer's words spread over [start, end] by length, marked approximate."""
    tokens = text.split()
    channel = words[0].channel if words else None
    if words and len(tokens) == len(words) and all(start - 1e-6 <= w.start and w.end <= end + 1e-6 for w in words):
        return [w.model_copy(update={"word": tok if text_changed else w.word, "speaker": speaker, "turn": turn})
                for w, tok in zip(words, tokens, strict=True)]
    total = sum(len(t) + 1 for t in tokens) or 1
    span = max(end - start, 0.0)
    out, pos = [], 0
    for tok in tokens:
        w0 = start + span * pos / total
        pos += len(tok) + 1
        out.append(Word(word=tok, start=round(w0, 3), end=round(start + span * (pos - 1) / total, 3),
                        speaker=speaker, turn=turn, channel=channel, approximate=True))
    return out


def _entities(turn: Turn, spans, upload: str, rec_id: str, idx: int) -> tuple[list[Entity], list[Issue]]:
    ents, issues = [], []
    text = turn.text or ""
    for s in spans:
        at = text.find(s.text) if s.text else -1
        if at < 0:
            issues.append(review_issue(
                "review_pii_span_not_found", f"a {s.type} span a reviewer added is not in the turn's corrected text "
                f"(turn {idx}); it was not applied", "review the turn again in Label Studio and mark the span on its "
                "current text", upload=upload, record_id=rec_id, field_name=f"turns[{idx}].entities"))
            continue
        ents.append(Entity(type=s.type, text=s.text, start_char=at, end_char=at + len(s.text)))
    return ents, issues


def apply_correction(record: VakRecord, alignment: Alignment, correction: Correction) -> Applied:
    """`record` and `alignment` with `correction` applied; every turn it names that is gone is an issue."""
    up = correction.upload
    out = Applied(record, alignment)
    turns = list(record.turns)
    by_turn: dict[int, list[Word]] = {}
    for w in alignment.words:
        by_turn.setdefault(w.turn if w.turn is not None else -1, []).append(w)
    matched = match_turns(turns, correction.turns)
    relang: set[int] = set()
    moved = False
    for ci, tc in enumerate(correction.turns):
        ti = matched.get(ci)
        if ti is None:
            out.issues.append(review_issue(
                "review_turn_vanished", f"a reviewed turn ({tc.start:.2f}-{tc.end:.2f} s) has no turn in this run's "
                "transcript that overlaps it; the correction was not applied",
                "review the conversation again (vak review export --conversation ID), or keep the earlier "
                "transcription settings", upload=up, record_id=record.id, field_name="turns"))
            continue
        out.turns += 1
        out.removed_pii += len(tc.pii_removed)
        t = turns[ti]
        upd: dict = {}
        if tc.text is not None and tc.text != t.text:
            upd["text"], upd["entities"] = tc.text, None
            if tc.lang is None:
                upd["lang"] = None
                relang.add(ti)
        if tc.speaker is not None:
            upd["speaker"] = tc.speaker
        if tc.new_start is not None or tc.new_end is not None:
            s = tc.new_start if tc.new_start is not None else t.start
            e = tc.new_end if tc.new_end is not None else t.end
            upd["start"], upd["end"] = round(min(s, e), 3), round(max(s, e), 3)
            moved = True
        if tc.lang is not None:
            upd["lang"] = tc.lang
        nt = t.model_copy(update=upd)
        if tc.pii_added:
            ents, issues = _entities(nt, tc.pii_added, up, record.id, ti)
            out.issues += issues
            if ents:
                nt = nt.model_copy(update={"entities": [*(nt.entities or []), *ents]})
        turns[ti] = nt
        if "text" in upd or "start" in upd or "speaker" in upd:
            by_turn[ti] = refit_words(by_turn.get(ti, []), nt.text or "", nt.start, nt.end, nt.speaker, ti,
                                      "text" in upd)
    order = sorted(range(len(turns)), key=lambda i: turns[i].start) if moved else list(range(len(turns)))
    new_index = {old: new for new, old in enumerate(order)}
    turns = [turns[i] for i in order]
    if moved:
        turns = _overlaps(turns)
    words = [w.model_copy(update={"turn": new_index.get(w.turn, w.turn)}) if w.turn is not None else w
             for ti, ws in by_turn.items() for w in ws]
    words.sort(key=lambda w: (w.start, w.end))
    rec = record.model_copy(update={"turns": turns})
    rec = tag_languages(rec)  # only the turns whose text changed lost their tag; the summary is recomputed
    if out.turns:
        engine = record.meta.transcription.engine if record.meta.transcription else "unknown"
        tr = Transcription(engine=engine, verified_by_human=True, corrections=correction.digest(),
                           verified_turns=out.turns)
        rec = rec.model_copy(update={"meta": rec.meta.model_copy(update={"transcription": tr})})
    out.record = rec
    out.alignment = alignment.model_copy(update={"words": words})
    return out


def _overlaps(turns: list[Turn]) -> list[Turn]:
    """`overlap` set again after boundaries moved: a spoken turn that starts before the previous one ends."""
    out, prev_end = [], None
    for t in turns:
        if t.is_spoken:
            over = prev_end is not None and t.start < prev_end
            t = t.model_copy(update={"overlap": True if over else None})
            prev_end = t.end if prev_end is None else max(prev_end, t.end)
        out.append(t)
    return out
