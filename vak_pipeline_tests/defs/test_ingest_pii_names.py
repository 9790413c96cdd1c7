"""Issue 26 (1): an upload folder whose name carries PII never becomes a partition key.

Partition keys are shown in the UI, run tags and the event log, so the upload sensor skips such a folder
with a warning that names the type and character range (never the value) and says to rename it.
"""

from __future__ import annotations

import dagster as dg

from vak_pipeline.defs.ingest import upload_sensor
from vak_pipeline.defs.resources import DataResource

from ..ingest_fixtures import make_upload, write_wav


def test_the_sensor_does_not_register_an_upload_named_after_a_caller(tmp_path):
    write_wav(make_upload(tmp_path, "sept-calls") / "x.wav", seconds=1.5)
    write_wav(make_upload(tmp_path, "calls_+919876543210") / "x.wav", seconds=1.5)
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, cursor=None,
                                     resources={"data": DataResource(root=str(tmp_path))}) as ctx:
            result = upload_sensor(ctx)
    assert result.dynamic_partitions_requests[0].partition_keys == ["sept-calls"]
    assert [r.partition_key for r in result.run_requests] == ["sept-calls"]
    assert "9876543210" not in result.cursor
