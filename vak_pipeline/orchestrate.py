"""`vak run`: materialize the whole asset graph with Dagster for one data directory.

Part of the Dagster layer (like definitions.py): the library modules never import this. One run per
upload partition (ingest_job), then one run of the dataset assets (publish_job), on the instance named by
DAGSTER_HOME (so the runs show up in `dagster dev`), or an ephemeral one when it is unset.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dagster as dg

from .layout import DataLayout

INGEST_JOB = "ingest_job"
PUBLISH_JOB = "publish_job"


@dataclass
class StageRun:
    name: str
    partition: str | None
    success: bool
    run_id: str
    failed_steps: list[str] = field(default_factory=list)
    failed_checks: list[str] = field(default_factory=list)


@dataclass
class PipelineReport:
    data_dir: Path
    runs: list[StageRun] = field(default_factory=list)

    @property
    def success(self) -> bool:
        return all(r.success for r in self.runs)


def merge_config(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in extra.items():
        out[k] = merge_config(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


@contextlib.contextmanager
def open_instance() -> Iterator[dg.DagsterInstance]:
    home = os.environ.get("DAGSTER_HOME")
    if home and Path(home, "dagster.yaml").is_file():
        with dg.DagsterInstance.get() as inst:
            yield inst
    else:
        with dg.DagsterInstance.ephemeral() as inst:
            yield inst


@contextlib.contextmanager
def data_lock(data_dir: Path, echo: Callable[[str], None] = print) -> Iterator[None]:
    """One `vak run` per data directory at a time: a second one waits, so files are never interleaved."""
    import fcntl

    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / ".vak-run.lock", "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            echo(f"another vak run holds {data_dir}; waiting for it to finish ...")
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def run_pipeline(data_dir: Path, uploads: list[str] | None = None, run_config: dict[str, Any] | None = None,
                 instance: dg.DagsterInstance | None = None,
                 echo: Callable[[str], None] = print) -> PipelineReport:
    """Run ingest for every upload (or the named ones), then publish. Never raises for a failed step."""
    from .definitions import defs as load_defs

    data_dir = Path(data_dir)
    layout = DataLayout.at(data_dir)
    names = uploads or layout.uploads()
    rc = merge_config({"resources": {"data": {"config": {"root": str(data_dir)}}}}, run_config or {})
    defs = load_defs()
    report = PipelineReport(data_dir)
    with contextlib.ExitStack() as stack:
        stack.enter_context(data_lock(data_dir, echo))
        inst = instance or stack.enter_context(open_instance())
        existing = set(inst.get_dynamic_partitions("uploads"))
        new = [n for n in names if n not in existing]
        if new:
            inst.add_dynamic_partitions("uploads", new)
        ingest = defs.resolve_job_def(INGEST_JOB)
        for name in names:
            echo(f"ingest {name} ...")
            res = ingest.execute_in_process(partition_key=name, instance=inst, run_config=rc, raise_on_error=False)
            report.runs.append(_summarize(INGEST_JOB, name, res))
        echo("publish (validate, split, export, report) ...")
        res = defs.resolve_job_def(PUBLISH_JOB).execute_in_process(instance=inst, run_config=rc,
                                                                   raise_on_error=False)
        report.runs.append(_summarize(PUBLISH_JOB, None, res))
    return report


def _summarize(job: str, partition: str | None, res: dg.ExecuteInProcessResult) -> StageRun:
    failed_steps = [e.step_key for e in res.all_events if e.event_type_value == "STEP_FAILURE" and e.step_key]
    failed_checks = [e.check_name for e in res.get_asset_check_evaluations()
                     if not e.passed and e.severity == dg.AssetCheckSeverity.ERROR]
    return StageRun(job, partition, res.success, res.run_id, failed_steps, failed_checks)
