"""Dagster layer of the speech stage: resources overridable per run, transcripts -> tagged_turns, GX turn checks."""

import json
import shutil
from pathlib import Path

import dagster as dg
import pytest

from vak_pipeline.audio.stage import normalize_upload
from vak_pipeline.defs.resources import DataResource, default_resources
from vak_pipeline.defs.speech import (
    GPU_OP_TAGS,
    DiarizerResource,
    WhisperResource,
    tagged_turns,
    tagged_turns_gx,
    transcripts,
)
from vak_pipeline.layout import DataLayout
from vak_pipeline.quality.turns import TURN_CHECKS
from vak_pipeline.speech.stage import cache_key

pytestmark = pytest.mark.slow  # real models (tiny.en, pyannote): seconds, still run in CI

FIX = Path(__file__).parents[1] / "fixtures" / "speech"


def test_default_resources_include_whisper_and_the_offline_diarizer_when_no_pyannote_weights_are_here():
    res = default_resources("/tmp/x")
    assert isinstance(res["whisper"], WhisperResource) and res["whisper"].model == ""
    assert isinstance(res["diarizer"], DiarizerResource) and res["diarizer"].engine == "auto"
    assert res["diarizer"].diarizer().engine == "offline:resemblyzer"
    assert DiarizerResource(engine="none").diarizer() is None


def test_transcripts_runs_in_the_gpu_pool_with_k8s_and_dask_gpu_requirements():
    assert transcripts.op.pool == "gpu"
    assert json.loads(transcripts.op.tags["dagster-k8s/config"]) == GPU_OP_TAGS["dagster-k8s/config"]
    assert "dagster-dask/resource_requirements" in transcripts.op.tags


def test_materialize_with_run_config_overriding_whisper_settings(tmp_path):
    up = tmp_path / "raw" / "calls"
    up.mkdir(parents=True)
    shutil.copy(FIX / "stereo_two_voices.flac", up / "stereo.flac")
    (up / "upload.yaml").write_text('locale: en-US\nsource: synthetic\nconsent: synthetic\n'
                                    'channel_map: {"0": "user", "1": "agent"}\n', encoding="utf-8")
    layout = DataLayout.at(tmp_path)
    assert normalize_upload(layout, "calls").recordings == 1
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["calls"])
        result = dg.materialize(
            [transcripts, tagged_turns, tagged_turns_gx], instance=instance, partition_key="calls",
            resources={"data": DataResource(root=str(tmp_path)), "whisper": WhisperResource(beam_size=5),
                       "diarizer": DiarizerResource()},
            run_config=dg.RunConfig(resources={"whisper": {"config": {"beam_size": 1, "cpu_threads": 2,
                                                                      "device": "cpu"}}}))
        assert result.success
        md = result.asset_materializations_for_node("transcripts")[0].metadata
        assert md["engine"].value == "faster-whisper-tiny.en" and md["transcribed"].value == 1
        # the run-config value (beam 1), not the bound one (beam 5), shaped the transcript
        row = json.loads(layout.transcripts("calls").read_text())
        from vak_pipeline.audio.stage import read_audio_index

        expected = cache_key(read_audio_index(layout, "calls")[0],
                             WhisperResource(beam_size=1, cpu_threads=2, device="cpu").settings(), None)
        assert row["cache_key"] == expected
        turns_md = result.asset_materializations_for_node("tagged_turns")[0].metadata
        assert turns_md["from_audio"].value == 1
        checks = {e.check_name: e for e in result.get_asset_check_evaluations()}
        assert set(checks) == set(TURN_CHECKS)
        assert all(e.severity == dg.AssetCheckSeverity.WARN for e in checks.values())
        assert checks["turn_text_nonempty"].passed and checks["turn_lang_declared"].passed
