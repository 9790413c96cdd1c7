"""Uploads in: raw_uploads (inventory) -> normalized_audio (24 kHz wavs), their checks, sensor and schedule.

Thin: each asset calls the library (uploads.inventory, audio.stage, quality.audio) and reports metadata.
"""

import json
import time

import dagster as dg

from vak_pipeline.audio.settings import NORMALIZE_VERSION, NormalizeSettings
from vak_pipeline.quality.audio import AUDIO_CHECKS, AudioBounds
from vak_pipeline.storage import atomic_write_json
from vak_pipeline.uploads.inventory import INVENTORY_VERSION

from .config import config_class
from .failures import os_errors_as_sentences
from .jobs import ingest_job, schedule_status, sensor_status
from .metadata import issues_table
from .partitions import uploads_partitions
from .progress import logged_progress
from .quality import gx_checks
from .resources import DataResource
from .tags import run_tags

FAILED_ROWS_CAP = 50


@dg.asset(partitions_def=uploads_partitions, group_name="uploads", kinds={"files"}, code_version=INVENTORY_VERSION,
          description="Inventory of `data/raw/<upload>`: every file with size, sha256, mtime and kind. "
                      "Raw files are only read.")
@os_errors_as_sentences
def raw_uploads(context: dg.AssetExecutionContext, data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.uploads.inventory import current_inventory

    layout = data.layout
    upload = context.partition_key
    upload_dir = layout.upload_dir(upload)
    if not upload_dir.is_dir():
        raise dg.Failure(f"upload folder {upload_dir} does not exist",
                         metadata={"fix": "remove the partition or restore the folder under data/raw/"})
    inv = current_inventory(upload_dir, layout.inventory(upload))  # re-hashed only when name:size:mtime changed
    atomic_write_json(layout.inventory(upload), inv.model_dump(mode="json"))
    counts = inv.counts()
    return dg.MaterializeResult(
        metadata={"files": len(inv.files), "total_bytes": inv.total_bytes, "fingerprint": inv.fingerprint,
                  "files_by_kind": dg.MetadataValue.json(counts), "inventory": dg.MetadataValue.path(
                      str(layout.inventory(upload))), "dagster/row_count": len(inv.files)},
        data_version=dg.DataVersion(inv.fingerprint))


class NormalizeConfig(config_class(NormalizeSettings)):
    """audio.settings.NormalizeSettings, as run config (fields, constraints and descriptions are the library's)."""


@dg.asset(partitions_def=uploads_partitions, group_name="uploads", deps=[raw_uploads], kinds={"audio"},
          code_version=NORMALIZE_VERSION,
          description="Every recording of the upload as `work/<upload>/audio/<conv_id>.wav` (24 kHz, 16-bit PCM, "
                      "channels kept; private until redacted) "
                      "and `work/<upload>/audio.jsonl`; unusable files listed in `work/<upload>/report.json`.")
@os_errors_as_sentences
def normalized_audio(context: dg.AssetExecutionContext, config: NormalizeConfig,
                     data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.audio.stage import normalize_upload

    with logged_progress(context):
        from vak_pipeline.erasure import refuse_audio
        from vak_pipeline.uploads.ingested import config_key

        res = normalize_upload(data.layout, context.partition_key, workers=config.workers, quality=config.quality,
                               max_duration_s=config.max_duration_s, refuse=refuse_audio(data.layout.root),
                               limits=data.input_limits,
                               run_key=config_key(context.run.run_config))
    errors = [i for i in res.issues if i.severity.value == "ERROR"]
    context.log.info(f"{context.partition_key}: {res.recordings} recordings ({res.decoded} decoded, "
                     f"{res.skipped} unchanged), {res.failed} failed")
    return dg.MaterializeResult(metadata={
        "dagster/row_count": res.recordings, "decoded": res.decoded, "unchanged": res.skipped,
        "failed": res.failed, "issues": len(res.issues),
        "failed_files": issues_table(errors, FAILED_ROWS_CAP),
        "failed_files_shown": f"{min(len(errors), FAILED_ROWS_CAP)} of {len(errors)}",
        "report": dg.MetadataValue.path(res.report), "audio_index": dg.MetadataValue.path(res.audio_index)})


class AudioBoundsConfig(config_class(AudioBounds)):
    """quality.audio.AudioBounds, as run config."""


def _audio_suite(upload: str, bounds: AudioBounds, layout):
    from vak_pipeline.audio.stage import read_audio_index
    from vak_pipeline.quality.audio import check_audio

    return check_audio(read_audio_index(layout, upload), bounds), layout.upload_report(upload)


normalized_audio_gx = gx_checks("normalized_audio_gx", normalized_audio, AUDIO_CHECKS, AudioBoundsConfig,
                                AudioBounds, _audio_suite, "failing_recordings", ("conv_id", "file", "failed"),
                                what=" within bounds")


@dg.sensor(job=ingest_job, minimum_interval_seconds=60, default_status=sensor_status(),
           description="Registers new upload folders under data/raw as partitions and requests ingest runs for "
                       "new or changed uploads (fingerprint of name:size:mtime, no file contents read).")
def upload_sensor(context: dg.SensorEvaluationContext, data: DataResource) -> dg.SensorResult | dg.SkipReason:
    from vak_pipeline.uploads.inventory import fingerprint

    started = time.monotonic()
    seen: dict[str, str] = json.loads(context.cursor) if context.cursor else {}
    current: dict[str, str] = {}
    mirror = data.mirror()
    if mirror is not None:  # a URL root: one remote listing, nothing downloaded
        current = mirror.upload_fingerprints()
    else:
        layout = data.layout
        from vak_pipeline.uploads.names import upload_name_issue

        for upload in layout.uploads():
            if (issue := upload_name_issue(upload)) is not None:  # never a partition key (see uploads.names)
                context.log.warning(f"upload {issue.file} not registered: {issue.message}. {issue.fix}")
                continue
            try:
                current[upload] = fingerprint(layout.upload_dir(upload))
            except OSError as exc:  # a folder being moved away mid-scan: try again next tick
                context.log.warning(f"could not scan upload {upload}: {type(exc).__name__}")
                if upload in seen:
                    current[upload] = seen[upload]
    existing = set(context.instance.get_dynamic_partitions(uploads_partitions.name))
    new_partitions = [u for u in current if u not in existing]
    changed = [u for u, fp in current.items() if seen.get(u) != fp]
    if mirror is None:  # what `vak run` (or an earlier run) already ingested as it is now needs no run
        from vak_pipeline import writers
        from vak_pipeline.report.freshness import is_ingested

        changed = [u for u in changed if not is_ingested(data.layout, u, current[u])]
        busy = [u for u in changed if writers.busy(data.layout.writer_lock(u))]
        if busy:  # another writer (vak run, a run of another instance) is at it: look again next tick
            context.log.info(f"{len(busy)} uploads are being written by another run; looked at again next tick")
            changed = [u for u in changed if u not in busy]
            current.update({u: seen[u] for u in busy if u in seen})
            for u in busy:
                if u not in seen:
                    current.pop(u)
    context.log.info(f"scanned {len(current)} uploads in {time.monotonic() - started:.2f}s; "
                     f"{len(new_partitions)} new partitions, {len(changed)} new or changed")
    cursor = json.dumps(current, sort_keys=True)
    if not new_partitions and not changed:
        return dg.SensorResult(skip_reason=dg.SkipReason("no new or changed uploads"), cursor=cursor)
    return dg.SensorResult(
        run_requests=[dg.RunRequest(partition_key=u, run_key=f"{u}:{current[u]}",
                                    tags=run_tags("sensor", data.root, **{"vak/upload": u})) for u in changed],
        dynamic_partitions_requests=[uploads_partitions.build_add_request(new_partitions)] if new_partitions else [],
        cursor=cursor)


@dg.schedule(cron_schedule="0 2 * * *", job=ingest_job, name="nightly_reingest",
             default_status=schedule_status(),
             description="Nightly: an ingest run for every upload that is new or changed since its last ingest "
                         "(vak run's or Dagster's); when they succeed, republish_after_ingest re-validates, "
                         "re-splits and rebuilds the exports and the steward report. Nothing changed: no run.")
def nightly_reingest(context: dg.ScheduleEvaluationContext, data: DataResource):
    from vak_pipeline.report.freshness import uploads_to_ingest

    when = context.scheduled_execution_time
    stamp = when.strftime("%Y-%m-%d") if when else "manual"
    from vak_pipeline import writers

    todo = {u: fp for u, fp in uploads_to_ingest(data.layout).items()
            if not writers.busy(data.layout.writer_lock(u))}  # one being written now is looked at tomorrow
    if not todo:
        return dg.SkipReason("no upload changed since its last ingest; the published release is current")
    existing = set(context.instance.get_dynamic_partitions(uploads_partitions.name))
    missing = [u for u in todo if u not in existing]
    if missing:
        context.instance.add_dynamic_partitions(uploads_partitions.name, missing)
    return [dg.RunRequest(partition_key=u, run_key=f"nightly:{stamp}:{u}:{fp}",
                          tags=run_tags("schedule", data.root, **{"vak/trigger": "nightly", "vak/nightly": stamp,
                                                                  "vak/upload": u}))
            for u, fp in sorted(todo.items())]
