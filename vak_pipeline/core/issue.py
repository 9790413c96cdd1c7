"""A validation finding: where it is, what rule it broke, and how to fix it. Never the PII value."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict


class Severity(str, Enum):
    ERROR = "ERROR"  # the record is rejected
    WARN = "WARN"  # the record is kept; a steward should look


class Issue(BaseModel):
    model_config = ConfigDict(frozen=True)
    code: str
    message: str
    fix: str
    severity: Severity = Severity.ERROR
    family: str = "structure"  # structure | turns | tools | entities | provenance | privacy | audio | manifest
    record_id: str | None = None
    turn_index: int | None = None
    field: str | None = None
    file: str | None = None
    line: int | None = None

    def where(self) -> str:
        parts = []
        if self.file:
            parts.append(f"{self.file}:{self.line}" if self.line else self.file)
        elif self.line:
            parts.append(f"line {self.line}")
        if self.record_id:
            parts.append(f"id={self.record_id}")
        if self.turn_index is not None:
            parts.append(f"turn={self.turn_index}")
        if self.field:
            parts.append(f"field={self.field}")
        return " ".join(parts)

    def render(self) -> str:
        return f"{self.severity.value} {self.code} [{self.where()}] {self.message} -> fix: {self.fix}"
