"""Progress of long stages, for whoever is watching: Dagster logs, or a rich bar in `vak run`.

A stage calls `report(...)` after each item; nothing it computes depends on it. Sinks are process-wide,
so the CLI can show a bar for steps that run in its own process (the in-process executor); steps in
other processes (multiprocess, Dask, k8s) report through their Dagster logs only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Tick:
    stage: str  # normalized_audio, transcripts ...
    upload: str
    done: float
    total: float
    unit: str  # "files", "audio s"
    item: str | None = None  # the file just finished


Sink = Callable[[Tick], None]
_SINKS: list[Sink] = []


def add_sink(sink: Sink) -> Callable[[], None]:
    """Register a sink; returns the function that removes it."""
    _SINKS.append(sink)
    return lambda: _SINKS.remove(sink) if sink in _SINKS else None


def report(tick: Tick) -> None:
    for sink in list(_SINKS):
        sink(tick)


def throttled(log: Callable[[str], None], every_s: float = 5.0) -> Sink:
    """A sink that logs one line per `every_s` seconds, and the last tick always."""
    last = [0.0]

    def sink(t: Tick) -> None:
        now = time.monotonic()
        if now - last[0] >= every_s or t.done >= t.total:
            last[0] = now
            pct = f" ({100 * t.done / t.total:.0f}%)" if t.total else ""
            last_item = f", last {t.item}" if t.item else ""
            log(f"{t.stage} {t.upload}: {t.done:g} of {t.total:g} {t.unit}{pct}{last_item}")
    return sink


def ticking(items: Sequence[T], stage: str, upload: str, unit: str, size: Callable[[T], float] = lambda _: 1,
            name: Callable[[T], str | None] = lambda _: None) -> Iterator[T]:
    """Yield `items`, reporting after each one is done (however its loop body ended, `continue` included)."""
    total, done = round(sum(size(i) for i in items), 1), 0.0
    for item in items:
        yield item
        done += size(item)
        report(Tick(stage, upload, round(done, 1), total, unit, name(item)))
