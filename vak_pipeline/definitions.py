"""The one Definitions object of the code location (workspace.yaml points here)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from vak_pipeline.defs.executors import executor_from_env
from vak_pipeline.defs.resources import default_resources


@dg.definitions
def defs() -> dg.Definitions:
    return build_defs()


def build_defs(executor: str | None = None) -> dg.Definitions:
    """The definitions with the executor called `executor` (None: $VAK_EXECUTOR; `vak run --executor` passes
    its own, and its step workers rebuild the job with the same argument)."""
    loaded = dg.load_from_defs_folder(path_within_project=Path(__file__).parent / "defs")
    return dg.Definitions.merge(loaded, dg.Definitions(resources=default_resources(),
                                                       executor=executor_from_env(executor)))
