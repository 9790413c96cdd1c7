"""The canonical conversation record (vakforge.jsonl): the one model every stage reads and writes.

Structure and types live here; the semantic rules of the format document (sorted turns, provenance
evidence, tool-call pairing, entity offsets ...) live in `vak_pipeline.rules`, each with its own code,
so a broken record gets a precise, fixable message rather than one generic schema error.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .synthesis import AudioSynthesis

SCHEMA_VERSION = "0.1"
SUPPORTED_SCHEMA_VERSIONS = frozenset({SCHEMA_VERSION})

Speaker = Literal["user", "agent", "tool"]
Condition = Literal["studio", "clean", "phone", "noisy"]
Source = Literal["real", "synthetic", "public"]
Consent = Literal["recorded_verbal", "written", "synthetic", "public_license", "none"]
SplitName = Literal["train", "validation", "test"]
ChannelRole = Literal["user", "agent"]


MAX_JSON_DEPTH = 64  # pydantic refuses to serialize past ~255 levels; real tool JSON is a handful deep


_SCALARS = (str, int, float, bool, type(None))


def json_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    """Nesting depth of a JSON-like value (iterative, stops counting just past `limit`).

    Runs on every record the validator reads, so the common types are tested by identity first.
    """
    deepest = 0
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        v, d = pop()
        t = type(v)
        if t is dict:
            items = v.values()
        elif t is list or t is tuple:
            items = v
        elif t in _SCALARS:
            continue
        elif isinstance(v, BaseModel):  # a record built from models (importers) rather than parsed JSON
            items = v.__dict__.values()
        elif isinstance(v, dict):
            items = v.values()
        elif isinstance(v, (list, tuple)):
            items = v
        else:
            continue
        if d > deepest:
            deepest = d
            if d > limit:
                return d
        d1 = d + 1
        for c in items:
            if type(c) not in _SCALARS:
                push((c, d1))
    return deepest


class _Model(BaseModel):
    """Strict by default: an unknown key is a typo far more often than a feature."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Audio(_Model):
    path: str = Field(min_length=1, description="Relative to the manifest's directory; no '..'.")
    sample_rate: int = Field(gt=0)
    channels: int = Field(ge=1)
    channel_map: dict[str, ChannelRole] | None = None
    duration_s: float = Field(ge=0)
    condition: Condition | None = None
    synthesis: AudioSynthesis | None = Field(
        default=None, description="Set when a synthesizer rendered this audio from the record's text (synth stage).")

    @property
    def synthesized(self) -> bool:
        return self.synthesis is not None


class Language(_Model):
    primary: str = Field(min_length=1, description="BCP-47, e.g. en-US, hi-Latn, hi, zh-CN.")
    mix: list[str] = Field(default_factory=list, description="Every language present in the conversation.")


class Tool(_Model):
    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ToolCall(_Model):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolResult(_Model):
    id: str = Field(min_length=1)
    content: Any = None  # any JSON value: a real tool returns lists, strings and numbers too


class Entity(_Model):
    type: str = Field(min_length=1)
    text: str
    start_char: int | None = Field(default=None, ge=0)
    end_char: int | None = Field(default=None, ge=0)
    normalized: Any = None


class Turn(_Model):
    speaker: Speaker
    start: float = Field(ge=0)
    end: float = Field(ge=0)
    text: str | None = None
    lang: str | None = None
    overlap: bool | None = None
    entities: list[Entity] | None = None
    tool_call: ToolCall | None = None
    tool_result: ToolResult | None = None

    @property
    def is_spoken(self) -> bool:
        """A turn that is speech (not a tool call or result) and so needs text and lang."""
        return self.tool_call is None and self.tool_result is None


class Transcription(_Model):
    model_config = ConfigDict(extra="allow")
    engine: str
    verified_by_human: bool = False


class Diarization(_Model):
    model_config = ConfigDict(extra="allow")
    engine: str
    confidence: float | None = Field(default=None, ge=0, le=1)


class Meta(_Model):
    """Provenance. Extra keys are allowed: importers keep source metadata (aidb outcome, upload, ...)."""

    model_config = ConfigDict(extra="allow")
    source: Source
    consent: Consent
    consent_ref: str | None = None
    voice_consent_ref: str | None = None
    license: str | None = None
    pii_redacted: bool = False
    redaction_log: str | None = None
    transcription: Transcription | None = None
    diarization: Diarization | None = None
    split: SplitName | None = None
    created: str | None = None
    speakers: dict[str, str] | None = Field(
        default=None, description='Known speaker ids by role ({"agent": "priya", "user": "cust-17"}); splits use them.'
    )
    allow_unconsented: bool | None = Field(
        default=None, description="Explicit override that lets consent: none through validation."
    )
    skip_redaction: bool | None = Field(
        default=None, description="Set when the run used skip_redaction; such rows never reach exports."
    )


class VakRecord(_Model):
    id: str = Field(min_length=1)
    schema_version: str
    audio: Audio | None = None
    locale: str = Field(min_length=1)
    language: Language
    domain: str | None = None
    scenario: str | None = None
    system_prompt: str | None = None
    tools: list[Tool] = Field(default_factory=list)
    turns: list[Turn]
    meta: Meta

    @model_validator(mode="before")
    @classmethod
    def _bounded_depth(cls, data: Any) -> Any:
        """Refuse absurdly nested JSON (tool arguments, metadata): it could be read but never written back."""
        if json_depth(data) > MAX_JSON_DEPTH:
            raise ValueError(f"the record is nested deeper than {MAX_JSON_DEPTH} levels (tool JSON or metadata); "
                             "flatten the nested value")
        return data

    def dump(self) -> dict[str, Any]:
        """The JSON object written to vakforge.jsonl (unset optional fields left out)."""
        return self.model_dump(mode="json", exclude_none=True)
