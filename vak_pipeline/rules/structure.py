"""Structural rules: schema_version, and the pydantic model's own errors turned into located issues."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..schema.record import SUPPORTED_SCHEMA_VERSIONS
from .context import RecordIssues

# pydantic error type -> (our code, how to fix)
_PYDANTIC_CODES: dict[str, tuple[str, str]] = {
    "missing": ("field_missing", "add the required field"),
    "extra_forbidden": ("field_unknown", "remove the field or fix its spelling (see vakforge.schema.json)"),
    "literal_error": ("value_not_allowed", "use one of the allowed values named in the message"),
    "enum": ("value_not_allowed", "use one of the allowed values named in the message"),
    "string_too_short": ("value_empty", "give the field a non-empty value"),
    "string_too_long": ("value_too_long", "shorten the value"),
    "string_pattern_mismatch": ("value_pattern", "use only the characters the message allows"),
    "greater_than": ("value_out_of_range", "use a value inside the range named in the message"),
    "greater_than_equal": ("value_out_of_range", "use a value inside the range named in the message"),
    "less_than": ("value_out_of_range", "use a value inside the range named in the message"),
    "less_than_equal": ("value_out_of_range", "use a value inside the range named in the message"),
}


def check_schema_version(obj: dict[str, Any], out: RecordIssues) -> bool:
    """False when the version is missing or unknown: the rest of the record cannot be trusted."""
    version = obj.get("schema_version")
    if version is None:
        out.add("schema_version_missing", "record has no schema_version",
                f'add "schema_version": "{max(SUPPORTED_SCHEMA_VERSIONS)}"', family="structure",
                field="schema_version")
        return False
    if not isinstance(version, str) or version not in SUPPORTED_SCHEMA_VERSIONS:
        out.add("schema_version_unknown",
                f"schema_version {str(version)[:20]!r} is not one this validator knows "
                f"({', '.join(sorted(SUPPORTED_SCHEMA_VERSIONS))})",
                "convert the record to a supported version, or upgrade vak_pipeline", family="structure",
                field="schema_version")
        return False
    return True


def field_path(loc: tuple[Any, ...]) -> tuple[str, int | None]:
    """('turns', 3, 'tool_call', 'id') -> ('turns[3].tool_call.id', 3)."""
    parts: list[str] = []
    turn = None
    for i, p in enumerate(loc):
        if isinstance(p, int):
            parts[-1:] = [f"{parts[-1]}[{p}]"] if parts else [f"[{p}]"]
            if i == 1 and loc[0] == "turns":
                turn = p
        else:
            parts.append(str(p))
    return ".".join(parts), turn


def pydantic_issues(err: ValidationError, out: RecordIssues) -> None:
    for e in err.errors(include_url=False, include_input=False):
        code, fix = _PYDANTIC_CODES.get(e["type"], ("field_type", "give the field the type the schema expects"))
        field, turn = field_path(tuple(e["loc"]))
        family = "turns" if turn is not None else "structure"
        out.add(code, f"{field or 'record'}: {e['msg']}", fix, family=family, turn=turn, field=field or None)
