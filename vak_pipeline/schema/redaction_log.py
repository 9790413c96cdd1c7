"""The per-conversation redaction log (redactions/<conv_id>.json): the evidence behind pii_redacted."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

AudioMaskMethod = Literal["tone", "silence"]


class AudioMask(BaseModel):
    model_config = ConfigDict(extra="allow")
    start_s: float = Field(ge=0)
    end_s: float = Field(ge=0)
    method: AudioMaskMethod
    channel: int | None = None


class RedactionSpan(BaseModel):
    """One replaced value. start/end index the *redacted* text, so they point at the placeholder."""

    model_config = ConfigDict(extra="allow")
    turn: int | None = Field(default=None, description="Turn index; None for system_prompt.")
    field: str = Field(
        description="text | system_prompt | tool_call.arguments<json path> | tool_result.content<json path>"
    )
    type: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    placeholder: str
    audio: AudioMask | None = None


class RedactionLog(BaseModel):
    model_config = ConfigDict(extra="allow")
    conversation_id: str
    spans: list[RedactionSpan]
