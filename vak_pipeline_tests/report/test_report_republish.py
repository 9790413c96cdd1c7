"""republish_after_ingest: one publish run once the last ingest run of a batch succeeded, none while one still runs."""

from __future__ import annotations

import dagster as dg
from dagster._core.storage.dagster_run import DagsterRun

from vak_pipeline.defs.automation import republish_after_ingest
from vak_pipeline.defs.resources import DataResource


@dg.op
def _noop() -> None:
    return None


@dg.job(name="stand_in_ingest")
def _stand_in() -> None:
    _noop()


def _evaluate(instance: dg.DagsterInstance):
    result = _stand_in.execute_in_process(instance=instance)
    with dg.build_run_status_sensor_context(
        sensor_name=republish_after_ingest.name,
        dagster_instance=instance,
        dagster_run=result.dagster_run,
        dagster_event=result.get_run_success_event(),
        resources={"data": DataResource(root="data")},
    ) as ctx:
        return republish_after_ingest(ctx), result.run_id


def test_publish_is_requested_after_the_last_ingest_run():
    with dg.instance_for_test() as instance:
        request, run_id = _evaluate(instance)
        assert isinstance(request, dg.RunRequest) and request.run_key == f"publish-after:{run_id}"


def test_no_publish_while_another_ingest_run_is_running():
    with dg.instance_for_test() as instance:
        instance.add_run(DagsterRun(job_name="ingest_job", run_id="running-ingest", status=dg.DagsterRunStatus.STARTED))
        request, _ = _evaluate(instance)
        assert isinstance(request, dg.SkipReason) and "running-ingest" in request.skip_message
