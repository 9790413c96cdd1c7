"""Moved to `vak_pipeline.core.issue` (every stage reports through it, so it sits below them all)."""

from ..core.issue import Issue, Severity

__all__ = ["Issue", "Severity"]
