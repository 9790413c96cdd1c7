"""The executor is a setting (VAK_EXECUTOR), so the same definitions run on a laptop or a cluster.

in_process   one process (tests, small runs)
multiprocess one process per step on this machine (default for `dagster dev` runs)
dask         dagster-dask: a local Dask cluster (VAK_DASK_WORKERS) or an existing scheduler (VAK_DASK_ADDRESS)
k8s          dagster-k8s: one pod per step (run launcher and pod config in deploy/k8s/)
"""

import os

import dagster as dg

EXECUTORS = ("in_process", "multiprocess", "dask", "k8s")


def executor_from_env(name: str | None = None) -> dg.ExecutorDefinition:
    """The executor called `name`; None = $VAK_EXECUTOR (default multiprocess), the setting `dagster dev` reads."""
    name = name or os.environ.get("VAK_EXECUTOR", "multiprocess")
    if name == "in_process":
        return dg.in_process_executor
    if name == "multiprocess":
        return dg.multiprocess_executor.configured({"max_concurrent": int(os.environ.get("VAK_MAX_CONCURRENT", "0"))})
    if name == "dask":
        from .dask_compat import vak_dask_executor

        address = os.environ.get("VAK_DASK_ADDRESS")
        # local workers each advertise one "GPU" slot, so the transcripts step (which asks for GPU: 1) can run
        cluster = ({"existing": {"address": address}} if address else
                   {"local": {"n_workers": int(os.environ.get("VAK_DASK_WORKERS", "2")), "threads_per_worker": 1,
                              "resources": {"GPU": 1}, "dashboard_address": ":0"}})
        return vak_dask_executor.configured({"cluster": cluster})
    if name == "k8s":
        from dagster_k8s import k8s_job_executor

        return k8s_job_executor
    raise ValueError(f"VAK_EXECUTOR={name!r}; choose one of {', '.join(EXECUTORS)}")
