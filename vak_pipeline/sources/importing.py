"""What the text importers share: one line's outcome, settled against the ids its file already used.

A text source line is imported in two steps. `LineImport` is what the line gives on its own (the format's
checks, then the mapping to a canonical record): a function of the line's bytes and the upload settings,
so the text import stage can key it and keep it in its ledger. `settle` then applies what depends on the
lines before it in the file (a record id used twice), which is never cached.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.issue import Issue
from ..schema.record import VakRecord
from ..schema.redaction_log import RedactionLog
from ..storage import iter_jsonl


@dataclass(frozen=True)
class ImportedRecord:
    """A canonical record plus the redaction log of the pseudonym tokens it already carries (aidb)."""

    record: VakRecord
    redaction_log: RedactionLog | None
    line: int


@dataclass(frozen=True)
class LineImport:
    """One line of a text source on its own: `pre` issues of the format's checks (`checked`: it passed them,
    so the duplicate-id check applies), then the record it maps to (or None) with the mapping's issues."""

    source_id: str | None
    checked: bool
    pre: list[Issue] = field(default_factory=list)
    imported: ImportedRecord | None = None
    post: list[Issue] = field(default_factory=list)

    def settle(self, seen: dict[str, int], line: int,
               duplicate: Callable[[str, int, int], Issue]) -> list[ImportedRecord | Issue]:
        """The line's issues and record in the order the file yields them; `seen` (id -> first line) is the
        file's state, updated here; `duplicate(id, first line, line)` is the format's duplicate-id issue."""
        out: list[ImportedRecord | Issue] = list(self.pre)
        if not self.checked:
            return out
        if self.source_id and self.source_id in seen:
            return [*out, duplicate(self.source_id, seen[self.source_id], line)]
        if self.source_id:
            seen[self.source_id] = line
        out += self.post
        if self.imported is not None:
            out.append(self.imported)
        return out


def import_file(path: Path, file: str, line: Callable[[Any, int], LineImport],
                line_error: Callable[[str | None, str, str, int | None], Issue],
                duplicate: Callable[[str, int, int], Issue]) -> Iterator[ImportedRecord | Issue]:
    """Stream one text source file without a ledger (`vak import-text`, tests): every line imported and
    settled in order; a line that is not one JSON object is `line_error`'s issue."""
    seen: dict[str, int] = {}
    for jl in iter_jsonl(path):
        if jl.error:
            yield line_error(jl.code, jl.error, file, jl.line)
            continue
        yield from line(jl.value, jl.line).settle(seen, jl.line, duplicate)
