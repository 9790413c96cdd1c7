"""Kubernetes and the gpu pool, checked without a cluster: the code location validates with the k8s
executor, deploy/k8s/run_config.yaml fits both jobs' config schema, deploy/k8s/dagster.yaml is a valid
instance config whose run launcher config fits K8sRunLauncher, the transcripts step asks for a GPU in a
form dagster-k8s reads, and our dagster.yaml limits the gpu pool to one slot and frees the slots of a
run that ended without releasing them."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import dagster as dg
import pytest
import yaml

from vak_pipeline_tests import processes

REPO = Path(__file__).resolve().parents[2]


def _instance_env(home: Path) -> dict[str, str]:
    """A temp DAGSTER_HOME holding a copy of our dagster.yaml (storage defaults to the home)."""
    home.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "dagster.yaml", home / "dagster.yaml")
    return {"DAGSTER_HOME": str(home)}


@pytest.mark.slow
def test_the_code_location_validates_with_the_k8s_executor(tmp_path):
    env = dict(os.environ, **_instance_env(tmp_path / "home"), VAK_EXECUTOR="k8s", DAGSTER_TELEMETRY_DISABLED="1")
    out = processes.run([str(Path(sys.executable).parent / "dagster"), "definitions", "validate", "-w",
                         "workspace.yaml"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "All code locations passed validation" in out.stderr + out.stdout


@pytest.fixture
def k8s_defs(monkeypatch) -> dg.Definitions:
    monkeypatch.setenv("VAK_EXECUTOR", "k8s")
    from vak_pipeline.definitions import defs

    return defs()


@pytest.mark.parametrize("job", ["ingest_job", "publish_job"])
def test_the_k8s_run_config_fits_each_job(k8s_defs, job):
    job_def = k8s_defs.resolve_job_def(job)
    assert job_def.executor_def.name == "k8s"
    run_config = yaml.safe_load((REPO / "deploy" / "k8s" / "run_config.yaml").read_text())
    dg.validate_run_config(job_def, run_config)  # raises DagsterInvalidConfigError when it does not fit
    with pytest.raises(dg.DagsterInvalidConfigError):
        dg.validate_run_config(job_def, {"execution": {"config": {"job_namespace": 3}}})


def test_the_k8s_instance_config_is_valid(monkeypatch):
    from dagster._config import process_config
    from dagster._core.instance.config import dagster_instance_config
    from dagster_k8s import K8sRunLauncher

    for var in ("DAGSTER_PG_HOST", "DAGSTER_PG_USER", "DAGSTER_PG_PASSWORD", "DAGSTER_PG_DB", "VAK_IMAGE",
                "VAK_K8S_NAMESPACE"):
        monkeypatch.setenv(var, "placeholder")
    cfg, _ = dagster_instance_config(str(REPO / "deploy" / "k8s"))
    assert "postgres" in cfg["storage"] and cfg["concurrency"]["pools"]["default_limit"] == 1
    launcher = cfg["run_launcher"]
    assert (launcher["module"], launcher["class"]) == ("dagster_k8s", "K8sRunLauncher")
    res = process_config(K8sRunLauncher.config_type(), launcher["config"])
    assert res.success, [e.message for e in res.errors]
    assert res.value["volume_mounts"][0]["mountPath"] == "/data"


def test_transcripts_asks_for_one_gpu_in_the_form_dagster_k8s_reads(k8s_defs):
    from dagster_k8s.job import get_user_defined_k8s_config

    node = k8s_defs.resolve_job_def("ingest_job").graph.node_named("transcripts")
    assert node.definition.pool == "gpu"
    cfg = get_user_defined_k8s_config(node.definition.tags)
    assert cfg.container_config["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert "GPU" in node.definition.tags["dagster-dask/resource_requirements"]


def test_our_instance_limits_the_gpu_pool_and_frees_slots_of_finished_runs(tmp_path, monkeypatch):
    for k, v in _instance_env(tmp_path / "home").items():
        monkeypatch.setenv(k, v)
    with dg.DagsterInstance.get() as inst:
        assert inst.get_concurrency_config().pool_config.default_pool_limit == 1
        assert inst.run_monitoring_settings["free_slots_after_run_end_seconds"] == 60
        assert inst.event_log_storage.supports_global_concurrency_limits


def test_a_failed_run_that_held_the_gpu_slot_gets_it_back(tmp_path):
    """The daemon's slot sweep, with our dagster.yaml's settings but a 1 s window instead of 60 s."""
    from dagster._core.test_utils import instance_for_test
    from dagster._daemon.monitoring.concurrency import execute_concurrency_slots_iteration

    ours = yaml.safe_load((REPO / "dagster.yaml").read_text())
    overrides = {"concurrency": ours["concurrency"],
                 "run_monitoring": dict(ours["run_monitoring"], free_slots_after_run_end_seconds=1)}

    @dg.op(pool="gpu")
    def transcribe():
        raise RuntimeError("the GPU step crashed")

    @dg.job
    def gpu_job():
        transcribe()

    with instance_for_test(overrides=overrides) as inst:
        res = gpu_job.execute_in_process(instance=inst, raise_on_error=False)
        assert not res.success
        storage = inst.event_log_storage
        storage.initialize_concurrency_limit_to_default("gpu")
        # a worker that died mid-step never released its claim: the run is over, the slot still taken
        storage.claim_concurrency_slot("gpu", res.run_id, "transcribe")
        assert storage.get_concurrency_info("gpu").claimed_slots
        time.sleep(1.5)
        list(execute_concurrency_slots_iteration(SimpleNamespace(instance=inst), logger=_NullLog()))
        info = storage.get_concurrency_info("gpu")
        assert info.slot_count == 1 and not info.claimed_slots


class _NullLog:
    def info(self, *_args, **_kwargs) -> None:
        pass
