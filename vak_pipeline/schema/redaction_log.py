"""The per-conversation redaction log (redactions/<conv_id>.json): the evidence behind pii_redacted."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

AudioMaskMethod = Literal["tone", "silence"]


class _LogEntry(BaseModel):
    """Entries keep fields they do not know: a log written by a newer version still reads."""

    model_config = ConfigDict(extra="allow")


class AudioMask(_LogEntry):
    """Where the audio of a replaced value was masked, in seconds of the recording."""

    start_s: float = Field(ge=0)
    end_s: float = Field(ge=0)
    method: AudioMaskMethod
    channel: int | None = Field(default=None, description="The masked channel; None = every channel (mono).")


class RedactionSpan(_LogEntry):
    """One replaced value. start/end index the *redacted* text, so they point at the placeholder."""

    turn: int | None = Field(default=None, description="Turn index; None for system_prompt.")
    field: str = Field(
        description="text | system_prompt | tool_call.arguments<json path> | tool_result.content<json path>"
    )
    type: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    placeholder: str
    audio: AudioMask | None = None


class RedactionLog(_LogEntry):
    conversation_id: str
    spans: list[RedactionSpan]
