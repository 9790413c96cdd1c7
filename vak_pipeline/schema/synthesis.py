"""What a record says when its audio was rendered by a speech synthesizer rather than recorded.

The text keeps its own provenance (meta.source, consent, redaction log); this block is the claim
about the audio alone: which engine, which voice on which channel, with which settings. Voice
consent is about a real person's voice, so a record whose audio carries this block needs none, and
its voice ids go into meta.speakers so a synthetic voice stays in one split like a real one.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class AudioSynthesis(BaseModel):
    model_config = ConfigDict(extra="forbid")
    engine: str = Field(min_length=1, description='The synthesizer, e.g. "espeak-ng" or "piper".')
    engine_version: str = Field(min_length=1)
    voices: dict[Literal["user", "agent"], str] = Field(
        description="Voice id per role (the same ids as meta.speakers)."
    )
    word_timing: Literal["engine", "estimated"] = Field(
        default="engine",
        description="engine: word times reported by the synthesizer while it spoke; "
        "estimated: spread over each utterance.",
    )
    settings: dict[str, Any] = Field(
        default_factory=dict, description="The rendering settings (turn gaps, latencies, voice pool)."
    )
    settings_hash: str = Field(min_length=1, description="Hash of engine, version and settings: the cache key part.")
