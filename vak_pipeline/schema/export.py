"""JSON Schema generated from the models (never hand-written), for external validators."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..storage import atomic_write_text
from .record import SCHEMA_VERSION, VakRecord


def record_json_schema() -> dict[str, Any]:
    schema = VakRecord.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://vak-pipeline.dev/schema/vakforge-{SCHEMA_VERSION}.json"
    schema["title"] = f"vakforge.jsonl record (schema_version {SCHEMA_VERSION})"
    return schema


def write_json_schema(path: Path) -> Path:
    atomic_write_text(path, json.dumps(record_json_schema(), indent=2, sort_keys=True) + "\n")
    return path
