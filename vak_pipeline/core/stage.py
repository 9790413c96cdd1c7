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
import itertools
import json
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from ..storage import Closing, JsonlWriter, atomic_write_json, dumps_line
from .issue import Issue

T = TypeVar("T")
R = TypeVar("R")


_KEY_JSON = json.JSONEncoder(sort_keys=True, default=str, separators=(",", ":"))  # made once, not per key


def item_key(version: str, *parts: Any) -> str:
    """The key of one item: its stage's version plus everything that shapes its output (JSON-able parts)."""
    return hashlib.sha256(_KEY_JSON.encode([version, *parts]).encode()).hexdigest()[:24]


SLOT: Any = object()  # a part of a KeyTemplate given per item


def _key_part(value: Any) -> str:
    """One part as `item_key` encodes it; a str or an int (a hash, a line number) without an encoder."""
    if type(value) is str:
        return encode_basestring_ascii(value)
    if type(value) is int:
        return int.__repr__(value)
    return _KEY_JSON.encode(value)


class KeyTemplate:
    """`item_key` for a run whose items share most parts: those are encoded once, the `SLOT`s per item.

    `KeyTemplate(v, "a", SLOT, settings)(x) == item_key(v, "a", x, settings)`: the same key, so a stage
    can switch without invalidating its ledgers. Why: a stage keys every line of an upload, and encoding
    its settings per line cost more than the line's own hash.
    """

    def __init__(self, version: str, *parts: Any) -> None:
        # the JSON list as text between the slots: [fixed, None (a slot), fixed, ...]
        self._pieces: list[str | None] = []
        text = "["
        for i, part in enumerate((version, *parts)):
            text += "," if i else ""
            if part is SLOT:
                self._pieces += [text, None]
                text = ""
            else:
                text += _KEY_JSON.encode(part)
        self._pieces.append(text + "]")

    def __call__(self, *values: Any) -> str:
        slots = iter(values)
        body = "".join(p if p is not None else _key_part(next(slots)) for p in self._pieces)
        return hashlib.sha256(body.encode()).hexdigest()[:24]


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

    def line(self) -> str:
        """Its ledger line: `model_dump(mode="json", exclude_none=True)` without empty `issues`, as JSONL.

        Encoded straight from `outputs` when that is plain JSON (what every stage records): the same bytes,
        without a pydantic round trip per item; anything else (a set, a path, NaN) goes through the dump.
        """
        data: dict[str, Any] = {"item": self.item, "key": self.key, "outputs": self.outputs}
        if self.failure is not None:
            data["failure"] = self.failure.model_dump(mode="json", exclude_none=True)
        if self.issues:
            data["issues"] = [i.model_dump(mode="json", exclude_none=True) for i in self.issues]
        try:
            return _ENTRY_JSON.encode(data) + "\n"
        except (TypeError, ValueError):
            data = self.model_dump(mode="json", exclude_none=True)
            if not data["issues"]:
                del data["issues"]
            return dumps_line(data)


# dumps_line's encoding, refusing what pydantic's json mode would write otherwise (NaN, infinities, sets...)
_ENTRY_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class PreviousEntries(Mapping[str, LedgerEntry]):
    """A stage's ledger as the last run left it: item -> LedgerEntry, read from the file when asked for.

    Loading keeps only each item's key and the place of its line, so memory holds no entries and an item
    whose key changed is never parsed again. The file stays open until `close`, so the entries read are
    the loaded ones even after the new ledger replaced the file. A line that is not an entry (damaged, no
    item or key) is left out; one whose entry does not validate reads as missing (`get` answers None):
    either only costs redoing its item.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._index: dict[str, tuple[str, int, int]] = {}  # item -> (key, offset, length)
        self._fh: Any = None
        try:
            self._fh = open(path, "rb")  # noqa: SIM115 - kept for the reads, closed by close()
        except OSError:
            return
        offset = 0
        for raw in self._fh:
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                value = None
            if isinstance(value, dict):
                item, key = value.get("item"), value.get("key")
                if isinstance(item, str) and isinstance(key, str):
                    self._index[item] = (key, offset, len(raw))
            offset += len(raw)

    def key(self, item: str) -> str | None:
        """The key `item` was recorded under, without reading its entry."""
        place = self._index.get(item)
        return None if place is None else place[0]

    def __getitem__(self, item: str) -> LedgerEntry:
        key, offset, length = self._index[item]
        entry = None
        if self._fh is not None:  # closed: its entries are no longer there to read
            try:
                self._fh.seek(offset)
                entry = LedgerEntry.model_validate_json(self._fh.read(length))
            except (OSError, ValidationError):
                entry = None
        if entry is None or entry.item != item or entry.key != key:
            raise KeyError(item)
        return entry

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __del__(self) -> None:
        self.close()


class Ledger(Closing):
    """One stage's ledger for one upload: item -> LedgerEntry; the last run's read as asked for, this run's
    written as recorded.

    `reuse(item, key)` answers the previous entry when the key is unchanged; `record` writes this run's entry
    to the new ledger at once (streamed: memory does not grow with the items). `save` (or leaving a `with`
    block normally) puts the new ledger in place, atomically: items not recorded in this run are gone, so
    it never grows stale. Leaving the `with` block on an exception keeps the old ledger.
    """

    def __init__(self, path: Path, previous: Mapping[str, LedgerEntry] | None = None) -> None:
        self.path = path
        self.previous: Mapping[str, LedgerEntry] = previous if previous is not None else {}
        self._out: JsonlWriter | None = None
        self._saved = False

    @classmethod
    def load(cls, path: Path) -> Ledger:
        return cls(path, PreviousEntries(path))

    def reuse(self, item: str, key: str) -> LedgerEntry | None:
        if isinstance(self.previous, PreviousEntries):
            if self.previous.key(item) != key:  # a changed item's entry is not even read
                return None
            entry = self.previous.get(item)
        else:
            entry = self.previous.get(item)
        return entry if entry is not None and entry.key == key else None

    def record(self, entry: LedgerEntry) -> LedgerEntry:
        """Write `entry` to the new ledger (record each item once a run: a second line would win on load)."""
        self._writer().write(entry.line())
        return entry

    def _writer(self) -> JsonlWriter:
        if self._saved:
            raise RuntimeError(f"{self.path} was saved already: record every entry before saving")
        if self._out is None:
            self._out = JsonlWriter(self.path).__enter__()
        return self._out

    def save(self) -> None:
        """Put this run's entries (in the order recorded) in place of the last run's, atomically (once)."""
        if self._saved:
            return
        out = self._writer()
        self._out, self._saved = None, True
        out.__exit__(None, None, None)
        self.close()

    def close(self) -> None:
        """Drop an unsaved new ledger (the old one stays) and let go of the old one's file."""
        if self._out is not None:
            out, self._out = self._out, None
            out.abort()
        if isinstance(self.previous, PreviousEntries):
            self.previous.close()

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.save()
        self.close()

    def __del__(self) -> None:  # a stage that raised before saving (without a `with` block) leaves no temp file
        if self._out is not None:
            out, self._out = self._out, None
            out.abort()


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
        super().write(line)
        self.offset += len(data)
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


PoolKind = Literal["spawn", "fork", "forkserver"]


@dataclass(frozen=True)
class PoolSettings:
    """How a stage's worker processes start: `kind` (spawn: a fresh interpreter; forkserver: forked from a clean
    server that imported `preload`), and `fresh` (one task per process: for a library that keeps state between
    calls inside a process, such as espeak-ng, so the bytes do not depend on what ran before)."""

    kind: PoolKind = "spawn"
    fresh: bool = False
    preload: tuple[str, ...] = ()

    def executor(self, workers: int) -> ProcessPoolExecutor:
        ctx = get_context(self.kind)
        if self.kind == "forkserver" and self.preload:
            ctx.set_forkserver_preload(list(self.preload))
        return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, max_tasks_per_child=1 if self.fresh else None)


def ordered_map(
    fn: Callable[[list[Any]], list[R]], items: Iterable[Any], workers: int = 1, batch: int = 1, window: int = 2,
    pool: PoolSettings | None = None, pool_from: int = 0,
) -> Iterator[R | Any]:
    """Results of `fn` over `items`, in input order, computed here (workers <= 1) or in a process pool (`pool`,
    spawn by default; a `fresh` pool is used even for one worker: its items never share a process).

    `pool_from` (> 1): the number of items from which a pool pays for its workers' start-up; a run with fewer
    is computed here. Up to that many items are read ahead to decide (a `Done` with none ahead of it passes at
    once; behind them at most `4 * pool_from` wait, beyond which those read are computed here first).

    `fn` takes a list (a batch of up to `batch` items) and returns one result per item; it must be a
    module-level function (it is pickled to the workers). An item wrapped in `Done` is not computed: its
    value comes out at its place. Lazy and bounded: at most `window` batches per worker are in flight, so
    memory does not grow with the number of items. The output is identical for any `workers`.
    """
    pool = pool or PoolSettings()
    if workers > 1 and pool_from > 1 and not pool.fresh:
        ahead: list[Any] = []
        decided = yield from _read_ahead(fn, items, batch, pool_from, ahead)
        if decided is None:  # fewer than pool_from items: a pool would cost more than it saves
            yield from _here(fn, ahead, batch)
            return
        items = itertools.chain(ahead, decided)
    if workers <= 1 and not pool.fresh:
        yield from _here(fn, items, batch)
        return

    pending: deque[Future | Done] = deque()
    todo: list[Any] = []
    limit = max(1, window * workers)  # batches in flight
    with pool.executor(max(1, workers)) as executor:

        def pop() -> list[Any]:
            head = pending.popleft()
            return [head.value] if isinstance(head, Done) else head.result()

        def ready() -> Iterator[Any]:
            while pending and (isinstance(pending[0], Done) or pending[0].done()):
                yield from pop()

        for item in items:
            if isinstance(item, Done):
                if todo:
                    pending.append(executor.submit(fn, todo))
                    todo = []
                pending.append(item)
            else:
                todo.append(item)
                if len(todo) >= batch:
                    pending.append(executor.submit(fn, todo))
                    todo = []
            yield from ready()
            # bounded: wait for the oldest batch while too many are in flight or queued behind it
            while sum(isinstance(p, Future) for p in pending) > limit or len(pending) > 64 * limit * batch:
                yield from pop()
        if todo:
            pending.append(executor.submit(fn, todo))
        while pending:
            yield from pop()


def _here(fn: Callable[[list[Any]], list[R]], items: Iterable[Any], batch: int) -> Iterator[R | Any]:
    """`ordered_map` in this process."""
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


def _read_ahead(fn: Callable[[list[Any]], list[R]], items: Iterable[Any], batch: int, pool_from: int,
                ahead: list[Any]) -> Generator[R | Any, None, Iterator[Any] | None]:
    """Read `items` into `ahead` until `pool_from` of them are to compute (returns the rest of the iterator) or
    they end (returns None). Bounded: a Done with nothing ahead of it is yielded at once, and when `ahead` holds
    4 * pool_from, what it holds is computed here (the count goes on)."""
    it = iter(items)
    seen = 0
    for item in it:
        if isinstance(item, Done):
            if not ahead:
                yield item.value
                continue
            ahead.append(item)
        else:
            ahead.append(item)
            seen += 1
            if seen >= pool_from:
                return it
        if len(ahead) >= 4 * pool_from:
            yield from _here(fn, ahead, batch)
            ahead.clear()
    return None
