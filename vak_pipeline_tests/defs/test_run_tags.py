"""Every run says the data root it really used and who launched it (ui, sensor, schedule, cli, backfill),
whatever launched it: an asset's Materialize button, the launchpad on another root, the sensors, the
nightly schedule."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import pytest

from vak_pipeline.defs.automation import republish_after_ingest
from vak_pipeline.defs.ingest import nightly_reingest, raw_uploads, upload_sensor
from vak_pipeline.defs.resources import DataResource
from vak_pipeline.defs.tags import launcher_of

pytestmark = pytest.mark.timeout(300)


def _dataset(root: Path) -> Path:
    up = root / "raw" / "partner"
    up.mkdir(parents=True)
    (up / "chat.messages.jsonl").write_text('{"id": "x", "messages": []}\n')
    return root


def test_a_materialize_button_run_on_another_root_is_tagged_ui_with_that_root(tmp_path):
    """What the UI's Materialize button launches: the asset's own selection, no job tags of ours; its
    `data` resource set to a root other than the default."""
    root = _dataset(tmp_path / "other-root")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["partner"])
        res = dg.materialize([raw_uploads], partition_key="partner", instance=instance,
                             resources={"data": DataResource(root="data")},
                             run_config={"resources": {"data": {"config": {"root": str(root)}}}})
        tags = instance.get_run_by_id(res.run_id).tags
    assert res.success
    assert tags["vak/launched_by"] == "ui" and tags["vak/data"] == str(root.resolve())


def test_a_sensor_launched_publish_is_tagged_sensor_with_the_root_its_ingest_used(tmp_path):
    root = _dataset(tmp_path / "d")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["partner"])
        ingest = dg.materialize([raw_uploads], partition_key="partner", instance=instance,
                                resources={"data": DataResource(root=str(root))},
                                tags={"vak/launched_by": "sensor", "vak/data": str(root)})
        with dg.build_run_status_sensor_context(
                sensor_name="republish_after_ingest", dagster_instance=instance,
                dagster_run=instance.get_run_by_id(ingest.run_id), dagster_event=ingest.get_run_success_event(),
                resources={"data": DataResource()}) as ctx:
            request = republish_after_ingest(ctx)
    assert isinstance(request, dg.RunRequest)
    assert request.tags["vak/launched_by"] == "sensor" and request.tags["vak/data"] == str(root.resolve())


def test_the_upload_sensor_and_the_nightly_schedule_tag_their_runs(tmp_path):
    root = _dataset(tmp_path / "d")
    resources = {"data": DataResource(root=str(root))}
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, cursor=None, resources=resources) as ctx:
            sensed = upload_sensor(ctx).run_requests
        night = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)
        with dg.build_schedule_context(instance=instance, scheduled_execution_time=night, resources=resources) as ctx:
            nightly = nightly_reingest(ctx)
    assert [(r.tags["vak/launched_by"], r.tags["vak/data"]) for r in sensed] == [("sensor", str(root.resolve()))]
    assert [(r.tags["vak/launched_by"], r.tags["vak/data"]) for r in nightly] == [("schedule", str(root.resolve()))]


@pytest.mark.parametrize(("tags", "launcher"), [
    ({}, "ui"),
    ({"dagster/backfill": "abc"}, "backfill"),
    ({"dagster/schedule_name": "nightly_reingest"}, "schedule"),
    ({"dagster/sensor_name": "upload_sensor"}, "sensor"),
    ({"vak/launched_by": "cli", "dagster/backfill": "abc"}, "cli"),
])
def test_the_launcher_of_a_run_without_our_tag_is_read_from_dagsters_tags(tags, launcher):
    assert launcher_of(tags) == launcher
