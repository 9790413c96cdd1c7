"""What a validation run needs to know beyond the record: where files live and which checks to run."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.file_digests import FileDigests
from ..core.issue import Issue, Severity


@dataclass
class ValidationContext:
    base_dir: Path
    check_audio: bool = True
    check_pii: bool = True
    allow_unconsented: bool = False  # the --allow-unconsented override for consent: none
    names: tuple[str, ...] = ()  # known person names the PII re-check must also catch
    file: str | None = None
    digests: FileDigests | None = None  # audio checks remembered by content across publishes (None: not kept)
    _schema_cache: dict[str, Any] = field(default_factory=dict, repr=False)
    _audio_cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def validator_for(self, parameters: dict[str, Any]) -> tuple[Any, str | None]:
        """A compiled jsonschema validator for a tool's parameters (cached), or the schema error."""
        key = json.dumps(parameters, sort_keys=True, default=str)
        hit = self._schema_cache.get(key)
        if hit is None:
            import jsonschema

            cls = jsonschema.validators.validator_for(parameters, default=jsonschema.Draft202012Validator)
            try:
                cls.check_schema(parameters)
                hit = (cls(parameters, format_checker=cls.FORMAT_CHECKER), None)
            except jsonschema.SchemaError as exc:
                hit = (None, f"{exc.message} (at {'/'.join(str(p) for p in exc.path) or 'root'})")
            self._schema_cache[key] = hit
        return hit


class RecordIssues:
    """Collects issues for one record, stamping each with the record id, file and line."""

    def __init__(self, record_id: str | None, ctx: ValidationContext, line: int | None) -> None:
        self.record_id = record_id
        self.ctx = ctx
        self.line = line
        self.items: list[Issue] = []

    def add(self, code: str, message: str, fix: str, *, family: str, turn: int | None = None,
            field: str | None = None, severity: Severity = Severity.ERROR) -> None:
        self.items.append(Issue(code=code, message=message, fix=fix, severity=severity, family=family,
                                record_id=self.record_id, turn_index=turn, field=field,
                                file=self.ctx.file, line=self.line))
