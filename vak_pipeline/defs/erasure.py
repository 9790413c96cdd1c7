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
    from vak_pipeline.storage import data_lock

    p = plan(data.layout, config.selector, config.values)
    for line in p.describe():
        context.log.info(line)
    if config.dry_run or not p.found:
        context.log.info("dry run: nothing was changed" if p.found else "nothing matches: nothing to erase")
        return
    with data_lock(data.layout.root, context.log.info):  # never beside a `vak run` of the same data directory
        p = plan(data.layout, config.selector, config.values)
        entry = carry_out(data.layout, p, by=config.by, reference=config.reference, purge_raw=config.purge_raw)
    context.instance.add_run_tags(context.run_id, {ERASURE_TAG: config.reference or "yes",
                                                   UPLOADS_TAG: ",".join(p.uploads)})
    for upload in p.uploads:
        context.log_event(dg.AssetObservation(asset_key="redacted_manifest", partition=upload,
                                              metadata={"erased_conversations": len(entry.conversations)}))
    # earlier runs that named an erased id go now; this run goes once it has finished (reingest_after_erasure)
    scrubbed = scrub_instance(context.instance, p.conv_ids, keep_run=context.run_id)
    context.log.info(f"ledger: +1 entry ({len(entry.conversations)} conversation(s)); {scrubbed} earlier run(s) "
                     "that named an erased conversation deleted; the affected uploads are re-ingested by the "
                     "sensor reingest_after_erasure, then republished, and this run is deleted once it is done")


@dg.job(description="Withdraw conversations from every artifact (dry run by default): docs/erasure.md.",
        tags={"vak/launched_by": "ui"})
def erase_job():
    erase()


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS, monitored_jobs=[erase_job], request_job=ingest_job,
    name="reingest_after_erasure", default_status=dg.DefaultSensorStatus.RUNNING,
    description="After an erasure, re-ingest each upload it touched so no stage output keeps a trace.")
def reingest_after_erasure(context: dg.RunStatusSensorContext):
    """Re-ingest what a real erasure touched, then delete the erasure's own run: its run config holds the values
    it was given (a phone number with `selector: value`) and its logs the ids it found. The ledger is the record."""
    run = context.dagster_run
    uploads = [u for u in run.tags.get(UPLOADS_TAG, "").split(",") if u]
    if not uploads:
        return dg.SkipReason("a dry run (or nothing matched): nothing to re-ingest")
    requests = [dg.RunRequest(run_key=f"after-erasure:{run.run_id}:{u}", partition_key=u,
                              tags={"vak/trigger": "after_erasure", "vak/launched_by": "sensor"}) for u in uploads]
    forget_run(context.instance, run.run_id)
    return requests


def forget_run(instance: dg.DagsterInstance, run_id: str) -> None:
    """Delete one run with its events and captured compute logs (Dagster's public `delete_run`, `delete_logs`)."""
    instance.delete_run(run_id)
    try:
        instance.compute_log_manager.delete_logs(prefix=[run_id])
    except NotImplementedError:  # a log manager that cannot delete: its files are named in docs/erasure.md
        pass


def scrub_instance(instance: dg.DagsterInstance, conv_ids: list[str], keep_run: str | None = None) -> int:
    """Delete every run of `instance` whose tags, run config or events (log messages, metadata, asset check
    tables) name one of the erased conversation ids, with its events and captured compute logs (Dagster's
    public `delete_run`, `delete_logs`); `keep_run` (the erasure's own run, still going) is left. Returns how
    many runs were deleted. Run tags never hold a conversation id by design (defs/tags.py: data root, launcher,
    writer), and partition keys are uploads, so what this finds are logs and check metadata of earlier runs."""
    needles = sorted({c for c in conv_ids if c})
    if not needles:
        return 0
    deleted = 0
    for run in instance.get_runs():
        if run.run_id == keep_run:
            continue
        text = repr(run.tags) + repr(run.run_config) + "".join(repr(e) for e in instance.all_logs(run.run_id))
        if not any(c in text for c in needles):
            continue
        forget_run(instance, run.run_id)
        deleted += 1
    return deleted


def compact_instance_files(home: str | None) -> list[str]:
    """VACUUM the instance's SQLite files under `home`, so rows deleted by `scrub_instance` leave no bytes in
    free pages; returns the files that could not be compacted (in use by a running webserver or daemon)."""
    import sqlite3
    from pathlib import Path

    busy = []
    for db in sorted(Path(home).rglob("*.db")) if home else []:
        try:
            conn = sqlite3.connect(str(db), timeout=5)
            try:
                conn.execute("VACUUM")
            finally:
                conn.close()
        except sqlite3.Error:
            busy.append(str(db))
    return busy
