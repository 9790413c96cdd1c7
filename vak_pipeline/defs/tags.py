"""Run tags that say which data a run worked on and what launched it, so runs over different data
directories (a test's temp dir, a colleague's bucket, the repo's data/) are never mistaken for each other
in the UI. Filter on them in the Runs page: `vak/data`, `vak/launched_by`.

`vak run`, the sensors and the schedule tag the runs they request; every other run (the launchpad, an
asset's Materialize button, a backfill) is tagged when its first step starts, from what Dagster knows of it
(`DataResource` calls `true_tags`), and `vak/data` is always the root the run's `data` resource really has.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

DATA_TAG = "vak/data"
LAUNCHED_BY_TAG = "vak/launched_by"
WRITER_TAG = "vak/writer"  # publish runs: one at a time per instance (tag_concurrency_limits in dagster.yaml)
Launcher = Literal["cli", "sensor", "schedule", "ui", "backfill"]


def data_label(root: str | Path) -> str:
    """The data root as a run shows it: a URL as given, a path made absolute."""
    text = str(root)
    return text if "://" in text else str(Path(text).expanduser().resolve())


def run_tags(launched_by: Launcher, root: str | Path, **extra: str) -> dict[str, str]:
    return {LAUNCHED_BY_TAG: launched_by, DATA_TAG: data_label(root), **extra}


def launcher_of(tags: Mapping[str, str]) -> Launcher:
    """Who launched a run, from its tags: its own `vak/launched_by`, else what Dagster tagged it with."""
    own = tags.get(LAUNCHED_BY_TAG)
    if own in ("cli", "sensor", "schedule", "ui", "backfill"):
        return own  # type: ignore[return-value]
    if "dagster/backfill" in tags:
        return "backfill"
    if "dagster/schedule_name" in tags:
        return "schedule"
    if "dagster/sensor_name" in tags:
        return "sensor"
    return "ui"


def true_tags(tags: Mapping[str, str], root: str | Path) -> dict[str, str]:
    """The `vak/*` tags a run with `tags` that works on `root` must carry."""
    return {LAUNCHED_BY_TAG: launcher_of(tags), DATA_TAG: data_label(root)}
