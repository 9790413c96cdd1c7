"""Which stretches of a two-channel call's channel are only the other side's bleed, found before ASR.

`speech.bleed` drops words of a channel that the other channel's leak explains, after ASR. Decoding those
words first is wasted time: on a call with cross-talk, each channel's VAD hears the other party as speech,
so every channel decodes both parties. This module applies the same test to the audio, frame by frame,
before decoding, so those stretches are left out of the channel's ASR input:
- the other channel is at least `BleedSettings.louder_db` louder over the frame, and talking (above
  `SOURCE_MIN_DBFS`), and
- this channel's power is at most `BleedSettings.excess_db` above what the leak (level and lag measured by
  `audio.crosstalk`) predicts from the other channel.
A frame where this channel says something of its own stands well above the leak, so real overlaps are
decoded. Only runs of at least `MIN_REGION_S` count, so a single quiet frame inside a word is never cut out.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..audio.crosstalk import SOURCE_MIN_DBFS, Crosstalk
from ..audio.levels import SpanPower
from .bleed import BleedSettings

FRAME_S = 0.05  # hop between tests
SPAN_S = 0.25  # power measured over this span around each frame (bleed.py's min_span_s)
MIN_REGION_S = 0.3  # shorter runs of bleed-only frames are kept in the ASR input


def bleed_only_regions(audio: np.ndarray, sample_rate: int, crosstalk: Crosstalk | None,
                       settings: BleedSettings | None = None,
                       power: Mapping[int, SpanPower] | None = None) -> dict[int, list[tuple[float, float]]]:
    """Per channel, (start, end) seconds where it carries nothing but the other channel's leak; see module doc.

    Empty for a channel without a detected leak, for mono audio, and when `skip_bleed_regions` is off. `power`:
    the channels' span powers when the caller has them (the speech stage builds them once per recording)."""
    settings = settings or BleedSettings()
    out: dict[int, list[tuple[float, float]]] = {}
    if (not settings.skip_bleed_regions or crosstalk is None or audio.ndim != 2 or audio.shape[1] != 2
            or audio.shape[0] == 0):
        return out
    power = power or {c: SpanPower(audio[:, c], sample_rate) for c in (0, 1)}
    duration = audio.shape[0] / sample_rate
    centres = np.arange(FRAME_S / 2, duration, FRAME_S)
    start, end = np.maximum(centres - SPAN_S / 2, 0.0), centres + SPAN_S / 2
    for ch in (0, 1):
        leak = crosstalk.leak_into(ch)
        if leak is None or not leak.detected:
            continue
        lag = (leak.lag_ms or 0.0) / 1000.0
        own, theirs = power[ch].db_spans(start, end), power[leak.source].db_spans(start - lag, end - lag)
        flags = ((theirs >= SOURCE_MIN_DBFS) & (theirs - own >= settings.louder_db)
                 & (own - (theirs + leak.level_db) <= settings.excess_db))
        out[ch] = _runs(flags.tolist(), duration)
    return out


def _runs(flags: list[bool], duration: float) -> list[tuple[float, float]]:
    """Time spans of the runs of True frames at least MIN_REGION_S long."""
    spans: list[tuple[float, float]] = []
    start: int | None = None
    for i, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            a, b = start * FRAME_S, min(i * FRAME_S, duration)
            if b - a >= MIN_REGION_S:
                spans.append((round(a, 3), round(b, 3)))
            start = None
    return spans


def subtract(pieces: list[dict], regions: list[tuple[float, float]], sample_rate: int,
             min_piece_s: float = 0.1) -> list[dict]:
    """Speech pieces ({'start', 'end'} in samples, sorted) without the `regions` (seconds); pieces left shorter
    than `min_piece_s` are dropped (too short to hold a word)."""
    cuts = [(int(a * sample_rate), int(b * sample_rate)) for a, b in regions]
    out: list[dict] = []
    for piece in pieces:
        parts = [(piece["start"], piece["end"])]
        for ca, cb in cuts:
            parts = [q for s, e in parts for q in ((s, min(e, ca)), (max(s, cb), e)) if q[1] > q[0]]
        out += [{"start": s, "end": e} for s, e in parts if e - s >= min_piece_s * sample_rate]
    return out
