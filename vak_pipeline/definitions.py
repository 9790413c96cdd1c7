"""The one Definitions object of the code location (workspace.yaml points here)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from vak_pipeline.defs.executors import executor_from_env
from vak_pipeline.defs.resources import default_resources


@dg.definitions
def defs() -> dg.Definitions:
    loaded = dg.load_from_defs_folder(path_within_project=Path(__file__).parent / "defs")
    return dg.Definitions.merge(loaded, dg.Definitions(resources=default_resources(), executor=executor_from_env()))
