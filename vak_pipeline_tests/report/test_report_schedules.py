"""upload_sensor and nightly_reingest ask for ingest runs only for uploads that are new or changed since their
last ingest; what `vak run` ingested is left alone. The one answer is read from the stage reports
(report.freshness): each names its upstream's output, the first ones the upload's fingerprint."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import dagster as dg

from vak_pipeline.defs.ingest import nightly_reingest, upload_sensor
from vak_pipeline.defs.resources import DataResource
from vak_pipeline.layout import DataLayout
from vak_pipeline.report import freshness
from vak_pipeline.report.freshness import is_ingested, uploads_to_ingest
from vak_pipeline.uploads.inventory import inventory

NIGHT = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)


def _upload(layout: DataLayout, name: str, ingested: bool) -> None:
    up = layout.upload_dir(name)
    up.mkdir(parents=True)
    (up / "chat.messages.jsonl").write_text('{"id": "x", "messages": []}\n')
    if ingested:  # what an ingest that got to the end leaves behind, whoever launched it: every stage ran
        ingest(layout, name)


def ingest(layout: DataLayout, name: str, run_key: str = "") -> None:
    """The ingest stages in graph order, as the assets call them (no recording: no model is loaded)."""
    from vak_pipeline.audio.stage import normalize_upload
    from vak_pipeline.redaction.stage import redact_upload
    from vak_pipeline.speech.stage import tag_upload, transcribe_upload
    from vak_pipeline.synth import SynthSettings, synth_upload

    layout.work(name).mkdir(parents=True, exist_ok=True)
    layout.inventory(name).write_text(inventory(layout.upload_dir(name)).model_dump_json())  # raw_uploads
    normalize_upload(layout, name, run_key=run_key)
    transcribe_upload(layout, name, run_key=run_key)
    tag_upload(layout, name, run_key=run_key)
    redact_upload(layout, name, run_key=run_key)
    synth_upload(layout, name, SynthSettings(enabled=False), run_key=run_key)


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
    from vak_pipeline.audio.stage import normalize_upload
    from vak_pipeline.speech.stage import tag_upload, transcribe_upload

    layout = DataLayout.at(tmp_path)
    _upload(layout, "half", ingested=True)
    (layout.upload_dir("half") / "more.messages.jsonl").write_text('{"id": "z", "messages": []}\n')
    layout.inventory("half").write_text(inventory(layout.upload_dir("half")).model_dump_json())
    normalize_upload(layout, "half")  # a new run got as far as tagged_turns; redaction and synth did not run
    transcribe_upload(layout, "half")
    tag_upload(layout, "half")
    assert not is_ingested(layout, "half")
    ingest(layout, "half")
    assert is_ingested(layout, "half")
    layout.synth_report("half").unlink()  # what an erasure does: the next run re-ingests
    assert not is_ingested(layout, "half")


def test_a_stage_version_bump_or_other_settings_mean_not_ingested(tmp_path, monkeypatch):
    layout = DataLayout.at(tmp_path)
    _upload(layout, "u", ingested=False)
    ingest(layout, "u", run_key="k1")
    assert is_ingested(layout, "u") and is_ingested(layout, "u", run_key="k1")
    assert not is_ingested(layout, "u", run_key="k2")  # `vak run --config` asks for its own settings
    monkeypatch.setattr(freshness, "SYNTH_VERSION", "bumped")
    assert not is_ingested(layout, "u")


def test_nothing_changed_means_no_nightly_run(tmp_path):
    layout = DataLayout.at(tmp_path)
    _upload(layout, "done", ingested=True)
    with dg.instance_for_test() as instance:
        with dg.build_schedule_context(
            instance=instance, scheduled_execution_time=NIGHT, resources={"data": DataResource(root=str(tmp_path))}
        ) as ctx:
            assert isinstance(nightly_reingest(ctx), dg.SkipReason)
