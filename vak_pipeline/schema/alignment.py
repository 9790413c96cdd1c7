"""Word-level timings kept beside a record (alignments/<conv_id>.json).

The canonical record carries turns, not words; exports (Moshi alignments) and audio redaction need
words, so the speech stage writes them here and the redaction stage rewrites them with placeholders.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .record import Speaker


class Word(BaseModel):
    model_config = ConfigDict(extra="forbid")
    word: str
    start: float = Field(ge=0)
    end: float = Field(ge=0)
    speaker: Speaker
    turn: int | None = None
    channel: int | None = None
    probability: float | None = None
    approximate: bool | None = Field(default=None, exclude_if=lambda v: v is None,
                                     description="True when a reviewer's corrected text was spread over the turn's "
                                                 "time: the word's timing is an estimate, not the ASR's.")


class Alignment(BaseModel):
    model_config = ConfigDict(extra="forbid")
    conversation_id: str
    words: list[Word]
