"""The bottom layer: what every stage and rule shares (issues, the stage core). Imports nothing above it.

`storage`, `layout`, `manifest_hash` and `mirror` are core too (top-level modules, kept where they were);
see the import-linter contracts in pyproject.toml and docs/stage-core.md.
"""

from .issue import Issue, Severity

__all__ = ["Issue", "Severity"]
