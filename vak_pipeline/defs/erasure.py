"""erase_job: `vak erase` from the UI or a schedule, with config; dry run unless told otherwise.

A real erasure tags its run `vak/erasure: <reference>` and the uploads it touched; the `reingest_after_erasure`
sensor then requests an ingest run of each such upload (the stages leave out what the ledger names), and
`republish_after_ingest` publishes the next release once they are done, so the UI shows every asset it changed
as materialized again."""

from typing import Literal

import dagster as dg
from pydantic import Field

from .jobs import ingest_job
from .resources import DataResource

ERASURE_TAG = "vak/erasure"
UPLOADS_TAG = "vak/erased_uploads"


class EraseConfig(dg.Config):
    selector: Literal["conversation", "speaker", "upload", "file", "value"] = Field(
        description="What `values` are: conversation ids, speaker ids, uploads, source files (<upload>/<path>), or "
                    "values a data subject gives (phone number, e-mail, customer id; never logged).")
    values: list[str] = Field(description="One or more of the selector's kind.")
    reference: str | None = Field(None, description="A ticket or request id kept in the ledger.")
    by: str | None = Field(None, description="Who carries the request out (kept in the ledger).")
    dry_run: bool = Field(True, description="Only say what would be removed (ids and counts). Set false to erase.")
    purge_raw: bool = Field(False, description="Also delete the raw files.")


@dg.op(description="Plan (and unless dry_run, carry out) an erasure; see docs/erasure.md.")
def erase(context: dg.OpExecutionContext, config: EraseConfig, data: DataResource) -> None:
    from vak_pipeline.erasure import carry_out, plan

    p = plan(data.layout, config.selector, config.values)
    for line in p.describe():
        context.log.info(line)
    if config.dry_run or not p.found:
        context.log.info("dry run: nothing was changed" if p.found else "nothing matches: nothing to erase")
        return
    entry = carry_out(data.layout, p, by=config.by, reference=config.reference, purge_raw=config.purge_raw)
    context.instance.add_run_tags(context.run_id, {ERASURE_TAG: config.reference or "yes",
                                                   UPLOADS_TAG: ",".join(p.uploads)})
    for upload in p.uploads:
        context.log_event(dg.AssetObservation(asset_key="redacted_manifest", partition=upload,
                                              metadata={"erased_conversations": len(entry.conversations)}))
    context.log.info(f"ledger: +1 entry ({len(entry.conversations)} conversation(s)); the affected uploads are "
                     "re-ingested by the sensor reingest_after_erasure, then republished")


@dg.job(description="Withdraw conversations from every artifact (dry run by default): docs/erasure.md.",
        tags={"vak/launched_by": "ui"})
def erase_job():
    erase()


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS, monitored_jobs=[erase_job], request_job=ingest_job,
    name="reingest_after_erasure", default_status=dg.DefaultSensorStatus.RUNNING,
    description="After an erasure, re-ingest each upload it touched so no stage output keeps a trace.")
def reingest_after_erasure(context: dg.RunStatusSensorContext):
    uploads = [u for u in context.dagster_run.tags.get(UPLOADS_TAG, "").split(",") if u]
    if not uploads:
        return dg.SkipReason("a dry run (or nothing matched): nothing to re-ingest")
    return [dg.RunRequest(run_key=f"after-erasure:{context.dagster_run.run_id}:{u}", partition_key=u,
                          tags={"vak/trigger": "after_erasure", "vak/launched_by": "sensor"}) for u in uploads]
