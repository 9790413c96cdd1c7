"""Jobs by asset group, so they pick up assets other modules define without importing them.

Group "uploads": every per-upload (partitioned) asset, raw_uploads -> ... -> redacted_manifest.
Group "dataset": every unpartitioned asset, validated_manifest -> splits -> exports, steward report.
"""

import os

import dagster as dg

from .tags import run_tags

# what a run launched from the UI carries; `vak run`, the sensor and the schedule set their own tags
UI_TAGS = run_tags("ui", os.environ.get("VAK_DATA", "data"))

ingest_job = dg.define_asset_job(
    "ingest_job", selection=dg.AssetSelection.groups("uploads"),  # partitioned by uploads (inferred)
    description="One upload from raw files to its redacted manifest (sensor-triggered per upload).", tags=UI_TAGS)

publish_job = dg.define_asset_job(
    "publish_job", selection=dg.AssetSelection.groups("dataset"),
    description="Validate the manifest, split it, build every export and the steward report; `release` then "
                "swaps the candidate in or blocks it (verdict.json and a BLOCKED steward report).", tags=UI_TAGS)
