"""What the speech stage produces before turns exist: timed words and segments per speaker.

A line of work/<upload>/transcripts.jsonl is one `ConversationTranscript`; `tagged_turns` reads it back
and builds the canonical record. Keeping this intermediate lets tagging (turn gaps, LID) be re-run
without re-running ASR, which is the slow part.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..audio.crosstalk import Crosstalk
from ..audio.models import RecordingSource
from ..schema.record import Diarization, Speaker

_NO_SPACE_BEFORE = tuple(".,!?;:%)]}'-") + ("n't",)


def join_words(words: list[str]) -> str:
    """Text from Whisper word tokens: no space before tokens that continue the previous one ('-543', '.0', ',')."""
    out = ""
    for w in words:
        w = w.strip()
        if not w:
            continue
        out += w if (not out or w.startswith(_NO_SPACE_BEFORE)) else " " + w
    return out


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WordTiming(_Model):
    word: str
    start: float = Field(ge=0)
    end: float = Field(ge=0)
    probability: float | None = None


class Segment(_Model):
    """One ASR segment of one channel; `speaker` is set once attribution (channels or diarization) ran."""

    start: float = Field(ge=0)
    end: float = Field(ge=0)
    text: str
    words: list[WordTiming] = Field(default_factory=list)
    channel: int | None = None
    speaker: Speaker | None = None
    avg_logprob: float | None = None
    no_speech_prob: float | None = None
    compression_ratio: float | None = None
    language: str | None = None
    temperature: float | None = Field(default=None, description="Decoding temperature of the segment's window: "
                                      "0 = beam search, > 0 = Whisper's sampled fallback (hard audio).")


class SpeakerSegment(_Model):
    """A span of a diarization output: who (diarizer label) spoke when."""

    label: str
    start: float = Field(ge=0)
    end: float = Field(ge=0)


class ConversationTranscript(RecordingSource):
    """ASR result of one recording: a line of work/<upload>/transcripts.jsonl."""

    audio_path: str = Field(description="Normalized audio, relative to the data root.")
    cache_key: str = Field(description="The recording's key in the transcripts ledger (audio sha, ASR/diarization/"
                                       "clean-up settings, stage version); unchanged key = not transcribed again.")
    engine: str = Field(description="ASR engine, e.g. faster-whisper-tiny.en.")
    attribution: Literal["channels", "diarization"]
    diarization: Diarization
    speaker_labels: dict[str, Speaker] = Field(
        default_factory=dict, description="Diarizer label -> role (mono only), by the documented agent rule.")
    segments: list[Segment]
    duration_s: float
    asr_seconds: float = Field(default=0.0, description="Wall time spent in ASR for this recording.")
    crosstalk: Crosstalk | None = Field(default=None, description="Leak of each channel into the other (stereo).")
    removed: dict[str, int] | None = Field(default=None, description="Words/segments kept out of the turns: "
                                           "bleed_words, bleed_segments, bleed_seconds_skipped (not decoded), "
                                           "hallucinated_segments, hallucinated_words.")
