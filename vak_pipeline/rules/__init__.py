"""Validation rules of the canonical format: per record, per manifest; each finding an `Issue`."""

from ..core.issue import Issue, Severity
from .context import ValidationContext
from .engine import ManifestSummary, RecordResult, duplicate_lines, validate_manifest, validate_record

__all__ = ["Issue", "ManifestSummary", "RecordResult", "Severity", "ValidationContext", "duplicate_lines",
           "validate_manifest", "validate_record"]
