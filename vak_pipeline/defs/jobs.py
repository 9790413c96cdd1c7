"""Jobs by asset group, so they pick up assets other modules define without importing them.

Group "uploads": every per-upload (partitioned) asset, raw_uploads -> ... -> redacted_manifest -> synth.
Group "dataset": every unpartitioned asset, validated_manifest -> splits -> exports, steward report.

Neither job carries `vak/data` or `vak/launched_by` of its own: a constant would lie for a run on another
root or from a sensor; each run gets the true ones (defs/tags.py). publish runs carry `vak/writer: publish`,
which the instance files limit to one at a time; ingest runs are limited to one per upload partition.
"""

import os

import dagster as dg

from .tags import WRITER_TAG

ingest_job = dg.define_asset_job(
    "ingest_job", selection=dg.AssetSelection.groups("uploads"),  # partitioned by uploads (inferred)
    description="One upload from raw files to its redacted manifest (sensor-triggered per upload).")

publish_job = dg.define_asset_job(
    "publish_job", selection=dg.AssetSelection.groups("dataset"),
    description="Validate the manifest, split it, build every export and the steward report; `release` then "
                "swaps the candidate in or blocks it (verdict.json and a BLOCKED steward report).",
    tags={WRITER_TAG: "publish"})


def automation_on() -> bool:
    """VAK_AUTOMATION=on (a production server): the sensors and the nightly schedule start with the daemon;
    by default they are off until switched on in the UI."""
    return os.environ.get("VAK_AUTOMATION", "").lower() in ("on", "1", "true")


def sensor_status() -> dg.DefaultSensorStatus:
    return dg.DefaultSensorStatus.RUNNING if automation_on() else dg.DefaultSensorStatus.STOPPED


def schedule_status() -> dg.DefaultScheduleStatus:
    return dg.DefaultScheduleStatus.RUNNING if automation_on() else dg.DefaultScheduleStatus.STOPPED
