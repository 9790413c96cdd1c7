"""Dagster config and resources are the library's settings models (one definition each): the launchpad
shows their defaults, descriptions and choices, and a bad value is refused before any step runs."""

from __future__ import annotations

import dagster as dg
import pytest

from vak_pipeline.audio.settings import NormalizeSettings
from vak_pipeline.defs.config import RunConfigError, check_run_config, library_settings
from vak_pipeline.defs.ingest import AudioBoundsConfig, NormalizeConfig
from vak_pipeline.defs.outputs import (
    CascadedExportConfig,
    DuplexS2SExportConfig,
    MoshiLoraConfig,
    ParquetExportConfig,
    SplitsConfig,
    TurnBasedExportConfig,
)
from vak_pipeline.defs.privacy import RedactionConfig, redacted_manifest
from vak_pipeline.defs.resources import DataResource, DiarizerResource, WhisperResource
from vak_pipeline.defs.speech import TagConfig, TranscribeConfig, TurnBoundsConfig, transcripts
from vak_pipeline.defs.synth import GapModelConfig, SynthConfig, synth
from vak_pipeline.layout import DataLayout
from vak_pipeline.quality.audio import AudioBounds
from vak_pipeline.quality.turns import TurnBounds
from vak_pipeline.recipes.cascaded import CascadedConfig
from vak_pipeline.recipes.duplex_s2s import DuplexS2SConfig
from vak_pipeline.recipes.moshi_lora import MoshiConfig
from vak_pipeline.recipes.parquet import ParquetConfig
from vak_pipeline.recipes.turn_based import TurnBasedConfig
from vak_pipeline.redaction.settings import RedactionSettings
from vak_pipeline.speech.asr import AsrSettings
from vak_pipeline.speech.cleanup import CleanupSettings
from vak_pipeline.speech.diarize import DiarizerSettings
from vak_pipeline.speech.stage import TagSettings
from vak_pipeline.splits import SplitConfig
from vak_pipeline.synth.settings import GapModel, SynthSettings

from ..builders import write_manifest

PAIRS = [
    (NormalizeConfig, NormalizeSettings),
    (AudioBoundsConfig, AudioBounds),
    (TurnBoundsConfig, TurnBounds),
    (RedactionConfig, RedactionSettings),
    (SplitsConfig, SplitConfig),
    (MoshiLoraConfig, MoshiConfig),
    (TurnBasedExportConfig, TurnBasedConfig),
    (CascadedExportConfig, CascadedConfig),
    (ParquetExportConfig, ParquetConfig),
    (DuplexS2SExportConfig, DuplexS2SConfig),
    (WhisperResource, AsrSettings),
    (DiarizerResource, DiarizerSettings),
    (TagConfig, TagSettings),
    (TranscribeConfig, CleanupSettings),
    (SynthConfig, SynthSettings),
    (GapModelConfig, GapModel),
]


def _fields(config_cls) -> dict:
    return config_cls.to_config_schema().as_field().config_type.fields


@pytest.mark.parametrize(("config_cls", "model"), PAIRS, ids=[p[0].__name__ for p in PAIRS])
def test_the_dagster_config_is_the_library_model(config_cls, model):
    """Every library field, a new one included, reaches the launchpad with the library's default and description."""
    assert issubclass(config_cls, model)
    fields = _fields(config_cls)
    assert set(model.model_fields) <= set(fields)
    defaults = model().model_dump(mode="json")  # a tuple shows as the list Dagster holds
    for name, info in model.model_fields.items():
        assert fields[name].description == info.description
        assert fields[name].default_provided and fields[name].default_value == defaults[name], name


def test_a_config_turns_back_into_the_library_model_in_its_types():
    values = {"channel_map": {"0": "agent", "1": "user"}, "tool_latency_s": [1.0, 2.5], "gap_model": {"median_s": 0.9}}
    settings = library_settings(SynthConfig(**values), SynthSettings)
    assert type(settings) is SynthSettings and type(settings.gap_model) is GapModel
    assert settings == SynthSettings(**values) and settings.tool_latency_s == (1.0, 2.5)
    assert settings.fingerprint() == SynthSettings(**values).fingerprint()
    resource = DiarizerResource(engine="offline", num_speakers=None)
    assert resource.settings() == DiarizerSettings(engine="offline", num_speakers=None)


def test_a_pinned_gap_model_in_run_config_reaches_the_synth_stage(tmp_path):
    layout = DataLayout.at(tmp_path)
    write_manifest(layout.redacted("u1"), [])
    config = {"enabled": False, "gap_model": {"median_s": 0.9, "overlap_probability": 0.1}}
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["u1"])
        result = dg.materialize([synth], partition_key="u1", instance=instance,
                                resources={"data": DataResource(root=str(tmp_path))},
                                run_config={"ops": {"synth": {"config": config}}})
    gaps = result.asset_materializations_for_node("synth")[0].metadata["gap_model"].value
    assert gaps == {**GapModel(median_s=0.9, overlap_probability=0.1).model_dump(), "source": "config"}


def test_choices_are_enums_and_descriptions_reach_the_launchpad():
    method = _fields(RedactionConfig)["audio_method"].config_type
    assert sorted(v.config_value for v in method.enum_values) == ["silence", "tone"]
    assert _fields(WhisperResource)["batch_size"].description == AsrSettings.model_fields["batch_size"].description
    assert _fields(NormalizeConfig)["quality"].default_value == "HQ"


def test_a_bad_choice_is_refused_at_launch_before_any_step_runs(tmp_path):
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["u1"])
        with pytest.raises(dg.DagsterInvalidConfigError, match="audio_method"):
            dg.materialize(
                [redacted_manifest],
                partition_key="u1",
                instance=instance,
                resources={"data": DataResource(root=str(tmp_path))},
                run_config={"ops": {"redacted_manifest": {"config": {"audio_method": "beep"}}}},
            )
        assert instance.get_runs() == []
    assert not (tmp_path / "work").exists()


SYNTH_BAD = [
    ({"engine": "say"}, "engine"),
    ({"channel_map": {"0": "caller"}}, "channel_map"),  # roles are an enum in the map
    ({"tool_latency_s": "slow"}, "tool_latency_s"),
    ({"gap_model": {"median_s": "fast"}}, "median_s"),
    ({"gap_model": {"median": 0.3}}, "median"),
]


@pytest.mark.parametrize(("config", "field"), SYNTH_BAD, ids=[f for _, f in SYNTH_BAD])
def test_a_bad_synth_value_is_refused_at_launch_before_any_step_runs(tmp_path, config, field):
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["u1"])
        with pytest.raises(dg.DagsterInvalidConfigError, match=field):
            dg.materialize([synth], partition_key="u1", instance=instance,
                           resources={"data": DataResource(root=str(tmp_path))},
                           run_config={"ops": {"synth": {"config": config}}})
        assert instance.get_runs() == []
    assert not (tmp_path / "work").exists()


@pytest.mark.parametrize(("config", "field"), [({"engine": "magic"}, "engine"), ({"device": "tpu"}, "device")])
def test_a_bad_diarizer_choice_is_refused_at_launch_before_any_step_runs(tmp_path, config, field):
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["u1"])
        with pytest.raises(dg.DagsterInvalidConfigError, match=field):
            dg.materialize([transcripts], partition_key="u1", instance=instance,
                           resources={"data": DataResource(root=str(tmp_path)), "whisper": WhisperResource(),
                                      "diarizer": DiarizerResource()},
                           run_config={"resources": {"diarizer": {"config": config}}})
        assert instance.get_runs() == []
    assert not (tmp_path / "work").exists()


OUT_OF_RANGE = [
    ({"ops": {"synth": {"config": {"tool_latency_s": [1.0]}}}}, r"ops\.synth\.config: tool_latency_s"),
    ({"ops": {"synth": {"config": {"gap_model": {"median_s": 0}}}}}, r"ops\.synth\.config: gap_model\.median_s"),
    ({"ops": {"synth": {"config": {"rate_wpm": 10}}}}, r"ops\.synth\.config: rate_wpm"),
    ({"resources": {"diarizer": {"config": {"num_speakers": 0}}}}, r"resources\.diarizer\.config\.num_speakers"),
]


@pytest.mark.parametrize(("run_config", "where"), OUT_OF_RANGE, ids=["pair", "nested", "range", "resource"])
def test_a_value_outside_a_library_constraint_is_refused_by_the_run_config_check(run_config, where):
    """Dagster has no range or length type; check_run_config applies the library's constraints."""
    from vak_pipeline.definitions import build_defs

    job = build_defs("in_process").resolve_job_def("ingest_job")
    with pytest.raises(RunConfigError, match=where):
        check_run_config(job, run_config)


def test_a_value_outside_a_constraint_is_refused_before_any_run_starts(tmp_path):
    """Dagster has no range type: `vak run` builds every op's config first, so workers=0 never starts a run."""
    from vak_pipeline.orchestrate import run_pipeline

    (tmp_path / "raw" / "u1").mkdir(parents=True)
    with dg.instance_for_test() as instance:
        with pytest.raises(RunConfigError, match=r"ops\.normalized_audio\.config: workers"):
            run_pipeline(
                tmp_path,
                run_config={"ops": {"normalized_audio": {"config": {"workers": 0}}}},
                instance=instance,
                echo=lambda _: None,
            )
        assert instance.get_runs() == []
    assert not (tmp_path / "work").exists()


def test_the_resource_refuses_a_bad_value_when_it_is_set_up(tmp_path):
    from vak_pipeline.definitions import build_defs

    job = build_defs("in_process").resolve_job_def("ingest_job")
    check_run_config(job, {"resources": {"data": {"config": {"root": str(tmp_path)}}}})
    with pytest.raises(RunConfigError, match="whisper"):
        check_run_config(job, {"resources": {"whisper": {"config": {"device": "tpu"}}}})


def test_vak_run_refuses_a_resource_value_outside_a_constraint_before_any_run_starts(tmp_path):
    from vak_pipeline.orchestrate import run_pipeline

    (tmp_path / "raw" / "u1").mkdir(parents=True)
    with dg.instance_for_test() as instance:
        with pytest.raises(RunConfigError, match=r"resources\.diarizer\.config\.num_speakers"):
            run_pipeline(tmp_path, run_config={"resources": {"diarizer": {"config": {"num_speakers": 0}}}},
                         instance=instance, echo=lambda _: None)
        assert instance.get_runs() == []
    assert not (tmp_path / "work").exists()


def test_the_transcripts_config_is_the_clean_up_settings_with_every_threshold():
    """A switch or a threshold set in the launchpad reaches the speech stage as CleanupSettings."""
    config = TranscribeConfig(bleed={"enabled": False}, hallucination={"no_speech_prob": 0.9})
    settings = library_settings(config, CleanupSettings)
    assert settings.bleed.enabled is False and settings.hallucination.no_speech_prob == 0.9
    assert settings.hallucination.max_repeats == CleanupSettings().hallucination.max_repeats
    assert settings.fingerprint() != CleanupSettings().fingerprint()  # a new key: the recordings re-transcribe
