"""Review tasks: the shipped labeling config is a conversational view naming every language and PII type; a
call with a doubtful turn becomes one task, pre-filled as predictions, with turn ids made of conversation and
time; the redacted release's audio and text by default, the private ones only when asked."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from vak_pipeline.locales.registry import PACKS
from vak_pipeline.pii.recognizers import PLACEHOLDER_PREFIX
from vak_pipeline.review.settings import ReviewSettings
from vak_pipeline.review.tasks import LABEL_CONFIG, export_tasks, region_id

from .builders import make_call, rebuild

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def call(tmp_path_factory):
    layout = make_call(tmp_path_factory.mktemp("call"))
    rebuild(layout)
    return layout


def test_the_shipped_config_is_a_conversational_view_with_every_language_and_pii_type():
    root = ET.parse(LABEL_CONFIG).getroot()
    tags = {el.get("name"): el for el in root.iter() if el.get("name")}
    assert tags["audio"].tag == "Audio" and tags["audio"].get("sync") == "dialogue"
    assert tags["dialogue"].tag == "Paragraphs" and tags["dialogue"].get("layout") == "dialogue"
    assert tags["dialogue"].get("sync") == "audio"
    assert tags["speaker"].tag == "Labels" and {x.get("value") for x in tags["speaker"]} == {"agent", "user"}
    assert tags["text"].tag == "TextArea" and tags["text"].get("perRegion") == "true"
    assert tags["text"].get("editable") == "true"
    assert tags["lang"].tag == "Choices" and tags["lang"].get("perRegion") == "true"
    assert {x.get("value") for x in tags["lang"]} == {x for p in PACKS.values() for x in p.languages}
    assert tags["pii"].tag == "ParagraphLabels" and tags["pii"].get("toName") == "dialogue"
    assert {x.get("value") for x in tags["pii"]} == set(PLACEHOLDER_PREFIX)


def test_a_low_confidence_turn_makes_its_conversation_one_task_prefilled_as_predictions(call):
    res = export_tasks(call)
    assert (res.tasks, res.turns, res.flagged_turns, res.reasons) == (1, 3, 1, {"asr_logprob": 1})
    [task] = json.loads(call.root.joinpath("work/review/tasks.json").read_text())
    data = task["data"]
    assert data["conv_id"] == "calls-call" and data["basis"] == "redacted"
    assert data["audio"] == "/data/local-files/?d=work/calls/release/audio/calls-call.wav"  # the masked copy
    assert [t["flags"] for t in data["turns"]] == [[], ["asr_logprob"], []]
    assert [t["rid"] for t in data["turns"]] == [region_id("calls-call", t["start"], t["end"]) for t in data["turns"]]
    assert [d["author"] for d in data["dialogue"]] == ["agent", "user", "agent"]
    result = task["predictions"][0]["result"]
    by = {(r["id"], r["from_name"]): r["value"] for r in result}
    user = data["turns"][1]
    assert by[(user["rid"], "speaker")]["labels"] == ["user"]
    assert by[(user["rid"], "text")]["text"] == ["i want to change my billing adress"]
    assert by[(user["rid"], "lang")]["choices"] == ["en"]
    assert (by[(user["rid"], "text")]["start"], by[(user["rid"], "text")]["end"]) == (2.3, 4.1)


def test_the_same_inputs_and_settings_write_the_same_tasks(call):
    path = call.root / "work/review/tasks.json"
    export_tasks(call)
    first = path.read_bytes()
    export_tasks(call)
    assert path.read_bytes() == first


def test_nothing_doubtful_exports_nothing_and_chosen_conversations_export_every_turn(call, tmp_path):
    strict = export_tasks(call, ReviewSettings(max_avg_logprob=-5), tmp_path / "none.json")
    assert strict.tasks == 0 and json.loads((tmp_path / "none.json").read_text()) == []
    chosen = export_tasks(call, ReviewSettings(conversations=["calls-call"]), tmp_path / "chosen.json")
    assert (chosen.tasks, chosen.flagged_turns, chosen.reasons) == (1, 3, {"chosen": 3})


def test_private_audio_and_text_only_with_the_explicit_setting(call, tmp_path):
    export_tasks(call, ReviewSettings(private_audio=True), tmp_path / "p.json")
    [task] = json.loads((tmp_path / "p.json").read_text())
    assert task["data"]["basis"] == "private"
    assert task["data"]["audio"].endswith("work/calls/audio/calls-call.wav")


def test_review_settings_are_the_dagster_config_of_the_export_asset():
    from vak_pipeline.defs.review import ReviewConfig

    assert set(ReviewConfig.model_fields) >= set(ReviewSettings.model_fields)


def test_the_review_tasks_asset_writes_the_tasks_with_its_run_config(call):
    import dagster as dg

    from vak_pipeline.defs.resources import DataResource
    from vak_pipeline.defs.review import review_tasks

    with dg.instance_for_test() as instance:
        res = dg.materialize([review_tasks], resources={"data": DataResource(root=str(call.root))}, instance=instance,
                             run_config={"ops": {"review_tasks": {"config": {"conversations": ["calls-call"]}}}},
                             selection=[review_tasks])
    assert res.success
    meta = res.asset_materializations_for_node("review_tasks")[0].metadata
    assert meta["dagster/row_count"].value == 1 and meta["flagged_turns"].value == 3
