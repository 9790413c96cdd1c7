"""turn_based and cascaded exports: the consumers' message rules (LLaMA-Factory/ms-swift, OpenAI, NeMo, LJSpeech)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import soundfile as sf

from vak_pipeline.recipes.cascaded import CascadedConfig, export_cascaded
from vak_pipeline.recipes.chat import check_chat_example
from vak_pipeline.recipes.turn_based import TurnBasedConfig, export_turn_based
from vak_pipeline.schema import VakRecord
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import (
    dominant_frequency,
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

FIXTURE = Path(__file__).parents[1] / "fixtures" / "format" / "example_record.json"
ALL_TRAIN = SplitConfig(ratios={"train": 1.0, "validation": 0.0, "test": 0.0})


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def dataset(root: Path, records: list[VakRecord]) -> Path:
    write_manifest(root / "vakforge.jsonl", records)
    split_manifest(root / "vakforge.jsonl", root / "splits.json", ALL_TRAIN)
    return root


@pytest.fixture
def example_call(tmp_path):
    """The format document's example record, with a 16 s recording: user 440 Hz on ch0, agent 1 kHz on ch1."""
    record = VakRecord.model_validate_json(FIXTURE.read_text())
    record.meta.speakers = {"agent": "priya", "user": "cust-17"}
    write_wav(tmp_path / "audio" / "conv_000123.wav", [tone(440, 16.0), tone(1000, 16.0)])
    return dataset(tmp_path, [record])


def every_call_answered(messages: list[dict]) -> bool:
    calls = [c["id"] for m in messages for c in m.get("tool_calls", [])]
    answers = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    return sorted(calls) == sorted(answers)


def test_turn_based_messages_and_audios_line_up(example_call):
    result = export_turn_based(example_call)
    (ex,) = lines(result.out_dir / "train.jsonl")
    msgs = ex["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool", "assistant"]
    assert sum(m["content"].count("<audio>") for m in msgs) == len(ex["audios"]) == 1
    assert isinstance(ex["tools"], str) and json.loads(ex["tools"])[0]["function"]["name"] == "check_status"
    call = msgs[2]["tool_calls"][0]
    assert call["type"] == "function" and json.loads(call["function"]["arguments"]) == {"customer_id": "SC-4471"}
    assert every_call_answered(msgs)
    assert result.counts["overlap_dropped"] == 1 and result.counts["final_unanswered_tool_call_trimmed"] == 1
    clip, rate = sf.read(result.out_dir / ex["audios"][0], dtype="int16", always_2d=True)
    assert rate == 24000 and clip.shape[1] == 1 and sf.info(result.out_dir / ex["audios"][0]).subtype == "PCM_16"
    assert dominant_frequency(clip[:, 0]) == pytest.approx(440, abs=5)  # cut from the user's channel
    (target,) = lines(result.out_dir / "train.targets.jsonl")
    assert len(target["assistant_audios"]) == 2  # one list per assistant message
    agent_clip, _ = sf.read(result.out_dir / target["assistant_audios"][1][0], dtype="int16")
    assert dominant_frequency(agent_clip) == pytest.approx(1000, abs=5)
    referenced = set(ex["audios"]) | {a for g in target["assistant_audios"] for a in g}
    on_disk = {str(p.relative_to(result.out_dir)) for p in (result.out_dir / "audio").rglob("*.wav")}
    assert on_disk == referenced  # clips of trimmed or dropped turns are not left behind


def test_turn_based_merge_keeps_the_overlapping_turn(example_call):
    result = export_turn_based(example_call, TurnBasedConfig(overlap_policy="merge"))
    (ex,) = lines(result.out_dir / "train.jsonl")
    assistant = ex["messages"][2]
    assert assistant["content"] == "Ek minute, check karti hoon." and assistant["tool_calls"][0]["id"] == "call_1"
    assert result.counts["overlap_merged"] == 1


def test_turn_based_skips_text_only_records(tmp_path):
    root = dataset(tmp_path, [make_record("t1", {"user": "u"})])
    result = export_turn_based(root)
    assert lines(result.out_dir / "skipped.jsonl")[0]["code"] == "no_audio"
    assert (result.out_dir / "train.jsonl").read_text() == ""


def test_cascaded_llm_is_openai_fine_tuning_shape(example_call):
    result = export_cascaded(example_call, CascadedConfig(parts=["llm"]))
    (ex,) = lines(result.out_dir / "llm/train.jsonl")
    assert check_chat_example(ex) == []
    assert ex["tools"][1] == {"type": "function", "function": {
        "name": "book_appointment", "description": "Book a technician visit",
        "parameters": json.loads(FIXTURE.read_text())["tools"][1]["parameters"]}}
    assert ex["parallel_tool_calls"] is False
    msgs = ex["messages"]
    assert msgs[0]["role"] == "system" and msgs[1]["role"] == "user" and msgs[-1]["role"] == "assistant"
    assert "Charge" in msgs[-1]["content"]  # trimmed back to the last assistant text before the hanging call
    tool_msg = next(m for m in msgs if m["role"] == "tool")
    assert tool_msg["tool_call_id"] == "call_1" and json.loads(tool_msg["content"])["status"] == "fault_reported"
    for m in msgs:
        for c in m.get("tool_calls", []):
            assert isinstance(c["function"]["arguments"], str)
    assert every_call_answered(msgs)


def test_parallel_calls_share_one_assistant_message(tmp_path):
    turns = [turn("user", 0, 1, "where are my orders"), tool_call(1.1, "a", "lookup", order="1"),
             tool_call(1.1, "b", "lookup", order="2"), tool_result(1.2, "b", "shipped"),
             tool_result(1.2, "a", ["packed", 2]), turn("agent", 1.3, 2.0, "one is packed, one shipped")]
    root = dataset(tmp_path, [make_record("p1", {"user": "u"}, turns, tools=[make_tool("lookup", order="string")])])
    (ex,) = lines(export_cascaded(root, CascadedConfig(parts=["llm"])).out_dir / "llm/train.jsonl")
    assert [m["role"] for m in ex["messages"]] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert [c["id"] for c in ex["messages"][2]["tool_calls"]] == ["a", "b"]
    assert ex["parallel_tool_calls"] is True
    # b's result came back first; the results are put in the calls' order, each with its call's id
    assert [(m["tool_call_id"], m["content"]) for m in ex["messages"][3:5]] == [("a", '["packed",2]'), ("b", "shipped")]


def test_a_call_left_hanging_mid_conversation_is_skipped_with_reasons(tmp_path):
    turns = [turn("user", 0, 1, "hi"), tool_call(1.1, "x", "lookup"), turn("agent", 1.2, 2, "anything else?"),
             turn("user", 2.1, 3, "no"), turn("agent", 3.1, 4, "bye")]
    good = make_record("ok", {"user": "u2"})
    root = dataset(tmp_path, [make_record("bad", {"user": "u1"}, turns, tools=[make_tool("lookup")]), good])
    result = export_cascaded(root, CascadedConfig(parts=["llm"]))
    (skipped,) = lines(result.out_dir / "skipped.jsonl")
    assert skipped["id"] == "bad" and skipped["part"] == "llm" and "not answered" in skipped["reason"]
    assert len(lines(result.out_dir / "llm/train.jsonl")) == 1 and result.skipped == {"llm:chat_rules": 1}


@pytest.mark.parametrize("messages, reason", [
    ([{"role": "assistant", "content": "hi"}], "first non-system message must be from the user"),
    ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""}], "empty assistant content"),
    ([{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "a", "content": "x"},
      {"role": "assistant", "content": "ok"}], "must follow an assistant message with tool_calls"),
    ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": {"k": 1}}}]},
      {"role": "tool", "tool_call_id": "a", "content": "x"}, {"role": "assistant", "content": "ok"}],
     "arguments must be a JSON string"),
    ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}, {"role": "system", "content": "s"},
      {"role": "assistant", "content": "ok"}], "system message may only come first"),
    ([{"role": "user", "content": "hi"}, {"role": "narrator", "content": "x"}], "is not one of"),
    ([{"role": "user", "content": "hi"}], "last message must be from the assistant"),
])
def test_chat_checker_rules(messages, reason):
    assert any(reason in r for r in check_chat_example({"messages": messages}))


def test_cascaded_stt_and_tts_sets(tmp_path):
    write_wav(tmp_path / "audio" / "c1.wav", [tone(1000, 4.0), tone(440, 4.0)])
    turns = [turn("user", 0.0, 1.0, "my number is <PHONE_1>"), turn("agent", 1.1, 2.0, "thanks | noted"),
             turn("user", 2.1, 3.0, "ok"), turn("agent", 3.1, 4.0, "all\ndone")]
    rec = make_record("c1", {"agent": "priya", "user": "u1"}, turns, audio=make_audio("c1", 4.0))
    root = dataset(tmp_path, [rec, make_record("t1", {"user": "u2"})])
    result = export_cascaded(root)
    stt = lines(result.out_dir / "stt/train.jsonl")
    assert [s["text"] for s in stt] == ["thanks | noted", "ok", "all done"]  # the placeholder turn is left out
    assert all(set(s) == {"audio_filepath", "duration", "text", "lang"} for s in stt)
    assert all((result.out_dir / "stt" / s["audio_filepath"]).is_file() for s in stt)
    assert stt[1]["duration"] == pytest.approx(0.9)
    meta = (result.out_dir / "tts/priya/metadata.csv").read_text()
    assert meta == "c1_0003|all done|all done\n"  # LJSpeech: id|text|normalized; the turn with "|" is skipped
    assert (result.out_dir / "tts/priya/wavs/c1_0003.wav").is_file()
    assert result.counts["speech_turns_dropped_placeholder"] == 1
    codes = {(s["id"], s.get("part"), s["code"]) for s in lines(result.out_dir / "skipped.jsonl")}
    assert codes == {("c1", "tts", "pipe_in_text"), ("t1", "stt", "no_audio"), ("t1", "tts", "no_audio")}
    assert len(lines(result.out_dir / "llm/train.jsonl")) == 2  # text-only records still train the LLM
