"""No words from silence: drop ASR segments that Whisper invented on silence, line noise or hold music.

Each channel of a call is mostly silence while the other party talks, and Whisper is known to fill
silence and noise with stock phrases ("Thank you.", "Thanks for watching!") and loops ("7777...",
the same phrase over and over). Silero VAD (`AsrSettings.vad_filter`, bundled with faster-whisper)
already skips most of it; what gets through is dropped here, segment by segment, for one of these
reasons (counted per reason in the speech report):
- `no_speech`: Whisper's own rule: no_speech_prob above `no_speech_prob` and avg_logprob below
  `logprob_with_no_speech`;
- `low_logprob`: avg_logprob below `min_avg_logprob` (the decoder had no idea);
- `compression`: the text compresses better than `max_compression_ratio` (zlib; a loop);
- `repetition`: an n-gram (n <= 4) repeated back to back `max_repeats` times or more;
- `non_speech`: the text is only a sound tag or symbols ("[Music]", "(upbeat music)", "♪");
- `quiet`: the channel's power over the segment is below `quiet_dbfs` (nothing there to transcribe);
- `stock_phrase`: one of Whisper's stock phrases, and the channel over the segment is less than
  `stock_phrase_snr_db` above its noise floor (a real "Thank you." is said clearly; an invented one
  sits on noise).
"""

from __future__ import annotations

import re
import zlib
from collections import Counter

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..audio.levels import SpanPower
from .models import Segment

_WORD = re.compile(r"[a-z0-9']+")
_TAG_ONLY = re.compile(r"^\s*(?:[\[(♪*#~-].*[\])♪*#~-]|[♪♫\W_]+)\s*$")
STOCK_PHRASES = frozenset(
    {
        "thank you",
        "thanks for watching",
        "thank you for watching",
        "thank you very much",
        "thank you so much",
        "please subscribe",
        "subscribe to my channel",
        "bye",
        "bye bye",
        "you",
        "okay",
        "oh",
        "so",
        "the end",
        "subtitles by the amara org community",
        "i'm sorry",
        "hmm",
        "uh",
        "um",
    }
)
_EPS = 1e-12


class HallucinationSettings(BaseModel):
    """Thresholds of the hallucination filter. Part of the transcript cache key."""

    model_config = ConfigDict(extra="forbid")
    enabled: bool = True
    no_speech_prob: float = Field(default=0.6, ge=0, le=1)
    logprob_with_no_speech: float = Field(default=-1.0, description="With a high no_speech_prob, drop below this.")
    min_avg_logprob: float = Field(default=-1.5, description="Drop any segment below this average log-probability.")
    max_compression_ratio: float = Field(default=2.4, gt=0)
    max_repeats: int = Field(default=4, ge=2, description="Back-to-back repeats of an n-gram that make a loop.")
    quiet_dbfs: float = Field(default=-55.0, description="Channel power over the segment below this: silence.")
    stock_phrase_snr_db: float = Field(
        default=15.0, description="A stock phrase this close to the channel's noise floor is dropped."
    )


class HallucinationReport(BaseModel):
    """Segments and words dropped, by reason."""

    model_config = ConfigDict(extra="forbid")
    segments_removed: int = 0
    words_removed: int = 0
    by_reason: dict[str, int] = Field(default_factory=dict)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def compression_ratio(text: str) -> float:
    """len(text) / len(zlib(text)), as Whisper computes it: loops compress well."""
    raw = text.encode("utf-8")
    return len(raw) / max(len(zlib.compress(raw)), 1) if raw else 0.0


def max_back_to_back(words: list[str], max_n: int = 4) -> int:
    """The most times any n-gram (n <= max_n) is repeated back to back."""
    best = 1 if words else 0
    for n in range(1, max_n + 1):
        for i in range(len(words) - n):
            reps, j = 1, i + n
            while words[j : j + n] == words[i : i + n]:
                reps += 1
                j += n
            best = max(best, reps)
    return best


class ChannelLevels(SpanPower):
    """Power (dBFS) of one channel over any span, and the channel's noise floor (10th percentile of 30 ms frames)."""

    def __init__(self, x: np.ndarray, sample_rate: int) -> None:
        x = np.asarray(x, dtype=np.float64)
        super().__init__(x, sample_rate)
        frame = max(1, int(0.03 * sample_rate))
        n = len(x) // frame
        levels = 10 * np.log10(np.mean(x[: n * frame].reshape(n, frame) ** 2, axis=1) + _EPS) if n else np.zeros(1)
        self.floor_db = float(np.percentile(levels, 10))


def why_hallucinated(seg: Segment, levels: ChannelLevels | None, s: HallucinationSettings) -> str | None:
    """The reason this segment is not speech, or None to keep it."""
    text = seg.text.strip()
    words = _words(text)
    if not words or _TAG_ONLY.match(text):
        return "non_speech"
    if (seg.no_speech_prob or 0.0) > s.no_speech_prob and (seg.avg_logprob or 0.0) < s.logprob_with_no_speech:
        return "no_speech"
    if seg.avg_logprob is not None and seg.avg_logprob < s.min_avg_logprob:
        return "low_logprob"
    ratio = seg.compression_ratio if seg.compression_ratio is not None else compression_ratio(text)
    if ratio > s.max_compression_ratio:
        return "compression"
    if max_back_to_back(words) >= s.max_repeats:
        return "repetition"
    if levels is not None:
        level = levels.db(seg.start, max(seg.end, seg.start + 0.1))
        if level < s.quiet_dbfs:
            return "quiet"
        if " ".join(words) in STOCK_PHRASES and level - levels.floor_db < s.stock_phrase_snr_db:
            return "stock_phrase"
    return None


def drop_hallucinations(
    segments: list[Segment],
    channels: dict[int, ChannelLevels] | None = None,
    settings: HallucinationSettings | None = None,
) -> tuple[list[Segment], HallucinationReport]:
    """The segments that are speech, and what was dropped (by reason)."""
    settings = settings or HallucinationSettings()
    report = HallucinationReport()
    if not settings.enabled:
        return segments, report
    kept: list[Segment] = []
    reasons: Counter[str] = Counter()
    for seg in segments:
        why = why_hallucinated(seg, (channels or {}).get(seg.channel or 0), settings)
        if why is None:
            kept.append(seg)
            continue
        reasons[why] += 1
        report.segments_removed += 1
        report.words_removed += len(seg.words) or len(_words(seg.text))
    report.by_reason = dict(sorted(reasons.items()))
    return kept, report
