"""Long stages' progress in the run's Dagster logs (a line every few seconds), while the step runs."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import dagster as dg

from vak_pipeline import progress


@contextlib.contextmanager
def logged_progress(context: dg.AssetExecutionContext, every_s: float = 5.0) -> Iterator[None]:
    remove = progress.add_sink(progress.throttled(context.log.info, every_s))
    try:
        yield
    finally:
        remove()
