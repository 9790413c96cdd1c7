"""Run tags that say which data a run worked on and what launched it, so runs over different data
directories (a test's temp dir, a colleague's bucket, the repo's data/) are never mistaken for each other
in the UI. Filter on them in the Runs page: `vak/data`, `vak/launched_by`."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

DATA_TAG = "vak/data"
LAUNCHED_BY_TAG = "vak/launched_by"
Launcher = Literal["cli", "sensor", "schedule", "ui"]


def data_label(root: str | Path) -> str:
    """The data root as a run shows it: a URL as given, a path made absolute."""
    text = str(root)
    return text if "://" in text else str(Path(text).expanduser().resolve())


def run_tags(launched_by: Launcher, root: str | Path, **extra: str) -> dict[str, str]:
    return {LAUNCHED_BY_TAG: launched_by, DATA_TAG: data_label(root), **extra}
