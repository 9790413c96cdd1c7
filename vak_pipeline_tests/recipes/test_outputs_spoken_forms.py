"""Text targets say what the audio says (recipes/spoken.py): a synthesized placeholder is its spoken
surrogate, a masked one is nothing with its gap marked, every placeholder form is known (one definition),
and tool results come in their calls' order."""

from __future__ import annotations

import json

import pytest

from vak_pipeline.pii import PLACEHOLDER_RE, UPSTREAM_PLACEHOLDER_RE
from vak_pipeline.recipes.duplex_s2s import DuplexS2SConfig, export_duplex_s2s, nemo_data_block
from vak_pipeline.recipes.moshi_lora import export_moshi_lora
from vak_pipeline.recipes.spoken import SpokenForms, spoken_forms, spoken_mismatch
from vak_pipeline.recipes.turn_based import LLAMAFACTORY_TEMPLATES, export_turn_based
from vak_pipeline.schema import Alignment, AudioSynthesis, Word
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import (
    make_audio,
    make_record,
    make_tool,
    tone,
    tool_call,
    tool_result,
    turn,
    write_manifest,
    write_wav,
)

ALL_TRAIN = SplitConfig(ratios={"train": 1.0, "validation": 0.0, "test": 0.0})
SPOKEN_ID = "T W, 6 4 9 2 1"


@pytest.mark.parametrize("token", ["<SECRET>", "<PER_1>", "<PHONE_12>", "<CN_ID_1>", "<EMAIL>"])
def test_every_placeholder_form_the_importers_accept_is_one_definition(token):
    from vak_pipeline.redaction import redact
    from vak_pipeline.synth import surrogates

    assert PLACEHOLDER_RE.fullmatch(token)
    assert surrogates.PLACEHOLDER is PLACEHOLDER_RE is UPSTREAM_PLACEHOLDER_RE is redact._ANY_PLACEHOLDER
    assert SpokenForms().text(f"it is {token} ok") == "it is ok"


def test_spoken_text_is_the_surrogate_where_spoken_and_nothing_where_masked():
    forms = SpokenForms({"<ID_1>": SPOKEN_ID}, synthesized=True)
    assert forms.text("ref <ID_1>, and <SECRET>.") == f"ref {SPOKEN_ID}, and."
    assert forms.word("<ID_1>,") == ["T", "W,", "6", "4", "9", "2", "1,"]
    assert forms.word("<SECRET>") is None and forms.word("hello") == ["hello"]
    assert forms.unspoken("<ID_1> <PER_1>") == ["<PER_1>"]  # synthesized, but no surrogate known for <PER_1>
    assert SpokenForms().unspoken("<PER_1>") == []  # a recording: masked, nothing to know


def call(root, conv_id="c1", synthesized=False, words=None, turns=None):
    write_wav(root / "audio" / f"{conv_id}.wav", [tone(1000, 4.0), tone(440, 4.0)])
    audio = make_audio(conv_id, 4.0)
    if synthesized:
        audio = audio.model_copy(update={"synthesis": AudioSynthesis(
            engine="espeak-ng", engine_version="1.51", voices={"agent": "a1", "user": "u1"}, settings_hash="x")})
    turns = turns or [turn("agent", 0.0, 1.0, "hello there"), turn("user", 1.2, 3.6, "my id is <ID_1>, and <SECRET>.")]
    words = words or [Word(word="hello", start=0.1, end=0.4, speaker="agent", turn=0),
                      Word(word="there", start=0.5, end=0.9, speaker="agent", turn=0),
                      Word(word="my", start=1.3, end=1.5, speaker="user", turn=1),
                      Word(word="id", start=1.6, end=1.8, speaker="user", turn=1),
                      Word(word="is", start=1.9, end=2.0, speaker="user", turn=1),
                      Word(word="<ID_1>,", start=2.1, end=3.0, speaker="user", turn=1),
                      Word(word="and", start=3.05, end=3.2, speaker="user", turn=1),
                      Word(word="<SECRET>.", start=3.25, end=3.5, speaker="user", turn=1)]
    (root / "alignments").mkdir(exist_ok=True)
    (root / "alignments" / f"{conv_id}.json").write_text(Alignment(conversation_id=conv_id, words=words)
                                                          .model_dump_json())
    speakers = {"agent": "a1", "user": "u1"}
    write_manifest(root / "vakforge.jsonl", [make_record(conv_id, speakers, turns, audio=audio)])
    split_manifest(root / "vakforge.jsonl", root / "splits.json", ALL_TRAIN)
    return root


def sidecar(root, conv_id="c1", surrogates=(("<ID_1>", SPOKEN_ID),)):
    (root / "raw" / "up").mkdir(parents=True, exist_ok=True)
    path = root / "work" / "up" / "synth" / f"{conv_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"conversation_id": conv_id, "surrogates": [
        {"placeholder": p, "type": "ID", "value": "TW-64921", "spoken": s, "turn": 1, "start_s": 2.1,
         "end_s": 3.0, "channel": 1} for p, s in surrogates]}))


def moshi_words(root):
    return json.loads((root / "exports/moshi_lora/train/c1.json").read_text())


def test_moshi_drops_a_masked_placeholder_and_marks_its_gap(tmp_path):
    export_moshi_lora(call(tmp_path))
    out = moshi_words(tmp_path)
    assert [w[0] for w in out["alignments"]] == ["hello", "there", "my", "id", "is", "and"]
    assert out["masked"] == [[2.1, 3.0], [3.25, 3.5]]  # where the audio is silent, the text has a gap


def test_moshi_says_the_surrogate_synth_spoke_over_its_audio(tmp_path):
    root = call(tmp_path, synthesized=True, turns=[turn("agent", 0.0, 1.0, "hello there"),
                                                   turn("user", 1.2, 3.6, "my id is <ID_1>, and")])
    sidecar(root)
    result = export_moshi_lora(root)
    out = moshi_words(root)
    spoken = [w for w in out["alignments"] if 2.1 <= w[1][0] and w[1][1] <= 3.0]
    assert [w[0] for w in spoken] == ["T", "W,", "6", "4", "9", "2", "1,"]
    assert spoken[0][1][0] == 2.1 and spoken[-1][1][1] == 3.0 and all(w[2] == "SPEAKER_OTHER" for w in spoken)
    assert result.counts["words_surrogate_spoken"] == 1


def test_a_synthesized_call_without_its_surrogates_is_skipped_not_taught_a_hole(tmp_path):
    root = call(tmp_path, synthesized=True)  # no sidecar: what the audio says at <ID_1> is unknown
    result = export_moshi_lora(root)
    assert result.skipped == {"surrogates_missing": 1} and result.counts.get("conversations", 0) == 0


def test_duplex_supervision_text_says_the_surrogate_and_drops_a_masked_secret(tmp_path):
    root = call(tmp_path, synthesized=True)
    sidecar(root, surrogates=(("<ID_1>", SPOKEN_ID), ("<SECRET>", "K 7 Q 2")))
    import lhotse

    export_duplex_s2s(root)
    (cut,) = lhotse.CutSet.from_shar(in_dir=str(root / "exports/duplex_s2s/train")).to_eager()
    user = next(s for s in cut.supervisions if s.speaker == "user")
    assert user.text == f"my id is {SPOKEN_ID}, and K 7 Q 2."
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.schema import VakRecord

    rec = VakRecord.model_validate_json((root / "vakforge.jsonl").read_text().splitlines()[0])
    alignment = Alignment.model_validate_json((root / "alignments/c1.json").read_bytes())
    forms = spoken_forms(DataLayout.at(root), rec)
    assert spoken_mismatch(user.text, alignment, forms, 1) is None  # the check: text against the audio's words
    assert spoken_mismatch("my id is and.", alignment, forms, 1) is not None


def test_duplex_drops_an_unnumbered_secret_from_a_recording(tmp_path):
    import lhotse

    export_duplex_s2s(call(tmp_path))
    (cut,) = lhotse.CutSet.from_shar(in_dir=str(tmp_path / "exports/duplex_s2s/train")).to_eager()
    assert next(s for s in cut.supervisions if s.speaker == "user").text == "my id is, and."


def test_nemo_data_block_has_batch_settings_and_the_assistant_output_role():
    data = nemo_data_block(DuplexS2SConfig(), {"train": 1, "validation": 1})["data"]
    assert data["train_ds"]["batch_size"] == 4 and data["validation_ds"]["batch_size"] == 1
    assert data["output_roles"] == ["assistant"] and data["input_roles"] == ["user"]


def test_out_of_order_parallel_results_are_paired_with_their_calls_in_sharegpt(tmp_path):
    write_wav(tmp_path / "audio" / "p1.wav", [tone(1000, 4.0), tone(440, 4.0)])
    turns = [turn("user", 0.0, 1.0, "where are my orders"), tool_call(1.1, "call_a", "lookup", order="1"),
             tool_call(1.1, "call_b", "lookup", order="2"), tool_result(1.2, "call_b", "B shipped"),
             tool_result(1.3, "call_a", "A packed"), turn("agent", 1.5, 3.0, "one is packed, one shipped")]
    rec = make_record("p1", {"agent": "a", "user": "u"}, turns, audio=make_audio("p1", 4.0),
                      tools=[make_tool("lookup", order="string")])
    write_manifest(tmp_path / "vakforge.jsonl", [rec])
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json", ALL_TRAIN)
    result = export_turn_based(tmp_path)
    assert result.counts["tool_results_reordered"] == 1
    (main,) = [json.loads(x) for x in (result.out_dir / "train.jsonl").read_text().splitlines()]
    assert [m["tool_call_id"] for m in main["messages"] if m["role"] == "tool"] == ["call_a", "call_b"]
    (lf,) = [json.loads(x) for x in (result.out_dir / "llamafactory/train.jsonl").read_text().splitlines()]
    calls = next(t for t in lf["conversations"] if t["from"] == "function_call")["value"]
    obs = next(t for t in lf["conversations"] if t["from"] == "observation")["value"]
    assert [c["arguments"]["order"] for c in json.loads(calls)] == ["1", "2"]
    assert obs.index("A packed") < obs.index("B shipped")  # position k answers call k


def test_the_llamafactory_templates_listed_are_those_that_read_function_messages():
    assert "gemma3n" not in LLAMAFACTORY_TEMPLATES  # LLaMA-Factory: "Invalid JSON format in function message"
    assert {"qwen2_audio", "qwen2_omni"} <= set(LLAMAFACTORY_TEMPLATES)


def test_a_surrogate_map_linked_from_outside_the_data_root_is_not_read(tmp_path):
    root = call(tmp_path / "data", synthesized=True)
    sidecar(tmp_path / "elsewhere")
    (root / "raw" / "up").mkdir(parents=True)
    (root / "work" / "up").mkdir(parents=True)
    (root / "work" / "up" / "synth").symlink_to(tmp_path / "elsewhere" / "work" / "up" / "synth")
    assert export_moshi_lora(root).skipped == {"surrogates_missing": 1}
