"""Language-fit ASR: a transcript by a model that does not cover the call's language is flagged and kept out
of every text target (STT, LLM, TTS) by default, and counted."""

from __future__ import annotations

import json

import pytest

from vak_pipeline.recipes.cascaded import CascadedConfig, export_cascaded
from vak_pipeline.speech.language_fit import model_languages, unfit_asr_turns
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import make_audio, make_record, tone, turn, write_manifest, write_wav

ALL_TRAIN = SplitConfig(ratios={"train": 1.0, "validation": 0.0, "test": 0.0})


@pytest.mark.parametrize(
    ("engine", "languages"),
    [
        ("faster-whisper-tiny.en", {"en"}),
        ("small.en", {"en"}),
        ("distil-large-v3", {"en"}),
        ("Systran/faster-distil-whisper-small.en", {"en"}),
        ("faster-whisper-large-v3", None),
        ("medium", None),
        ("tiny", None),
    ],
)
def test_english_only_checkpoints_are_known(engine, languages):
    assert model_languages(engine) == languages


def hinglish_call(cid: str, engine: str, locale: str = "hi-Latn-IN", lang: str = "en", **meta):
    # tiny.en turns Hinglish into English-looking text that detect_lang then tags `en`
    turns = [
        turn("user", 0.0, 1.0, "my inverter is off since tomorrow", lang=lang),
        turn("agent", 1.1, 2.0, "one minute I check", lang=lang),
    ]
    return make_record(
        cid,
        {"agent": "a", "user": f"u-{cid}"},
        turns,
        audio=make_audio(cid, 2.0),
        locale=locale,
        transcription={"engine": engine, **meta},
    )


def test_unfit_turns_follow_the_locale_and_the_turn_language():
    assert set(unfit_asr_turns(hinglish_call("c", "faster-whisper-tiny.en"))) == {0, 1}
    assert unfit_asr_turns(hinglish_call("c", "faster-whisper-large-v3")) == {}
    assert unfit_asr_turns(hinglish_call("c", "faster-whisper-tiny.en", locale="en-IN")) == {}
    assert set(unfit_asr_turns(hinglish_call("c", "tiny.en", locale="en-IN", lang="hi-Latn"))) == {0, 1}
    assert unfit_asr_turns(hinglish_call("c", "tiny.en", verified_by_human=True)) == {}  # a person checked it


def test_cascaded_keeps_unfit_transcripts_out_of_stt_tts_and_llm(tmp_path):
    for cid in ("bad", "good"):
        write_wav(tmp_path / "audio" / f"{cid}.wav", [tone(300, 2.0), tone(500, 2.0)])
    records = [hinglish_call("bad", "faster-whisper-tiny.en"), hinglish_call("good", "faster-whisper-large-v3")]
    write_manifest(tmp_path / "vakforge.jsonl", records)
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json", ALL_TRAIN)
    result = export_cascaded(tmp_path)
    stt = [json.loads(x) for x in (result.out_dir / "stt/train.jsonl").read_text().splitlines()]
    assert {s["audio_filepath"].split("/")[2] for s in stt} == {"good"}
    assert all(not line.startswith("bad_") for line in (result.out_dir / "tts/a/metadata.csv").read_text().splitlines())
    llm = (result.out_dir / "llm/train.jsonl").read_text().splitlines()
    assert len(llm) == 1
    assert result.counts["speech_turns_dropped_asr_language_unfit"] == 2
    assert result.skipped["llm:asr_language_unfit"] == 1
    kept = export_cascaded(tmp_path, CascadedConfig(asr_language_unfit="keep"), out_dir=tmp_path / "kept")
    assert kept.counts["stt_clips"] == 4 and kept.counts["llm_examples"] == 2
