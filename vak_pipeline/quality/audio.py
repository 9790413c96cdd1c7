"""Table-level expectations over the inspection metrics of an upload's normalized recordings.

A steward-facing warning layer, not a gate: the bounds are configurable and a failing recording is
listed with what failed. Uses the generic `vak_pipeline.quality.gx.run_suite`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from ..audio.models import NormalizedAudio
from ..audio.normalize import TARGET_RATE
from .gx import ExpectationOutcome, ExpectationSpec, failing_rows, run_suite

if TYPE_CHECKING:
    import pandas as pd

# check name -> the expectation names it covers (one asset check per rule, for stewards)
AUDIO_CHECKS = ("audio_sample_rate", "audio_duration", "audio_silence_ratio", "audio_clipping_ratio")


class AudioBounds(BaseModel):
    sample_rate: int = TARGET_RATE
    min_duration_s: float = Field(default=1.0, ge=0)
    max_duration_s: float = Field(default=4 * 3600.0, gt=0)
    max_silence_ratio: float = Field(default=0.9, ge=0, le=1)
    max_clipping_ratio: float = Field(default=0.001, ge=0, le=1)


COLUMNS = ["conv_id", "file", "sample_rate", "channels", "duration_s", "silence_ratio", "clipping_ratio"]


def inspection_frame(rows: list[NormalizedAudio]) -> pd.DataFrame:
    """One row per normalized recording with the columns the suite checks."""
    import pandas as pd

    data: list[dict[str, Any]] = [
        {"conv_id": r.conv_id, "file": r.source_file, "sample_rate": r.sample_rate, "channels": r.channels,
         "duration_s": r.duration_s, "silence_ratio": r.inspect.silence_ratio,
         "clipping_ratio": r.inspect.clipping_ratio} for r in rows]
    return pd.DataFrame(data, columns=COLUMNS)


def audio_expectations(bounds: AudioBounds) -> list[ExpectationSpec]:
    b = bounds
    return [
        ExpectationSpec("ExpectColumnValuesToBeBetween", {"column": "sample_rate", "min_value": b.sample_rate,
                                                          "max_value": b.sample_rate}, "audio_sample_rate"),
        ExpectationSpec("ExpectColumnValuesToBeBetween", {"column": "duration_s", "min_value": b.min_duration_s,
                                                          "max_value": b.max_duration_s}, "audio_duration"),
        ExpectationSpec("ExpectColumnValuesToBeBetween", {"column": "silence_ratio", "min_value": 0.0,
                                                          "max_value": b.max_silence_ratio}, "audio_silence_ratio"),
        ExpectationSpec("ExpectColumnValuesToBeBetween", {"column": "clipping_ratio", "min_value": 0.0,
                                                          "max_value": b.max_clipping_ratio}, "audio_clipping_ratio"),
    ]


class AudioCheck(BaseModel):
    """One rule's verdict over an upload, with the recordings that broke it."""

    name: str
    passed: bool
    checked: int
    failing: list[dict[str, Any]] = Field(default_factory=list)  # conv_id, file, failed


def check_audio(rows: list[NormalizedAudio], bounds: AudioBounds | None = None) -> list[AudioCheck]:
    """Run the audio suite; one AudioCheck per rule (AUDIO_CHECKS order)."""
    df = inspection_frame(rows)
    outcomes: list[ExpectationOutcome] = run_suite(df, audio_expectations(bounds or AudioBounds()), "audio_suite")
    return [AudioCheck(name=o.name, passed=o.success, checked=len(df),
                       failing=[{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
                                for row in failing_rows(df, [o], ["conv_id", "file"])])
            for o in outcomes]
