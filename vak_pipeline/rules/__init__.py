"""Validation rules of the canonical format: per record, per manifest; each finding an `Issue`."""

from .context import ValidationContext
from .engine import ManifestSummary, RecordResult, duplicate_lines, validate_manifest, validate_record
from .issue import Issue, Severity

__all__ = ["Issue", "ManifestSummary", "RecordResult", "Severity", "ValidationContext", "duplicate_lines",
           "validate_manifest", "validate_record"]
