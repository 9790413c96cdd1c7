"""Dagster config and resources are the library's settings models (one definition each): the launchpad
shows their defaults, descriptions and choices, and a bad value is refused before any step runs."""

from __future__ import annotations

import dagster as dg
import pytest

from vak_pipeline.audio.expectations import AudioBounds
from vak_pipeline.audio.settings import NormalizeSettings
from vak_pipeline.defs.config import RunConfigError, check_run_config
from vak_pipeline.defs.ingest import AudioBoundsConfig, NormalizeConfig
from vak_pipeline.defs.outputs import (
    CascadedExportConfig,
    MoshiLoraConfig,
    ParquetExportConfig,
    SplitsConfig,
    TurnBasedExportConfig,
)
from vak_pipeline.defs.privacy import RedactionConfig, redacted_manifest
from vak_pipeline.defs.resources import DataResource, WhisperResource
from vak_pipeline.defs.speech import TagConfig, TurnBoundsConfig
from vak_pipeline.recipes.cascaded import CascadedConfig
from vak_pipeline.recipes.moshi_lora import MoshiConfig
from vak_pipeline.recipes.parquet import ParquetConfig
from vak_pipeline.recipes.turn_based import TurnBasedConfig
from vak_pipeline.redaction.settings import RedactionSettings
from vak_pipeline.speech.asr import AsrSettings
from vak_pipeline.speech.expectations import TurnBounds
from vak_pipeline.speech.stage import TagSettings
from vak_pipeline.splits import SplitConfig

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
    (WhisperResource, AsrSettings),
    (TagConfig, TagSettings),
]


def _fields(config_cls) -> dict:
    return config_cls.to_config_schema().as_field().config_type.fields


@pytest.mark.parametrize(("config_cls", "model"), PAIRS, ids=[p[0].__name__ for p in PAIRS])
def test_the_dagster_config_is_the_library_model(config_cls, model):
    assert issubclass(config_cls, model)
    fields = _fields(config_cls)
    assert set(model.model_fields) <= set(fields)
    for name, info in model.model_fields.items():
        if info.description:
            assert fields[name].description == info.description


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
