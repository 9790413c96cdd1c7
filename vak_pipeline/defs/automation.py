"""Republish after ingest: when the last of a batch of ingest runs succeeds, one publish run follows.

The nightly schedule and the upload sensor start ingest runs per upload; the release (manifest, splits,
exports, steward report) is rebuilt once they are all done, not once per upload and never while one is
still running (the next success triggers it then).
"""

import dagster as dg

from .jobs import ingest_job, publish_job, sensor_status
from .resources import DataResource
from .tags import DATA_TAG, run_tags

_ACTIVE = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
]


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS,
    monitored_jobs=[ingest_job],
    request_job=publish_job,
    name="republish_after_ingest",
    default_status=sensor_status(),
    minimum_interval_seconds=10,
    description="Requests publish_job when an ingest run succeeded and no other ingest run is queued or running.",
)
def republish_after_ingest(context: dg.RunStatusSensorContext, data: DataResource):
    active = context.instance.get_runs(filters=dg.RunsFilter(job_name=ingest_job.name, statuses=_ACTIVE), limit=1)
    if active:
        return dg.SkipReason(f"ingest run {active[0].run_id} is still going; publish follows the last one")
    run = context.dagster_run
    root = run.tags.get(DATA_TAG) or data.root  # the root the ingest really used (its step tagged it)
    where = (run.run_config.get("resources") or {}).get("data")  # publish works where the ingest worked
    return dg.RunRequest(
        run_key=f"publish-after:{run.run_id}", run_config={"resources": {"data": where}} if where else {},
        tags=run_tags("sensor", root, **{"vak/trigger": "after_ingest", "vak/after_run": run.run_id}))
