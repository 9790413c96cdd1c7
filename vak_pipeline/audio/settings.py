"""The normalized_audio stage's settings: one model, used by the library call and (derived) by Dagster."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .normalize import DEFAULT_MAX_DURATION_S

NORMALIZE_VERSION = "1"  # bump when the output wav for the same input and settings would change (code_version)


class NormalizeSettings(BaseModel):
    """How an upload's recordings are normalized to 24 kHz PCM (`normalize_upload`'s keyword arguments)."""

    model_config = ConfigDict(extra="forbid")
    workers: int = Field(default=1, ge=1, description="Processes decoding recordings; the output is the same.")
    quality: Literal["VHQ", "HQ", "MQ", "LQ", "QQ"] = Field(
        default="HQ", description="soxr resampling quality; part of each recording's cache key."
    )
    max_duration_s: float | None = Field(
        default=DEFAULT_MAX_DURATION_S,
        gt=0,
        description="Longer recordings are refused (audio_too_long), not decoded; None = no limit.",
    )
