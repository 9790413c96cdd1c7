"""upload_sensor and nightly_reingest ask for ingest runs only for uploads that are new or changed since their
last ingest; what `vak run` ingested (its marker and inventory) is left alone."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import dagster as dg

from vak_pipeline.defs.ingest import nightly_reingest, upload_sensor
from vak_pipeline.defs.resources import DataResource
from vak_pipeline.layout import DataLayout
from vak_pipeline.uploads.ingested import is_ingested, mark_ingested, uploads_to_ingest
from vak_pipeline.uploads.inventory import inventory

NIGHT = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)


def _upload(layout: DataLayout, name: str, ingested: bool) -> None:
    up = layout.upload_dir(name)
    up.mkdir(parents=True)
    (up / "chat.messages.jsonl").write_text('{"id": "x", "messages": []}\n')
    if ingested:  # what an ingest that got to the end leaves behind, whoever launched it
        layout.work(name).mkdir(parents=True)
        layout.inventory(name).write_text(inventory(up).model_dump_json())
        layout.redacted(name).write_text("")
        assert mark_ingested(layout, name, code="c", run_config=None) is not None


def test_only_new_or_changed_uploads_are_requested(tmp_path):
    layout = DataLayout.at(tmp_path)
    _upload(layout, "done", ingested=True)
    _upload(layout, "new", ingested=False)
    assert is_ingested(layout, "done") and not is_ingested(layout, "new")
    resources = {"data": DataResource(root=str(tmp_path))}
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, cursor=None, resources=resources) as ctx:
            first = upload_sensor(ctx)
        assert [r.partition_key for r in first.run_requests] == ["new"]
        with dg.build_schedule_context(instance=instance, scheduled_execution_time=NIGHT, resources=resources) as ctx:
            nightly = nightly_reingest(ctx)
        assert [r.partition_key for r in nightly] == ["new"]
        assert all(r.tags["vak/trigger"] == "nightly" for r in nightly)

        f = layout.upload_dir("done") / "chat.messages.jsonl"  # the customer replaces a file
        f.write_text('{"id": "y", "messages": []}\n')
        os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 10**9))
        assert set(uploads_to_ingest(layout)) == {"done", "new"}
        with dg.build_sensor_context(instance=instance, cursor=first.cursor, resources=resources) as ctx:
            again = upload_sensor(ctx)
        assert [r.partition_key for r in again.run_requests] == ["done"]


def test_an_ingest_that_stopped_half_way_is_not_ingested(tmp_path):
    layout = DataLayout.at(tmp_path)
    _upload(layout, "half", ingested=True)
    layout.ingest_marker("half").unlink()  # raw_uploads removes it; the last step had not written it again
    assert not is_ingested(layout, "half")


def test_nothing_changed_means_no_nightly_run(tmp_path):
    layout = DataLayout.at(tmp_path)
    _upload(layout, "done", ingested=True)
    with dg.instance_for_test() as instance:
        with dg.build_schedule_context(
            instance=instance, scheduled_execution_time=NIGHT, resources={"data": DataResource(root=str(tmp_path))}
        ) as ctx:
            assert isinstance(nightly_reingest(ctx), dg.SkipReason)
