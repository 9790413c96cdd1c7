"""The few facts of a manifest line that whole-manifest passes need, kept by the line's exact bytes (issue 34).

Export shard planning (recipes.incremental) and the funnel (report.funnel) read every manifest line for its
id, upload, origin, files and kind; parsing 10,000 lines per export was most of an incremental publish's
export time. A line's facts are a function of its bytes alone (and FACTS_VERSION), so they are kept in the
publish's keyed store (`core.keyed_store`, table `line_facts`): after a delivery only the new lines are parsed.
Split lookups and file digests are not facts of a line: the callers look them up every time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..core.keyed_store import KeyedStore, LineChunks
from ..release import record_file_rels
from ..storage import Closing
from .origin import record_kind, record_origin, synthesized_audio

FACTS_VERSION = "1"  # bump when a field of LineFacts is added or computed differently


@dataclass(frozen=True)
class LineFacts:
    """What one line holds, as its passes read it; `record` False: the line is not a JSON object."""

    record: bool = False
    id: Any = None  # the id as the line has it (not necessarily a string)
    upload: str | None = None  # rules.origin.record_origin
    file: str | None = None
    line: int | None = None
    rels: list[str] = field(default_factory=list)  # release.record_file_rels
    synthesis: bool = False  # audio.synthesis is set and not empty (synth's sidecar is among its files)
    synthesized: bool = False  # rules.origin.synthesized_audio
    audio: bool = False  # rules.origin.record_kind == "audio"
    hours: float | None = 0.0  # audio.duration_s in hours (0 without audio); None: not a number

    @classmethod
    def of(cls, raw: bytes) -> LineFacts:
        """The facts of one line, parsed (what a miss costs)."""
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return cls()
        if not isinstance(value, dict):
            return cls()
        origin = record_origin(value)
        audio = value.get("audio")
        try:
            hours = float(audio.get("duration_s") or 0.0) / 3600 if isinstance(audio, dict) else 0.0
        except (TypeError, ValueError):
            hours = None
        return cls(True, value.get("id"), origin.upload, origin.file, origin.line, record_file_rels(value),
                   isinstance(audio, dict) and bool(audio.get("synthesis")), synthesized_audio(value),
                   record_kind(value) == "audio", hours)


class LineFactsStore(Closing):
    """`LineFactsStore.open(layout.line_facts)`; `iter_facts(lines)`; `close` (or use as a context manager).
    Kept per chunk of lines (`core.keyed_store.LineChunks`)."""

    def __init__(self, store: KeyedStore) -> None:
        self.store = store
        self.chunks = LineChunks(store, FACTS_VERSION, _row)

    @property
    def parsed(self) -> int:
        """Lines whose facts were computed in this pass (those of new or changed chunks)."""
        return self.chunks.computed

    @classmethod
    def open(cls, path: Path) -> LineFactsStore:
        return cls(KeyedStore.open(path, "line_facts"))

    def iter_facts(self, lines: Iterable[bytes]) -> Iterator[tuple[bytes, LineFacts]]:
        """(line, its facts) for each line as read from the file (surrounding whitespace does not matter)."""
        for raw, row in self.chunks.values(lines):
            yield raw, LineFacts(*row)

    def close(self) -> None:
        self.store.close()


_FIELDS = [f.name for f in fields(LineFacts)]


def _row(raw: bytes) -> list[Any]:
    """A line's facts as stored: LineFacts' fields in order."""
    facts = LineFacts.of(raw)
    return [getattr(facts, n) for n in _FIELDS]
