"""`vak run` renders the sample upload's messages chat (with a tool call) and aidb ticket as two-channel
calls that pass validation and reach the speech recipes, flagged as synthesized."""

from __future__ import annotations

import difflib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.layout import DataLayout
from vak_pipeline.orchestrate import run_pipeline
from vak_pipeline.recipes.moshi_lora import MoshiConfig, export_moshi_lora
from vak_pipeline.schema import Alignment, VakRecord

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "raw" / "sample-chats"
CHAT = "sample-chats-support-chat-order-001"  # messages record: user, JSON tool action, tool result, answer
TICKET = "sample-chats-tickets-t-1001"  # aidb ticket: <ID_1> <ADDR_1> <PER_1>, an internal note
DIGITS = {
    "zero": "0",
    "oh": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
}


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synth") / "data"
    shutil.copytree(SAMPLE, root / "raw" / "sample-chats")
    report = run_pipeline(root, echo=lambda _: None)
    assert report.success, report.runs
    return root


def record(root: Path, conv_id: str) -> VakRecord:
    for line in (root / "vakforge.jsonl").read_text(encoding="utf-8").splitlines():
        if json.loads(line)["id"] == conv_id:
            return VakRecord.model_validate_json(line)
    raise AssertionError(f"{conv_id} not in the manifest")


def channel_of(rec: VakRecord, role: str) -> int:
    return int(next(ch for ch, r in rec.audio.channel_map.items() if r == role))


@pytest.mark.parametrize("conv_id", [CHAT, TICKET])
def test_text_conversation_becomes_a_stereo_24k_call_with_each_speaker_only_on_its_channel(data, conv_id):
    rec = record(data, conv_id)
    assert rec.audio.sample_rate == 24000 and rec.audio.channels == 2 and rec.audio.synthesis is not None
    stereo, sr = sf.read(data / rec.audio.path, dtype="int16")
    assert sr == 24000 and stereo.shape[1] == 2
    assert abs(len(stereo) / sr - rec.audio.duration_s) < 0.01
    spoken = [t for t in rec.turns if t.is_spoken and t.text]
    assert {t.speaker for t in spoken} == {"agent", "user"}
    for role in ("agent", "user"):
        own = np.zeros(len(stereo), bool)
        for t in spoken:
            if t.speaker == role:
                own[int(t.start * sr) : int(t.end * sr) + 1] = True
                seg = stereo[int(t.start * sr) : int(t.end * sr), channel_of(rec, role)].astype(np.float64)
                assert np.sqrt(np.mean(seg**2)) > 300  # speech on the speaker's channel
        ch = stereo[:, channel_of(rec, role)].astype(np.int64)
        assert np.abs(ch[~own]).max(initial=0) == 0  # and nothing of it anywhere else
    assert np.abs(stereo[:, 0].astype(np.int64)).sum() > 0 and np.abs(stereo[:, 1].astype(np.int64)).sum() > 0


@pytest.mark.parametrize("conv_id", [CHAT, TICKET])
def test_alignments_are_the_records_words_sorted_inside_the_audio_and_their_turns(data, conv_id):
    rec = record(data, conv_id)
    words = Alignment.model_validate_json((data / "alignments" / f"{conv_id}.json").read_bytes()).words
    starts = [w.start for w in words]
    assert starts == sorted(starts)
    assert all(0 <= w.start < w.end <= rec.audio.duration_s for w in words)
    for i, t in enumerate(rec.turns):
        if t.is_spoken and t.text:
            mine = [w for w in words if w.turn == i]
            said = [x for x in t.text.split() if any(c.isalnum() for c in x)]
            assert [w.word for w in mine] == said  # every word timed, placeholders included
            assert all(t.start <= w.start and w.end <= t.end + 1e-3 for w in mine)
            assert {w.channel for w in mine} == {channel_of(rec, t.speaker)}


def test_tool_call_is_agent_silence_between_call_and_result(data):
    rec = record(data, CHAT)
    call = next(t for t in rec.turns if t.tool_call)
    result = next(t for t in rec.turns if t.tool_result)
    assert call.start == call.end < result.start == result.end
    stereo, sr = sf.read(data / rec.audio.path, dtype="int16")
    assert np.abs(stereo[int(call.start * sr) : int(result.start * sr), channel_of(rec, "agent")]).max() == 0


def test_placeholders_stay_in_the_text_and_are_spoken_as_one_surrogate_each(data):
    rec = record(data, TICKET)
    texts = " ".join(t.text for t in rec.turns if t.text)
    assert "<ID_1>" in texts and "<PER_1>" in texts  # the record keeps its placeholders
    side = json.loads(DataLayout.at(data).synth_sidecar("sample-chats", TICKET).read_text(encoding="utf-8"))
    values: dict[str, set[str]] = {}
    for row in side["surrogates"]:
        values.setdefault(row["placeholder"], set()).add(row["value"])
    assert set(values) == {"<ID_1>", "<ADDR_1>", "<PER_1>"}
    assert all(len(v) == 1 for v in values.values())  # <ID_1> twice, the same surrogate both times
    (sur_id,) = values["<ID_1>"]
    assert re.fullmatch(r"[A-Z]{2}-\d{5}", sur_id)

    # the audio says it: tiny.en hears the surrogate's digits in the turn that holds <ID_1>
    from vak_pipeline.speech.asr import AsrSettings, load_model, to_asr_rate

    row = next(r for r in side["surrogates"] if r["placeholder"] == "<ID_1>")
    turn = rec.turns[row["turn"]]
    assert turn.start <= row["start_s"] < row["end_s"] <= turn.end
    stereo, sr = sf.read(data / rec.audio.path, dtype="float32")
    seg = stereo[int(turn.start * sr) : int(turn.end * sr), row["channel"]]
    segments, _ = load_model(AsrSettings()).transcribe(to_asr_rate(seg, sr), language="en", beam_size=1)
    heard = " ".join(s.text for s in segments).lower()
    digits = "".join(DIGITS.get(w, w) for w in re.findall(r"[a-z]+|\d", heard) if w.isdigit() or w in DIGITS)
    said = difflib.SequenceMatcher(a=sur_id[-5:], b=digits, autojunk=False).get_matching_blocks()
    assert sum(b.size for b in said) >= 4, heard  # at least 4 of its 5 digits, in order (ASR slips allowed)


def test_provenance_text_keeps_its_consent_audio_says_synthesized_and_voices_are_the_speakers(data):
    rec = record(data, TICKET)
    syn = rec.audio.synthesis
    assert syn.engine == "espeak-ng" and syn.engine_version and syn.word_timing == "engine"
    assert rec.meta.source == "real" and rec.meta.consent == "written" and rec.meta.pii_redacted
    assert rec.meta.voice_consent_ref is None  # nobody's voice: no voice consent needed
    assert rec.meta.speakers == syn.voices
    assert syn.voices["agent"] != syn.voices["user"]
    assert "gap_model" in syn.settings and syn.settings_hash


def test_rendered_manifest_passes_vak_validate(data):
    res = CliRunner().invoke(app, ["validate", str(data)])
    assert res.exit_code == 0, res.output
    assert (data / "reports" / "rejected.jsonl").read_text(encoding="utf-8") == ""


@pytest.mark.parametrize("recipe", ["moshi_lora", "turn_based"])
def test_speech_recipes_take_the_rendered_calls_and_flag_them_synthesized(data, recipe):
    out = data / "exports" / recipe
    ext = ".ndjson" if recipe == "moshi_lora" else ".jsonl"  # moshi-finetune globs *jsonl: diagnostics are .ndjson
    build = json.loads((out / "build.json").read_text(encoding="utf-8"))
    flagged = [json.loads(x) for x in (out / f"flagged{ext}").read_text(encoding="utf-8").splitlines()]
    ids = {f["id"] for f in flagged if f["flag"] == "synthesized_audio"}
    assert {CHAT, TICKET} <= ids
    assert build["counts"]["synthesized_audio_rows"] == build["flags"]["synthesized_audio"] == len(ids)
    assert build["counts"]["conversations"] >= 2
    skipped = (out / f"skipped{ext}").read_text(encoding="utf-8")
    assert CHAT not in skipped and TICKET not in skipped


def test_cascaded_tts_leaves_synthesized_audio_out_by_default(data):
    build = json.loads((data / "exports" / "cascaded" / "build.json").read_text(encoding="utf-8"))
    assert build["counts"]["synthesized_audio_rows"] > 0 and build["counts"].get("tts_clips", 0) == 0
    assert build["skipped"]["tts:synthesized_audio"] > 0
    assert build["counts"]["stt_clips"] > 0


def test_a_recipe_setting_excludes_synthesized_rows(data, tmp_path):
    res = export_moshi_lora(data, MoshiConfig(synthesized_audio="exclude"), out_dir=tmp_path / "moshi")
    assert res.counts.get("conversations", 0) == 0
    assert res.skipped["synthesized_audio"] == res.counts["synthesized_audio_rows"] > 0
    assert "synthesized_audio" not in res.flags
