"""One run config file serves `vak run`'s two jobs: each job gets the `ops` entries it has (ingest: workers
for audio and redaction; publish: exports), and a misspelt op name is still an error."""

from __future__ import annotations

import dagster as dg
import pytest

from vak_pipeline.orchestrate import _ingest_job, _publish_job, config_for_job

RC = {"ops": {"normalized_audio": {"config": {"workers": 2}}, "redacted_manifest": {"config": {"workers": 2}},
              "splits": {"config": {}}}}


def test_each_job_gets_its_own_op_config():
    ingest, publish = _ingest_job(), _publish_job()
    assert set(config_for_job(ingest, RC)["ops"]) == {"normalized_audio", "redacted_manifest"}
    assert set(config_for_job(publish, RC)["ops"]) == {"splits"}
    dg.validate_run_config(ingest, config_for_job(ingest, RC))


def test_a_misspelt_op_name_is_still_reported():
    job = _ingest_job()
    rc = config_for_job(job, {"ops": {"redacted_manifets": {"config": {"workers": 2}}}})
    with pytest.raises(dg.DagsterInvalidConfigError, match="redacted_manifets"):
        dg.validate_run_config(job, rc)
