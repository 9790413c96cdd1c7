"""Keep cross-talk out of the turns of a two-channel call: words one channel only heard from the other.

When channel X carries channel Y's voice at `level_db` and `lag_ms` (measured by
`audio.crosstalk`), ASR on X transcribes Y's words a second time. A word of X is bleed when the audio
says so:
- the other channel is much louder at that moment (at least `BleedSettings.louder_db`), and
- X's power over the word is explained by the leak: it is no more than `BleedSettings.excess_db` above
  what Y's power at the same moment (shifted by the lag) plus the leak level predicts.
A word that X really says stands well above the leak even while Y talks (a backchannel, an
interruption), so real overlaps stay and are flagged `overlap: true` by the turn builder. Whether the
other channel has the same word at that time is counted (`text_matched`) as a check on the decision,
but never decides: text similarity alone deletes genuine repeats ("okay" said by both people).

Segments are rebuilt from the words that remain; a segment left without words is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..audio.crosstalk import Crosstalk
from ..audio.levels import SpanPower
from .models import Segment, WordTiming, join_words

_TOKEN = re.compile(r"[a-z0-9']+")


class BleedSettings(BaseModel):
    """How bleed words are recognised. Part of the transcript cache key."""

    model_config = ConfigDict(extra="forbid")
    enabled: bool = Field(default=True, description="Drop words of a channel that are the other channel's leak.")
    skip_bleed_regions: bool = Field(
        default=True, description="Leave stretches where a channel is only the other channel's leak out of that "
        "channel's ASR input (speech.gate), so they are not decoded at all; real overlaps are still decoded."
    )
    excess_db: float = Field(
        default=6.0, description="A word whose power is at most this far above the predicted leak is bleed."
    )
    louder_db: float = Field(
        default=6.0, description="... and only while the other channel is at least this much louder."
    )
    min_span_s: float = Field(
        default=0.25, description="Words shorter than this are measured over this span around their centre."
    )
    text_window_s: float = Field(
        default=0.5,
        description="How far apart a word of the other channel may be to count as the same word (reporting only).",
    )


class BleedReport(BaseModel):
    """What bleed removal did to one recording (goes to the record's meta and the speech report)."""

    model_config = ConfigDict(extra="forbid")
    words_removed: int = 0
    segments_removed: int = 0
    words_kept: int = 0
    text_matched: int = Field(0, description="Removed words whose text the other channel has at the same time.")
    by_channel: dict[str, int] = Field(default_factory=dict, description="Words removed per channel.")


def _norm(word: str) -> str:
    return "".join(_TOKEN.findall(word.lower()))


def _same_word_nearby(w: WordTiming, others: list[WordTiming], window: float) -> bool:
    key = _norm(w.word)
    return bool(key) and any(
        _norm(o.word) == key and o.start <= w.end + window and o.end >= w.start - window for o in others
    )


def _span(w: WordTiming, min_span_s: float) -> tuple[float, float]:
    """The word's time span, widened around its centre to at least `min_span_s` (Whisper word edges are loose,
    and a 0 ms word has no power to measure)."""
    if w.end - w.start >= min_span_s:
        return w.start, w.end
    mid = (w.start + w.end) / 2
    return max(mid - min_span_s / 2, 0.0), mid + min_span_s / 2


def remove_bleed(
    segments: list[Segment],
    audio: np.ndarray,
    sample_rate: int,
    crosstalk: Crosstalk | None,
    settings: BleedSettings | None = None,
    power: Mapping[int, SpanPower] | None = None,
) -> tuple[list[Segment], BleedReport]:
    """Segments of a two-channel call without the words that are the other channel's leak; see module doc.
    `power`: the channels' span powers when the caller has them (built once per recording)."""
    settings = settings or BleedSettings()
    report = BleedReport()
    if not settings.enabled or crosstalk is None or audio.ndim != 2 or audio.shape[1] != 2:
        report.words_kept = sum(len(s.words) for s in segments)
        return segments, report
    power = power or {c: SpanPower(audio[:, c], sample_rate) for c in (0, 1)}
    words_of = {c: [w for s in segments if s.channel == c for w in s.words] for c in (0, 1)}
    out: list[Segment] = []
    for seg in segments:
        leak = crosstalk.leak_into(seg.channel) if seg.channel in (0, 1) else None
        if leak is None or not leak.detected:
            out.append(seg)
            report.words_kept += len(seg.words)
            continue
        other = leak.source
        lag = (leak.lag_ms or 0.0) / 1000.0
        words = seg.words or [WordTiming(word=seg.text, start=seg.start, end=seg.end)]
        runs: list[list[WordTiming]] = [[]]
        removed = 0
        for w in words:
            start, end = _span(w, settings.min_span_s)
            own = power[seg.channel].db(start, end)
            theirs = power[other].db(start - lag, end - lag)
            if theirs - own >= settings.louder_db and own - (theirs + leak.level_db) <= settings.excess_db:
                removed += 1
                report.text_matched += _same_word_nearby(w, words_of[other], settings.text_window_s)
                if runs[-1]:
                    runs.append([])
                continue
            runs[-1].append(w)
        runs = [r for r in runs if r]
        report.words_removed += removed
        report.words_kept += sum(len(r) for r in runs)
        if removed:
            key = str(seg.channel)
            report.by_channel[key] = report.by_channel.get(key, 0) + removed
        if not removed:
            out.append(seg)
        elif not runs:
            report.segments_removed += 1
        else:
            out += [
                seg.model_copy(
                    update={
                        "start": r[0].start,
                        "end": max(w.end for w in r),
                        "words": r,
                        "text": join_words([w.word for w in r]),
                    }
                )
                for r in runs
            ]
    return out, report
