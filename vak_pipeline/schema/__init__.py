"""Pydantic models of the canonical record, its redaction log and word alignments; JSON Schema export."""

from .alignment import Alignment, Word
from .export import record_json_schema, write_json_schema
from .record import (
    SCHEMA_VERSION,
    SUPPORTED_SCHEMA_VERSIONS,
    Audio,
    Diarization,
    Entity,
    Language,
    Meta,
    Tool,
    ToolCall,
    ToolResult,
    Transcription,
    Turn,
    VakRecord,
)
from .redaction_log import AudioMask, RedactionLog, RedactionSpan
from .synthesis import AudioSynthesis

__all__ = [
    "SCHEMA_VERSION", "SUPPORTED_SCHEMA_VERSIONS", "Alignment", "Audio", "AudioMask", "AudioSynthesis", "Diarization",
    "Entity", "Language", "Meta", "RedactionLog", "RedactionSpan", "Tool", "ToolCall", "ToolResult",
    "Transcription", "Turn", "VakRecord", "Word", "record_json_schema", "write_json_schema",
]
