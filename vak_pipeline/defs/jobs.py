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



@dg.failure_hook(required_resource_keys={"data"})
def block_release_on_failure(context: dg.HookContext) -> None:
    """A publish step that failed (an export crashed ...) stops the run before `release` decides: block the
    candidate here, so it still gets its verdict.json and BLOCKED steward report, whatever launched the run."""
    from vak_pipeline.report.decision import block_candidate, block_sentence

    exc = context.op_exception
    first = (str(exc).strip().splitlines() or [""])[0] if exc is not None else "see the step's logs"
    reason = f"step {context.step_key} failed: {type(exc).__name__ if exc is not None else 'Error'}: {first}"
    layout = context.resources.data.layout
    verdict = block_candidate(layout, [reason], run_id=context.run_id)
    context.log.error(block_sentence(verdict, layout))


publish_job = dg.define_asset_job(
    "publish_job", selection=dg.AssetSelection.groups("dataset"), hooks={block_release_on_failure},
    description="Validate the manifest, split it, build every export and the steward report; `release` then "
                "swaps the candidate in or blocks it (verdict.json and a BLOCKED steward report).", tags=UI_TAGS)
