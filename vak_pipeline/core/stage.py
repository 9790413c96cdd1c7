"""The one stage core: how every per-upload stage keys, records, reports and fans out its items.

A stage (normalized_audio, transcripts, redacted_manifest, a text import, synth ...) works on items (a
recording, a conversation, a record). For each item it declares

- a **key**: `item_key(version, inputs..., settings...)`, a hash of everything that shapes the item's
  output: the input bytes (or their sha256), the settings, and the stage's `version` (bumped when the
  code would write something else for the same inputs; it is also the Dagster asset's `code_version`);
- how to **process** it: a plain function, run here or in worker processes by `ordered_map`.

The stage's **ledger** (`Ledger`, one JSONL file per stage and upload, `DataLayout.stage_ledger`) records
per item its key and what it produced (`outputs`) or why it failed (`failure`, an Issue). On the next run
an item whose key is unchanged is taken from the ledger (a failure is reported again, not retried), so a
second run costs what the changed items cost. Every stage returns a `StageResult` (or a subclass with its
own counters) and writes it with `write_report`, so `vak run` and the asset metadata read every stage the
same way. See docs/stage-core.md.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field, ValidationError

from ..storage import Closing, JsonlWriter, atomic_write_json, dumps_line, iter_jsonl
from .issue import Issue

T = TypeVar("T")
R = TypeVar("R")


def item_key(version: str, *parts: Any) -> str:
    """The key of one item: its stage's version plus everything that shapes its output (JSON-able parts)."""
    payload = json.dumps([version, *parts], sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


# ------------------------------------------------------------------------------------------------ ledger
class LedgerEntry(BaseModel):
    """What one item produced under one key (`outputs`), or why it produced nothing (`failure`).

    `issues` holds, in order, every issue the item reported when there is more than its failure (warnings it
    was still produced with, several errors); a reused entry reports them again (`reported`).
    """

    item: str
    key: str
    outputs: dict[str, Any] = Field(default_factory=dict)
    failure: Issue | None = None
    issues: list[Issue] = Field(default_factory=list)

    def reported(self) -> list[Issue]:
        """What the item reports each run it is reused: its issues, else its failure."""
        return list(self.issues) if self.issues else ([self.failure] if self.failure is not None else [])


class Ledger:
    """One stage's ledger for one upload: item -> LedgerEntry, read at the start of a run, written at its end.

    `reuse(item, key)` answers the previous entry when the key is unchanged; `record` collects this run's
    entries (items no longer present are dropped when the ledger is saved, so it never grows stale).
    """

    def __init__(self, path: Path, previous: dict[str, LedgerEntry] | None = None) -> None:
        self.path = path
        self.previous = previous or {}
        self.entries: dict[str, LedgerEntry] = {}

    @classmethod
    def load(cls, path: Path) -> Ledger:
        previous: dict[str, LedgerEntry] = {}
        if path.is_file():
            for line in iter_jsonl(path):
                if line.value is None:
                    continue
                try:
                    entry = LedgerEntry.model_validate(line.value)
                except ValidationError:
                    continue  # a damaged line only costs redoing its item
                previous[entry.item] = entry
        return cls(path, previous)

    def reuse(self, item: str, key: str) -> LedgerEntry | None:
        entry = self.previous.get(item)
        return entry if entry is not None and entry.key == key else None

    def record(self, entry: LedgerEntry) -> LedgerEntry:
        self.entries[entry.item] = entry
        return entry

    def save(self) -> None:
        """Write this run's entries (in the order recorded), atomically."""
        with JsonlWriter(self.path) as w:
            for entry in self.entries.values():
                data = entry.model_dump(mode="json", exclude_none=True)
                if not data["issues"]:
                    del data["issues"]
                w.write(data)


# ------------------------------------------------------------------------------ lines of a JSONL output
class PlacedWriter(JsonlWriter):
    """A JSONL output that knows where each line landed (`place`), so a ledger can point at it next run."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.offset = 0  # bytes written so far: where the next line starts

    def write(self, obj: Any) -> None:
        line = obj if isinstance(obj, str) else dumps_line(obj)
        super().write(line)
        self.offset += len(line.encode("utf-8"))

    def place(self, line: str) -> dict[str, Any]:
        """Write one line (ending in a newline); return its place: byte offset, length and a hash of it."""
        data = line.encode("utf-8")
        place = {"at": self.offset, "len": len(data), "sha": hashlib.sha256(data).hexdigest()[:16]}
        self.write(line)
        return place


class PreviousLines(Closing):
    """The previous version of a stage's JSONL output, read at the places its ledger recorded.

    Opened before the stage rewrites the file (`PlacedWriter` replaces it only when closed), so it reads the
    old lines while the new ones are written. A place that does not hold the line it recorded (the file was
    changed or is gone) answers None: the item is processed again.
    """

    def __init__(self, path: Path) -> None:
        try:
            self._fh: Any = open(path, "rb")  # noqa: SIM115 - closed by close() / the with block
        except OSError:
            self._fh = None

    def read(self, place: Any) -> str | None:
        if self._fh is None or not isinstance(place, dict):
            return None
        try:
            self._fh.seek(int(place["at"]))
            data = self._fh.read(int(place["len"]))
            if hashlib.sha256(data).hexdigest()[:16] != place["sha"]:
                return None
            return data.decode("utf-8")
        except (KeyError, TypeError, ValueError, OSError):
            return None

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None



# ------------------------------------------------------------------------------------ result and report
class StageResult(BaseModel):
    """What one run of a stage did for one upload. Stages subclass it to add their own counters."""

    upload: str = ""
    stage: str = ""
    issues: list[Issue] = Field(default_factory=list)

    def totals(self) -> dict[str, Any]:
        """Every numeric field, for the report file and the asset metadata."""
        return {k: v for k, v in self.model_dump().items() if isinstance(v, int | float) and not isinstance(v, bool)}


def write_report(path: Path, result: StageResult, section: str | None = None, **extra: Any) -> None:
    """The one report writer: `{"upload", "stage", "counts", "issues", **extra}` at `path`, atomically.

    With `section`, the report is one section of a file shared by several stages (speech_report.json):
    the other sections are kept. `cli.upload_problems` reads every `*report.json` of an upload.
    """
    body: dict[str, Any] = {
        "upload": result.upload,
        "stage": result.stage,
        "counts": result.totals(),
        "issues": [i.model_dump(mode="json", exclude_none=True) for i in result.issues],
        **extra,
    }
    if section is None:
        atomic_write_json(path, body)
        return
    report: dict[str, Any] = {"upload": result.upload}
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(old, dict):
            report.update(old)
    except (OSError, ValueError):
        pass
    body.pop("upload")
    report[section] = body
    atomic_write_json(path, report)


# --------------------------------------------------------------------------------- ordered parallel map
@dataclass(frozen=True)
class Done(Generic[T]):
    """An item whose result is already known (reused from a ledger): passed through in order, not computed."""

    value: T


def ordered_map(
    fn: Callable[[list[Any]], list[R]], items: Iterable[Any], workers: int = 1, batch: int = 1, window: int = 2
) -> Iterator[R | Any]:
    """Results of `fn` over `items`, in input order, computed here (workers <= 1) or in a spawn process pool.

    `fn` takes a list (a batch of up to `batch` items) and returns one result per item; it must be a
    module-level function (it is pickled to the workers). An item wrapped in `Done` is not computed: its
    value comes out at its place. Lazy and bounded: at most `window` batches per worker are in flight, so
    memory does not grow with the number of items. The output is identical for any `workers`.
    """
    if workers <= 1:
        todo: list[Any] = []
        for item in items:
            if isinstance(item, Done):
                if todo:
                    yield from fn(todo)
                    todo = []
                yield item.value
                continue
            todo.append(item)
            if len(todo) >= batch:
                yield from fn(todo)
                todo = []
        if todo:
            yield from fn(todo)
        return

    pending: deque[Future | Done] = deque()
    todo = []
    limit = max(1, window * workers)  # batches in flight
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:

        def pop() -> list[Any]:
            head = pending.popleft()
            return [head.value] if isinstance(head, Done) else head.result()

        def ready() -> Iterator[Any]:
            while pending and (isinstance(pending[0], Done) or pending[0].done()):
                yield from pop()

        for item in items:
            if isinstance(item, Done):
                if todo:
                    pending.append(pool.submit(fn, todo))
                    todo = []
                pending.append(item)
            else:
                todo.append(item)
                if len(todo) >= batch:
                    pending.append(pool.submit(fn, todo))
                    todo = []
            yield from ready()
            # bounded: wait for the oldest batch while too many are in flight or queued behind it
            while sum(isinstance(p, Future) for p in pending) > limit or len(pending) > 64 * limit * batch:
                yield from pop()
        if todo:
            pending.append(pool.submit(fn, todo))
        while pending:
            yield from pop()
