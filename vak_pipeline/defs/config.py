"""Run config checked before a run starts, with the library's own settings models.

The `dg.Config` classes and resources of `defs/` subclass the library's pydantic settings (one definition
each), so the launchpad shows their fields, defaults, descriptions and Literal choices, and Dagster rejects
a wrong type or choice when a run is launched. Dagster's config system has no range type, though: a value
outside a `Field(ge=..)` constraint would only fail when its step builds the config. `check_run_config`
builds every op's config from the run config first, so `vak run` refuses it before any run starts.
"""

from __future__ import annotations

from typing import Any, get_type_hints

import dagster as dg
from pydantic import BaseModel, ValidationError


class RunConfigError(ValueError):
    """A run config value the job's config classes reject; the message names the op and the field."""


def _config_class(node_def: Any) -> type[BaseModel] | None:
    fn = getattr(getattr(node_def, "compute_fn", None), "decorated_fn", None)
    if fn is None:
        return None
    try:
        cls = get_type_hints(fn).get("config")
    except (NameError, TypeError):
        return None
    return cls if isinstance(cls, type) and issubclass(cls, dg.Config) else None


def check_run_config(job: dg.JobDefinition, run_config: dict[str, Any]) -> None:
    """Raise RunConfigError unless Dagster accepts `run_config` for `job` and every op's config class
    (the library's settings, constraints included) accepts its values."""
    try:
        dg.validate_run_config(job, run_config)
    except dg.DagsterInvalidConfigError as exc:
        raise RunConfigError(f"run config rejected for {job.name}: {exc}") from None
    ops = run_config.get("ops") or {}
    for node in job.graph.nodes:
        cls = _config_class(node.definition)
        if cls is None:
            continue
        values = (ops.get(node.name) or {}).get("config") or {}
        try:
            cls(**values)
        except ValidationError as exc:
            fields = ", ".join(".".join(str(p) for p in e["loc"]) + f": {e['msg']}" for e in exc.errors())
            raise RunConfigError(f"run config rejected for {job.name}: ops.{node.name}.config: {fields}") from None
