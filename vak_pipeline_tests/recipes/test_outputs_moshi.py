"""moshi_lora export: exactly what kyutai moshi-finetune reads (notes/formats.md §4.1)."""

from __future__ import annotations

import json

import pytest
import soundfile as sf

from vak_pipeline.manifest_hash import manifest_hash
from vak_pipeline.recipes.moshi_lora import MoshiConfig, export_moshi_lora
from vak_pipeline.schema import Alignment, Word
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import dominant_frequency, make_audio, make_record, tone, write_manifest, write_wav

RATE = 24000
ALL_TRAIN = SplitConfig(ratios={"train": 1.0, "validation": 0.0, "test": 0.0})


def dataset(root, records, split_config=ALL_TRAIN):
    write_manifest(root / "vakforge.jsonl", records)
    split_manifest(root / "vakforge.jsonl", root / "splits.json", split_config)
    return root


@pytest.fixture
def user_left_call(tmp_path):
    """A call recorded user-left (440 Hz tone) / agent-right (1 kHz tone): the export must swap it."""
    write_wav(tmp_path / "audio" / "c1.wav", [tone(440, 4.0), tone(1000, 4.0)])
    audio = make_audio("c1", 4.0, channel_map={"0": "user", "1": "agent"})
    words = [Word(word="sure", start=1.1, end=1.4, speaker="agent"), Word(word="hello", start=0.0, end=0.4,
             speaker="user"), Word(word="uh", start=2.0, end=2.0, speaker="agent"),
             Word(word="<PHONE_1>", start=2.5, end=2.9, speaker="user"),
             Word(word="check", start=3.1, end=3.5, speaker="agent")]
    (tmp_path / "alignments").mkdir()
    (tmp_path / "alignments" / "c1.json").write_text(Alignment(conversation_id="c1", words=words).model_dump_json())
    return dataset(tmp_path, [make_record("c1", {"agent": "priya", "user": "u1"}, audio=audio)])


def test_agent_is_on_channel_0_measured_from_the_exported_audio(user_left_call):
    export_moshi_lora(user_left_call)
    data, rate = sf.read(user_left_call / "exports/moshi_lora/train/c1.wav", dtype="int16", always_2d=True)
    assert rate == RATE and data.shape[1] == 2
    assert dominant_frequency(data[:, 0]) == pytest.approx(1000, abs=5)  # agent, left
    assert dominant_frequency(data[:, 1]) == pytest.approx(440, abs=5)  # user, right


def test_alignments_sorted_labelled_and_without_zero_length_words(user_left_call):
    export_moshi_lora(user_left_call)
    al = json.loads((user_left_call / "exports/moshi_lora/train/c1.json").read_text())["alignments"]
    assert al == [["hello", [0.0, 0.4], "SPEAKER_OTHER"], ["sure", [1.1, 1.4], "SPEAKER_MAIN"],
                  ["check", [3.1, 3.5], "SPEAKER_MAIN"]]  # "uh" has zero length; the placeholder is dropped
    starts = [w[1][0] for w in al]
    assert starts == sorted(starts)
    main_only = export_moshi_lora(user_left_call, MoshiConfig(user_words=False))
    al = json.loads((main_only.out_dir / "train/c1.json").read_text())["alignments"]
    assert {w[2] for w in al} == {"SPEAKER_MAIN"}


def test_index_paths_are_relative_to_the_index_and_build_names_the_manifest(user_left_call):
    result = export_moshi_lora(user_left_call)
    out = user_left_call / "exports/moshi_lora"
    lines = [json.loads(x) for x in (out / "train.jsonl").read_text().splitlines()]
    assert lines == [{"path": "train/c1.wav", "duration": 4.0}]
    assert (out / lines[0]["path"]).is_file()
    assert (out / "validation.jsonl").read_text() == "" and (out / "test.jsonl").exists()
    build = json.loads((out / "build.json").read_text())
    assert build["manifest_hash"] == manifest_hash(user_left_call / "vakforge.jsonl") == result.manifest_hash
    assert build["counts"]["conversations"] == 1 and build["config"]["allow_synthetic_stereo"] is False


def test_missing_alignments_spread_turn_words_and_are_flagged(tmp_path):
    write_wav(tmp_path / "audio" / "c1.wav", [tone(1000, 4.0), tone(440, 4.0)])
    root = dataset(tmp_path, [make_record("c1", {"agent": "a"}, audio=make_audio("c1", 4.0))])
    result = export_moshi_lora(root)
    al = json.loads((result.out_dir / "train/c1.json").read_text())["alignments"]
    sure = [w for w in al if w[0] == "sure"][0]
    assert sure[1] == [1.1, 1.28] and sure[2] == "SPEAKER_MAIN"  # "sure what is the problem" over 1.1-2.0
    assert result.flags == {"derived_word_times": 1}


def test_mono_is_refused_unless_synthetic_stereo_is_allowed(tmp_path):
    write_wav(tmp_path / "audio" / "m1.wav", [tone(300, 4.0)])
    rec = make_record("m1", {"agent": "a"}, audio=make_audio("m1", 4.0, channels=1))
    text_only = make_record("t1", {"agent": "b"})
    root = dataset(tmp_path, [rec, text_only])
    refused = export_moshi_lora(root)
    skipped = [json.loads(x) for x in refused.skipped_path.read_text().splitlines()]
    assert {(s["id"], s["code"]) for s in skipped} == {("m1", "mono_refused"), ("t1", "no_audio")}
    allowed = export_moshi_lora(root, MoshiConfig(allow_synthetic_stereo=True))
    assert allowed.flags["synthetic_stereo"] == 1
    data, _ = sf.read(allowed.out_dir / "train/m1.wav", dtype="int16", always_2d=True)
    # user turn 0.0-1.0 s: only the user channel carries sound; agent turn 1.1-2.0 s: only the agent channel
    assert not data[int(0.2 * RATE):int(0.9 * RATE), 0].any() and data[int(0.2 * RATE):int(0.9 * RATE), 1].any()
    assert data[int(1.2 * RATE):int(1.9 * RATE), 0].any() and not data[int(1.2 * RATE):int(1.9 * RATE), 1].any()
