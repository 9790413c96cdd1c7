"""What audio normalization produces: the inspection of a recording and the row of work/<upload>/audio.jsonl.

`NormalizedAudio` is the contract with the speech stage: one row per usable recording, pointing at
`work/<upload>/audio/<conv_id>.wav` (24 kHz, 16-bit PCM, channels kept; private until redacted)
and carrying the resolved descriptor settings.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..uploads.descriptor import RecordingSettings
from .crosstalk import Crosstalk


class InspectReport(BaseModel):
    """Measured facts about one audio stream. It reports; it never guesses `condition`.

    Lists are per channel (index = channel). Ratios are fractions in [0, 1] over 30 ms frames (silence,
    speech) or over samples (clipping).
    """

    model_config = ConfigDict(extra="forbid")
    file: str = Field(description="The file inspected (relative to the upload, or as given on the CLI).")
    sample_rate: int
    channels: int
    frames: int
    duration_s: float
    source_sample_rate: int | None = Field(default=None, description="Rate of the original, when resampled.")
    source_channels: int | None = Field(default=None, description="Channels of the original, when some were dropped.")
    source_format: str | None = Field(default=None, description="Container/codec of the original, e.g. WAV/PCM_16.")
    rms_dbfs: list[float] = Field(default_factory=list, description="Per channel RMS level in dBFS.")
    peak_dbfs: list[float] = Field(default_factory=list, description="Per channel absolute peak in dBFS.")
    silence_ratio: float = Field(ge=0, le=1, description="Frames where every channel is below the silence floor.")
    clipping_ratio: float = Field(ge=0, le=1, description="Samples at or beyond full scale, all channels.")
    speech_ratio: list[float] = Field(default_factory=list, description="Per channel share of frames with speech "
                                      "by a simple energy VAD.")
    crosstalk: Crosstalk | None = Field(default=None, description="Two channels: how much of each is the other "
                                        "leaking in (level dB, lag ms), by windowed cross-correlation.")
    notes: list[str] = Field(default_factory=list, description="Observations worth a steward's look (never errors).")


class RecordingSource(BaseModel):
    """Which raw recording a work line is about: every stage's line of a recording starts with these."""

    model_config = ConfigDict(extra="forbid")
    conv_id: str
    upload: str
    source_file: str = Field(description="Path of the raw file relative to raw/<upload>/ (private: may carry PII).")
    public_file: str = Field("", description="source_file with any PII replaced (uploads.ids.public_file): the "
                             "name records, reports and logs show.")
    source_sha256: str

    @property
    def shown_file(self) -> str:
        """The file name that may be published or logged."""
        return self.public_file or self.source_file


class NormalizedAudio(RecordingSource):
    """One recording of an upload after normalization: a line of work/<upload>/audio.jsonl."""

    settings_hash: str = Field(description="Hash of everything that shapes the output wav; equal hash + equal "
                               "source sha256 means the wav need not be rebuilt.")
    path: str = Field(description="Relative to the data root: work/<upload>/audio/<conv_id>.wav (unredacted, private).")
    sample_rate: int
    channels: int
    duration_s: float
    kept_channels: list[int] | None = Field(default=None, description="Source channels kept, in output order, "
                                            "when the source had more than two.")
    settings: RecordingSettings
    inspect: InspectReport
