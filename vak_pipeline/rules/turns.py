"""Turn rules: order, timing, text and language of spoken turns, overlap flags, language summary."""

from __future__ import annotations

from ..core.issue import Severity
from ..locales import PACKS, declared_languages
from ..schema.record import VakRecord
from .context import RecordIssues


def base_language(tag: str) -> str:
    """'hi-Latn' -> 'hi', 'en-IN' -> 'en'."""
    return tag.split("-", 1)[0].lower()


def check_locale(rec: VakRecord, out: RecordIssues) -> bool:
    if rec.locale not in PACKS:
        out.add("locale_unknown", f"locale {rec.locale!r} names no registered pack",
                f"use one of: {', '.join(sorted(PACKS))} (or register a pack)", family="structure", field="locale")
        return False
    return True


def check_turns(rec: VakRecord, out: RecordIssues, locale_ok: bool) -> None:
    turns = rec.turns
    if not turns:
        out.add("turns_empty", "the conversation has no turns", "drop the record or add its turns",
                family="turns", field="turns")
        return
    allowed = declared_languages(rec.locale) if locale_ok else None
    prev_start = None
    prev_end = None
    for i, t in enumerate(turns):
        if prev_start is not None and t.start < prev_start:
            out.add("turns_unsorted", f"turn starts at {t.start:.3f} s, before turn {i - 1} ({prev_start:.3f} s)",
                    "sort turns by start time", family="turns", turn=i, field="start")
        if t.end < t.start:
            out.add("turn_end_before_start", f"end {t.end:.3f} s is before start {t.start:.3f} s",
                    "swap or correct the times (end >= start)", family="turns", turn=i, field="end")
        if t.tool_call is not None and t.tool_result is not None:
            out.add("turn_kind_ambiguous", "a turn carries both tool_call and tool_result",
                    "split it into a tool_call turn and a tool turn with the result", family="tools", turn=i)
        if t.is_spoken:
            if t.speaker == "tool":
                out.add("turn_tool_speaker_spoken", "a speaker: tool turn carries no tool_result",
                        "give the tool turn a tool_result, or set the speaker to user/agent", family="turns",
                        turn=i, field="speaker")
            if not (t.text and t.text.strip()):
                out.add("turn_text_missing", "spoken turn has no text", "add the transcript text or drop the turn",
                        family="turns", turn=i, field="text")
            if not t.lang:
                out.add("turn_lang_missing", "spoken turn has no lang",
                        "tag it with the locale pack's detect_lang (the tagged_turns stage does this)",
                        family="turns", turn=i, field="lang")
            elif allowed is not None and t.lang not in allowed:
                out.add("turn_lang_undeclared",
                        f"lang {t.lang!r} is not declared by pack {rec.locale} or its siblings "
                        f"({', '.join(sorted(allowed))})",
                        "fix the tag, or set the record's locale to a pack that declares it", family="turns",
                        turn=i, field="lang")
            starts_inside = prev_end is not None and t.start < prev_end
            if t.overlap and not starts_inside:
                out.add("turn_overlap_inconsistent", "overlap is true but the turn starts after the previous ends",
                        "set overlap only when the turn starts before the previous one ends", family="turns",
                        turn=i, field="overlap", severity=Severity.WARN)
            elif starts_inside and not t.overlap:
                out.add("turn_overlap_unflagged", "turn starts before the previous one ends but overlap is not set",
                        "set overlap: true (duplex eval and turn-based adapters rely on it)", family="turns",
                        turn=i, field="overlap", severity=Severity.WARN)
            prev_end = t.end
        prev_start = t.start
    _check_language_summary(rec, out, allowed)


def _check_language_summary(rec: VakRecord, out: RecordIssues, allowed: set[str] | None) -> None:
    if allowed is not None and rec.language.primary not in allowed:
        out.add("language_primary_undeclared",
                f"language.primary {rec.language.primary!r} is not declared by pack {rec.locale}",
                "set language.primary to the main language of the turns", family="turns",
                field="language.primary", severity=Severity.WARN)
    mix = {base_language(x) for x in rec.language.mix}
    present = {base_language(t.lang) for t in rec.turns if t.lang}
    missing = sorted(present - mix)
    if missing:
        out.add("language_mix_incomplete", f"turn languages {missing} are missing from language.mix",
                "language.mix lists every language present in the conversation", family="turns",
                field="language.mix", severity=Severity.WARN)
