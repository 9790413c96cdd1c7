"""Issue 26 (5): the input limits are set in one place, `InputLimits` (the data resource's `limits` in Dagster),
and every stage that reads an upload honours a lowered one: normalize, tagged_turns and the text import,
redaction (the descriptor's names) and synth (the descriptor, and a turn too long to speak)."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import pytest

from vak_pipeline.audio.stage import normalize_upload
from vak_pipeline.defs.resources import DataResource
from vak_pipeline.layout import DataLayout
from vak_pipeline.redaction.stage import descriptor_names
from vak_pipeline.sources.text import import_text_upload
from vak_pipeline.synth.settings import SynthSettings
from vak_pipeline.synth.stage import over_limits, upload_channel_map
from vak_pipeline.uploads.limits import InputLimits
from vak_pipeline_tests.builders import make_record
from vak_pipeline_tests.hardening_inputs import UPLOAD_YAML, seed_lines

pytestmark = pytest.mark.timeout(180)
# a valid descriptor of about 1.5 KB: under the default 1 MiB, over a lowered 1 KiB
YAML = UPLOAD_YAML + "names: [Priya Sharma]\nchannel_map: {'0': user, '1': agent}\n" + "# padding\n" * 120
SMALL = InputLimits(max_descriptor_bytes=1024)


def _layout(tmp_path: Path) -> DataLayout:
    up = tmp_path / "data" / "raw" / "up"
    up.mkdir(parents=True)
    (up / "upload.yaml").write_text(YAML)
    (up / "m.messages.jsonl").write_bytes(seed_lines(".messages.jsonl")[0] + b"\n")
    return DataLayout.at(tmp_path / "data")


def test_a_lowered_descriptor_limit_is_honoured_by_every_stage(tmp_path):
    layout = _layout(tmp_path)
    assert len(YAML) > 1024
    assert "descriptor_too_large" not in {i.code for i in normalize_upload(layout, "up").issues}
    assert "descriptor_too_large" in {i.code for i in normalize_upload(layout, "up", limits=SMALL).issues}
    assert descriptor_names(layout, "up") == ("Priya Sharma",) and descriptor_names(layout, "up", SMALL) == ()
    assert upload_channel_map(layout, "up") is not None and upload_channel_map(layout, "up", SMALL) is None
    out = tmp_path / "out.jsonl"
    assert import_text_upload(layout.upload_dir("up"), out)[0] == 1
    count, issues = import_text_upload(layout.upload_dir("up"), out, SMALL)
    assert count == 0 and "descriptor_too_large" in {i.code for i in issues}


def test_synth_does_not_speak_a_turn_over_a_lowered_input_limit():
    rec = make_record("c", turns=[("user", 0.0, 1.0, "x" * 50)])
    assert over_limits(rec, SynthSettings()) is None
    why, setting, turn = over_limits(rec, SynthSettings(), InputLimits(max_turn_chars=10))
    assert (setting, turn) == ("limits.max_turn_chars", 0) and "50 characters" in why


def test_the_data_resource_carries_the_limits_to_the_tagged_turns_asset(tmp_path):
    from vak_pipeline.defs.speech import tagged_turns

    layout = _layout(tmp_path)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["up"])
        res = dg.materialize([tagged_turns], partition_key="up", instance=instance, resources={
            "data": DataResource(root=str(layout.root), limits={"max_turn_chars": 3})})
    assert res.success
    lines = layout.conversations("up").read_text(encoding="utf-8").splitlines()
    assert lines == []  # the one chat has a turn longer than 3 characters: refused
    report = json.loads(layout.speech_report("up").read_text())
    assert "messages_turn_too_long" in json.dumps(report)
    assert DataResource().input_limits == InputLimits()
