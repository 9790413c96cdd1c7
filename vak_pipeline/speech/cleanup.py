"""What is kept out of the turns after ASR: words invented on silence, and the other channel's bleed.

One call site in the speech stage (`clean_segments`), run on every recording after ASR and before
speaker attribution:
1. hallucinated segments are dropped per channel (`speech.hallucination`);
2. on a two-channel call, cross-talk is measured (`audio.crosstalk`, or taken from the normalized
   audio's inspection) and words one channel only heard from the other are dropped (`speech.bleed`).
The counts go to the transcript (`removed`), the record's `meta.removed` and the speech report.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..audio.crosstalk import Crosstalk, measure_crosstalk
from .bleed import BleedSettings, remove_bleed
from .hallucination import ChannelLevels, HallucinationSettings, drop_hallucinations
from .models import Segment


class CleanupSettings(BaseModel):
    """Hallucination and bleed filters of the speech stage. Part of the transcript cache key."""

    model_config = ConfigDict(extra="forbid")
    hallucination: HallucinationSettings = Field(default_factory=HallucinationSettings)
    bleed: BleedSettings = Field(default_factory=BleedSettings)

    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps(self.model_dump(), sort_keys=True).encode()).hexdigest()[:16]


@dataclass
class Cleaned:
    segments: list[Segment]
    crosstalk: Crosstalk | None = None
    removed: dict[str, int] = field(default_factory=dict)
    hallucination_reasons: dict[str, int] = field(default_factory=dict)
    asr_input: list[Any] = field(default_factory=list)  # asr.ChannelInput per channel: seconds decoded / skipped


def clean_segments(
    segments: list[Segment],
    audio: np.ndarray,
    sample_rate: int,
    crosstalk: Crosstalk | None = None,
    settings: CleanupSettings | None = None,
    levels: dict[int, ChannelLevels] | None = None,
) -> Cleaned:
    """Segments (all channels of one recording) without hallucinations and bleed; see module doc.

    `audio` is (frames, channels) at `sample_rate`, the signal the segments were transcribed from; `levels`, its
    channels' levels when the caller has them (the speech stage builds them once per recording, for the gate too).
    """
    settings = settings or CleanupSettings()
    audio = audio if audio.ndim == 2 else audio[:, None]
    levels = levels or {c: ChannelLevels(audio[:, c], sample_rate) for c in range(audio.shape[1])}
    kept, hall = drop_hallucinations(segments, levels, settings.hallucination)
    removed = {"hallucinated_segments": hall.segments_removed, "hallucinated_words": hall.words_removed}
    out = Cleaned(segments=kept, removed=removed, hallucination_reasons=hall.by_reason)
    if audio.shape[1] == 2:
        out.crosstalk = crosstalk or measure_crosstalk(audio, sample_rate)
        out.segments, bleed = remove_bleed(kept, audio, sample_rate, out.crosstalk, settings.bleed, levels)
        removed |= {
            "bleed_words": bleed.words_removed,
            "bleed_segments": bleed.segments_removed,
            "bleed_words_text_matched": bleed.text_matched,
        }
    return out


def cleanup_counts(meta: Any) -> dict[str, int]:
    """What one record's meta says about clean-up and speakers, as counts a steward report can add up."""
    extra = getattr(meta, "model_extra", None) or {}
    out: dict[str, int] = {}
    for key, value in (extra.get("removed") or {}).items():
        if isinstance(value, int) and value:
            out[key.replace("_", " ")] = value
    leaks = (extra.get("crosstalk") or {}).get("leaks") or []
    if any(isinstance(x, dict) and x.get("level_db") is not None for x in leaks):
        out["calls with cross-talk"] = 1
    diar = getattr(meta, "diarization", None)
    if diar is not None and diar.engine != "channels":
        out[f"mono calls diarized by {diar.engine}"] = 1
    return out
