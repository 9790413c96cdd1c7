"""dagster-dask's executor, with the step submission adapted to current dask/distributed.

dagster-dask 0.29 hands `client.submit` the DagsterRun and other Dagster records as plain arguments;
dask >= 2025 walks tuple arguments to find futures, and Dagster's `@record` types refuse iteration, so
every run fails before its first step ("Iteration is not allowed on `@record` RunOpConcurrency"). Here
the step arguments travel in one opaque object and the worker side is dagster-dask's own
`query_on_dask_worker`. Dask task keys also carry the run id, so two runs of the same job on one
scheduler (parallel uploads) do not share keys. Only the `local` and `existing` cluster types are used.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import dagster as dg
from dagster_dask.executor import DaskExecutor, dask_executor, get_dask_resource_requirements, query_on_dask_worker


class _StepArgs:
    """Arguments of one step, opaque to dask's argument parsing (not a tuple, list or dict)."""

    def __init__(self, *args: Any) -> None:
        self.args = args


def _run_step(dependencies: list[Any], packed: _StepArgs) -> Any:
    """On a dask worker: run one step; `dependencies` only orders the futures."""
    return query_on_dask_worker(dependencies, *packed.args)


class VakDaskExecutor(DaskExecutor):
    def execute(self, plan_context, execution_plan) -> Iterator[Any]:
        import contextlib

        import dask.distributed
        from dagster._core.errors import raise_execution_interrupts
        from dagster._utils import iterate_with_context

        if self.cluster_type not in ("local", "existing"):
            raise dg.DagsterInvariantViolationError(f"cluster type {self.cluster_type!r}: use local or existing")
        if not plan_context.instance.is_persistent:
            raise dg.DagsterInvariantViolationError("Dask execution needs a persistent Dagster instance")
        job = plan_context.job_name
        run_id = plan_context.dagster_run.run_id
        with contextlib.ExitStack() as stack:
            if self.cluster_type == "existing":
                target = self.cluster_configuration["address"]
            else:
                target = stack.enter_context(dask.distributed.LocalCluster(**self.build_dict(job)))
            client = stack.enter_context(dask.distributed.Client(target))
            futures: dict[str, Any] = {}
            for level in execution_plan.get_steps_to_execute_by_level():
                for step in level:
                    deps = [futures[k] for inp in step.step_inputs for k in inp.dependency_keys]
                    packed = _StepArgs(plan_context.reconstructable_job, plan_context.dagster_run,
                                       plan_context.run_config, [step.key], plan_context.instance.get_ref(),
                                       execution_plan.known_state)
                    futures[step.key] = client.submit(_run_step, deps, packed, key=f"{job}.{step.key}.{run_id}",
                                                      resources=get_dask_resource_requirements(step.tags), pure=False)
            done = dask.distributed.as_completed(list(futures.values()), with_results=True)
            for _future, events in iterate_with_context(raise_execution_interrupts, done):
                yield from events


@dg.executor(name="dask", config_schema=dask_executor.config_schema.config_type,
             requirements=dg.multiple_process_executor_requirements())
def vak_dask_executor(init_context) -> VakDaskExecutor:
    """The dask executor (same config as dagster-dask's), running steps through VakDaskExecutor."""
    ((cluster_type, cluster_configuration),) = init_context.executor_config["cluster"].items()
    return VakDaskExecutor(cluster_type, cluster_configuration)
