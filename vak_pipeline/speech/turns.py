"""From per-speaker ASR segments to canonical turns, tool events, word alignments and the record.

Rules (format doc, turns[]):
- ASR segments are first split where their words pause longer than `max_gap_s` (VAD chunks can span
  the other speaker's turn); pieces of one speaker that follow each other with a gap <= `max_gap_s`
  (default 0.6 s) are one turn; another speaker's piece in between always ends the turn;
- an apparent overlap shorter than `overlap_tolerance_s` (0.25 s) between different speakers is ASR
  timing slop: the earlier turn's end is clipped to the later start;
- turns are sorted by start; `overlap` is true when a spoken turn starts before the previous spoken
  turn ends;
- tool calls/results come from `<stem>.events.jsonl` beside the recording (docs/events.md) and are
  merged in time order: a call is an "agent" turn with start = end = t, a result a "tool" turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ..audio.models import NormalizedAudio
from ..core.issue import Issue, Severity
from ..locales.lid import tag_languages
from ..schema.alignment import Alignment, Word
from ..schema.record import (
    SCHEMA_VERSION,
    Audio,
    Language,
    Meta,
    ToolCall,
    ToolResult,
    Transcription,
    Turn,
    VakRecord,
)
from ..storage import iter_jsonl
from .models import ConversationTranscript, Segment, join_words

DEFAULT_MAX_GAP_S = 0.6
# Whisper word ends run late by a few hundred ms; a "overlap" smaller than this between different speakers
# is timing slop: the earlier turn's end is clipped to the next start instead of flagging overlap.
DEFAULT_OVERLAP_TOLERANCE_S = 0.25
EVENTS_SUFFIX = ".events.jsonl"


class ToolEvent(BaseModel):
    """One line of `<stem>.events.jsonl`: exactly one of tool_call / tool_result, at time t (seconds)."""

    model_config = ConfigDict(extra="forbid")
    t: float
    tool_call: ToolCall | None = None
    tool_result: ToolResult | None = None


def events_path_for(upload_dir: Path, source_file: str) -> Path:
    """`<stem>.events.jsonl` in the recording's folder (stem = file name without its audio suffix)."""
    rel = Path(source_file)
    return upload_dir / rel.parent / f"{rel.stem}{EVENTS_SUFFIX}"


def load_events(path: Path, rel_name: str, record_id: str | None = None) -> tuple[list[ToolEvent], list[Issue]]:
    """Tool events of a recording, sorted by t; every bad line is a line-numbered Issue and is skipped."""
    events: list[ToolEvent] = []
    issues: list[Issue] = []
    if path.is_symlink():  # never followed: it could lead outside the data directory
        return events, [Issue(code="events_symlink", message=f"{rel_name} is a symbolic link; its events are not "
                              "read", fix="replace the link with the file itself", family="tools", file=rel_name,
                              record_id=record_id)]
    if not path.is_file():
        return events, issues

    def bad(line: int, code: str, msg: str, fix: str, fld: str | None = None) -> None:
        issues.append(Issue(code=code, message=msg, fix=fix, family="tools", file=rel_name, line=line or None,
                            record_id=record_id, field=fld))

    for jl in iter_jsonl(path):
        if jl.error:
            bad(jl.line, f"events_{jl.code}", jl.error, "fix the line (see docs/events.md)")
            continue
        try:
            ev = ToolEvent.model_validate(jl.value)
        except ValidationError as err:
            e = err.errors()[0]
            bad(jl.line, "events_invalid", f"{'.'.join(map(str, e['loc']))}: {e['msg']}",
                'write {"t": seconds, "tool_call": {"id", "name", "arguments"}} or '
                '{"t": seconds, "tool_result": {"id", "content"}} (docs/events.md)', ".".join(map(str, e["loc"])))
            continue
        if (ev.tool_call is None) == (ev.tool_result is None):
            bad(jl.line, "events_not_one_kind", "a line must hold exactly one of tool_call or tool_result",
                "split it into one line per call and per result")
            continue
        if ev.t < 0:
            bad(jl.line, "events_negative_time", "t is negative", "t is seconds from the start of the recording", "t")
            continue
        events.append(ev)
    events.sort(key=lambda e: e.t)
    return events, issues


@dataclass
class TurnsBuild:
    turns: list[Turn]
    words: list[Word]


def split_at_pauses(seg: Segment, max_gap_s: float) -> list[Segment]:
    """Pieces of a segment separated by word pauses longer than `max_gap_s` (text rebuilt from words)."""
    if len(seg.words) < 2:
        return [seg]
    runs = [[seg.words[0]]]
    for w in seg.words[1:]:
        if w.start - runs[-1][-1].end > max_gap_s:
            runs.append([])
        runs[-1].append(w)
    if len(runs) == 1:
        return [seg]
    return [seg.model_copy(update={"start": r[0].start, "end": max(w.end for w in r), "words": r,
                                   "text": join_words([w.word for w in r])}) for r in runs]


def build_turns(segments: list[Segment], events: list[ToolEvent] = (), max_gap_s: float = DEFAULT_MAX_GAP_S,
                overlap_tolerance_s: float = DEFAULT_OVERLAP_TOLERANCE_S) -> TurnsBuild:
    """Merge per-speaker segments into sorted turns, set `overlap`, add tool turns, index words by turn."""
    pieces = [p for s in segments if s.text.strip() and s.speaker for p in split_at_pauses(s, max_gap_s)]
    segs = sorted(pieces, key=lambda s: (s.start, s.end))
    groups: list[list[Segment]] = []
    for seg in segs:
        last = groups[-1] if groups else None
        if last and last[-1].speaker == seg.speaker and seg.start - max(s.end for s in last) <= max_gap_s:
            last.append(seg)
        else:
            groups.append([seg])
    spoken: list[tuple[Turn, list[Segment]]] = []
    for g in groups:
        turn = Turn(speaker=g[0].speaker, start=round(g[0].start, 3), end=round(max(s.end for s in g), 3),
                    text=" ".join(s.text.strip() for s in g))
        spoken.append((turn, g))
    tool: list[tuple[Turn, list[Segment]]] = []
    for ev in events:
        t = round(ev.t, 3)
        if ev.tool_call is not None:
            tool.append((Turn(speaker="agent", start=t, end=t, tool_call=ev.tool_call), []))
        else:
            tool.append((Turn(speaker="tool", start=t, end=t, tool_result=ev.tool_result), []))
    # stable: at equal start a spoken turn comes before a tool turn, a call before its result
    ordered = sorted(spoken + tool, key=lambda p: p[0].start)
    turns: list[Turn] = []
    words: list[Word] = []
    prev: int | None = None  # index in `turns` of the previous spoken turn
    for idx, (turn, group) in enumerate(ordered):
        if turn.is_spoken:
            if prev is not None and turn.start < turns[prev].end:
                p = turns[prev]
                if p.speaker != turn.speaker and p.end - turn.start <= overlap_tolerance_s and p.start < turn.start:
                    turns[prev] = p.model_copy(update={"end": turn.start})
                else:
                    turn = turn.model_copy(update={"overlap": True})
            prev = idx
            for seg in group:
                for w in seg.words:
                    words.append(Word(word=w.word, start=w.start, end=max(w.end, w.start), speaker=turn.speaker,
                                      turn=idx, channel=seg.channel, probability=w.probability))
        turns.append(turn)
    words.sort(key=lambda w: (w.start, w.end))
    return TurnsBuild(turns=turns, words=words)


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def file_created(path: Path) -> str | None:
    """meta.created of a recording: its raw file's mtime (UTC), so re-running the pipeline changes nothing."""
    try:
        return datetime.fromtimestamp(Path(path).stat().st_mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OSError:
        return None


def cleanup_meta(transcript: ConversationTranscript) -> dict:
    """meta.crosstalk (leak per channel) and meta.removed (bleed / hallucination counts), when measured."""
    out: dict = {}
    if transcript.crosstalk is not None:
        out["crosstalk"] = transcript.crosstalk.model_dump(mode="json", exclude_none=True)
    if transcript.removed:
        out["removed"] = dict(transcript.removed)
    return out


def build_record(audio: NormalizedAudio, transcript: ConversationTranscript, events: list[ToolEvent] = (),
                 max_gap_s: float = DEFAULT_MAX_GAP_S, created: str | None = None,
                 overlap_tolerance_s: float = DEFAULT_OVERLAP_TOLERANCE_S
                 ) -> tuple[VakRecord, Alignment, list[Issue]]:
    """The canonical record (before redaction) and its word alignment, languages tagged per turn."""
    s = audio.settings
    built = build_turns(transcript.segments, events, max_gap_s, overlap_tolerance_s)
    issues: list[Issue] = []
    if not any(t.is_spoken for t in built.turns):
        issues.append(Issue(code="no_speech_transcribed", severity=Severity.WARN, family="turns",
                            record_id=audio.conv_id, file=audio.shown_file,
                            message="ASR found no speech in the recording",
                            fix="check the recording (silence? wrong channel?) or the ASR model/language"))
    record = VakRecord(
        id=audio.conv_id,
        schema_version=SCHEMA_VERSION,
        audio=Audio(path=audio.path, sample_rate=audio.sample_rate, channels=audio.channels,
                    channel_map=s.channel_map if audio.channels == 2 else None, duration_s=audio.duration_s,
                    condition=s.condition),
        locale=s.locale,
        language=Language(primary=s.locale, mix=[]),  # replaced by tag_languages below
        domain=s.domain, scenario=s.scenario, system_prompt=s.system_prompt, tools=list(s.tools),
        turns=built.turns,
        meta=Meta(source=s.source, consent=s.consent, consent_ref=s.consent_ref,
                  voice_consent_ref=s.voice_consent_ref, license=s.license, pii_redacted=False,
                  transcription=Transcription(engine=transcript.engine, verified_by_human=False),
                  diarization=transcript.diarization, created=created or now_utc(),
                  speakers=dict(s.speakers) or None,
                  allow_unconsented=True if s.allow_unconsented else None,
                  upload=audio.upload, source_file=audio.shown_file, **cleanup_meta(transcript)),
    )
    record = tag_languages(record, overwrite=True)
    return record, Alignment(conversation_id=audio.conv_id, words=built.words), issues
