"""Synth renders only text conversations that already pass their own rules.

Rendering re-times every turn (start and end come from the synthesized speech, in list order), so it
would erase a real error of the uploaded text: turns out of order, an end before its start. Validation
would then publish a conversation the customer's file got wrong, spoken in the wrong order. So each
text-only record is first checked by the per-record rules validation runs (`rules.engine.validate_record`),
less what synth does not change: the audio file checks (there is no audio yet), the PII re-check (the text
is not touched) and the unconsented override (validation decides that with its own setting). A record
that breaks a rule passes through unrendered, and validation rejects it with the rule's own issue, naming
the uploaded file, line, turn and field.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..rules.context import ValidationContext
from ..rules.engine import validate_record
from ..rules.issue import Issue, Severity


def gate_context(root: Path, file: str) -> ValidationContext:
    """One context per upload (it caches compiled tool schemas)."""
    return ValidationContext(base_dir=root, check_audio=False, check_pii=False, allow_unconsented=True, file=file)


def rule_errors(raw: bytes, ctx: ValidationContext, line: int | None = None) -> list[Issue]:
    """The ERROR issues validation would raise on this record as it stands (before synth re-times it)."""
    try:
        obj = json.loads(raw)
    except ValueError:
        return []  # not a record synth would render either
    if not isinstance(obj, dict):
        return []
    return [i for i in validate_record(obj, ctx, line).issues if i.severity is Severity.ERROR]


__all__ = ["gate_context", "rule_errors"]
