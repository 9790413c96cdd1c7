"""The Dagster layer of ingestion: assets, GX checks, the upload sensor, the nightly schedule, the jobs."""

from __future__ import annotations

import json
from datetime import datetime

import dagster as dg
import numpy as np

from vak_pipeline.defs.ingest import nightly_reingest, normalized_audio, normalized_audio_gx, raw_uploads, upload_sensor
from vak_pipeline.defs.jobs import ingest_job, publish_job
from vak_pipeline.defs.resources import DataResource

from ..ingest_fixtures import make_upload, write_wav


def test_assets_materialize_an_upload_and_checks_warn_about_bad_recordings(tmp_path):
    up = make_upload(tmp_path)
    write_wav(up / "good.wav", seconds=2.0)
    write_wav(up / "short.wav", seconds=0.3, seed=1)  # under the 1 s minimum duration
    clipped = np.clip(np.random.default_rng(2).standard_normal((44100 * 2, 2)), -1, 1).astype(np.float32)
    write_wav(up / "clipped.wav", data=clipped, subtype="FLOAT")
    (up / "broken.wav").write_bytes(b"")
    resources = {"data": DataResource(root=str(tmp_path))}
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["up1"])
        result = dg.materialize([raw_uploads, normalized_audio, normalized_audio_gx], partition_key="up1",
                                resources=resources, instance=instance)
        assert result.success
        raw_md = result.asset_materializations_for_node("raw_uploads")[0].metadata
        assert raw_md["files"].value == 5 and raw_md["files_by_kind"].data == {"audio": 4, "descriptor": 1}
        assert (tmp_path / "work/up1/inventory.json").is_file()
        event = instance.get_latest_materialization_event(dg.AssetKey("raw_uploads"))
        assert event.asset_materialization.tags["dagster/data_version"] == raw_md["fingerprint"].value

        md = result.asset_materializations_for_node("normalized_audio")[0].metadata
        assert md["dagster/row_count"].value == 3 and md["failed"].value == 1 and md["decoded"].value == 4
        [row] = md["failed_files"].value.records
        assert row.data["file"] == "up1/broken.wav" and row.data["code"] == "audio_empty_file"

        evals = {e.check_name: e for e in result.get_asset_check_evaluations()}
        assert set(evals) == {"audio_sample_rate", "audio_duration", "audio_silence_ratio", "audio_clipping_ratio"}
        assert evals["audio_sample_rate"].passed and evals["audio_silence_ratio"].passed
        assert not evals["audio_duration"].passed and not evals["audio_clipping_ratio"].passed
        assert evals["audio_duration"].severity == dg.AssetCheckSeverity.WARN
        failing = evals["audio_duration"].metadata["failing_recordings"].value.records
        assert [(r.data["conv_id"], r.data["file"]) for r in failing] == [("up1-short", "short.wav")]
        assert "duration_s=0.3" in failing[0].data["failed"]

        # a second run decodes nothing
        again = dg.materialize([normalized_audio], partition_key="up1", resources=resources, instance=instance)
        md2 = again.asset_materializations_for_node("normalized_audio")[0].metadata
        assert md2["decoded"].value == 0 and md2["unchanged"].value == 4


def test_sensor_adds_new_uploads_and_requests_runs_only_for_new_or_changed_ones(tmp_path):
    a = make_upload(tmp_path, "a")
    write_wav(a / "x.wav", seconds=0.2)
    make_upload(tmp_path, "b")
    (tmp_path / "raw" / ".hidden").mkdir()
    resources = {"data": DataResource(root=str(tmp_path))}
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, cursor=None, resources=resources) as ctx:
            first = upload_sensor(ctx)
        assert first.dynamic_partitions_requests[0].partition_keys == ["a", "b"]
        assert [r.partition_key for r in first.run_requests] == ["a", "b"]
        cursor = json.loads(first.cursor)
        assert first.run_requests[0].run_key == f"a:{cursor['a']}"
        instance.add_dynamic_partitions("uploads", ["a", "b"])

        with dg.build_sensor_context(instance=instance, cursor=first.cursor, resources=resources) as ctx:
            quiet = upload_sensor(ctx)
        assert not quiet.run_requests and not quiet.dynamic_partitions_requests

        write_wav(a / "y.wav", seconds=0.2, seed=1)  # a changed upload ...
        make_upload(tmp_path, "c")  # ... and a new one
        with dg.build_sensor_context(instance=instance, cursor=first.cursor, resources=resources) as ctx:
            later = upload_sensor(ctx)
        assert later.dynamic_partitions_requests[0].partition_keys == ["c"]
        assert sorted(r.partition_key for r in later.run_requests) == ["a", "c"]
        assert next(r for r in later.run_requests if r.partition_key == "a").run_key != first.run_requests[0].run_key


def test_nightly_schedule_reingests_changed_uploads_and_publish_follows(tmp_path):
    # issue 18: the nightly schedule re-ingests what changed; republish_after_ingest publishes after it
    from vak_pipeline.defs.automation import republish_after_ingest

    with dg.instance_for_test() as instance:
        with dg.build_schedule_context(instance=instance, scheduled_execution_time=datetime(2026, 1, 2, 2, 0),
                                       resources={"data": DataResource(root=str(tmp_path))}) as ctx:
            assert isinstance(nightly_reingest(ctx), dg.SkipReason)  # nothing uploaded, nothing to do
    assert nightly_reingest.cron_schedule == "0 2 * * *" and nightly_reingest.job_name == "ingest_job"
    assert republish_after_ingest.job_name == "publish_job"


def test_jobs_select_by_group():
    defs = dg.Definitions(assets=[raw_uploads, normalized_audio], asset_checks=[normalized_audio_gx],
                          jobs=[ingest_job, publish_job], sensors=[upload_sensor], schedules=[nightly_reingest],
                          resources={"data": DataResource(root="data")})
    job = defs.resolve_job_def("ingest_job")
    assert {k.to_user_string() for k in job.asset_layer.selected_asset_keys} >= {"raw_uploads", "normalized_audio"}
    assert upload_sensor.job_name == "ingest_job"
