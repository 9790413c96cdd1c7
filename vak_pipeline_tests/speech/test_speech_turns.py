"""Segments -> turns: merging across short gaps, overlap, tool events in time order, the canonical record."""

import json
from pathlib import Path

from vak_pipeline.audio.models import InspectReport, NormalizedAudio
from vak_pipeline.rules.issue import Issue
from vak_pipeline.schema import Diarization
from vak_pipeline.speech.models import ConversationTranscript, Segment, WordTiming
from vak_pipeline.speech.turns import build_record, build_turns, events_path_for, load_events
from vak_pipeline.uploads.descriptor import RecordingSettings


def seg(speaker, start, end, text, channel=0):
    words = text.split()
    step = (end - start) / len(words)
    ws = [WordTiming(word=w, start=round(start + i * step, 3), end=round(start + (i + 1) * step, 3))
          for i, w in enumerate(words)]
    return Segment(start=start, end=end, text=text, words=ws, channel=channel, speaker=speaker)


def test_same_speaker_segments_merge_across_short_gaps_only():
    b = build_turns([seg("agent", 0.0, 1.0, "hello there"), seg("agent", 1.4, 2.0, "how are you"),
                     seg("agent", 3.0, 4.0, "anyone there")], max_gap_s=0.6)
    assert [(t.start, t.end, t.text) for t in b.turns] == [(0.0, 2.0, "hello there how are you"),
                                                           (3.0, 4.0, "anyone there")]


def test_another_speaker_in_between_ends_the_turn_and_turns_are_sorted():
    b = build_turns([seg("agent", 2.2, 3.0, "sure thing"), seg("agent", 0.0, 1.0, "hello there"),
                     seg("user", 1.2, 2.0, "hi")])
    assert [t.speaker for t in b.turns] == ["agent", "user", "agent"]
    assert [t.start for t in b.turns] == sorted(t.start for t in b.turns)


def test_overlap_is_set_when_a_turn_starts_before_the_previous_ends():
    b = build_turns([seg("agent", 0.0, 3.0, "your installation is complete now"),
                     seg("user", 2.0, 2.8, "okay perfect")])
    assert b.turns[1].overlap is True and b.turns[0].overlap is None


def test_tiny_overlaps_between_speakers_are_asr_slop_and_clip_the_earlier_end():
    b = build_turns([seg("agent", 0.0, 2.1, "thank you for calling"), seg("user", 2.0, 3.0, "hello there")])
    assert b.turns[1].overlap is None and b.turns[0].end == 2.0


def test_a_segment_spanning_a_long_pause_is_split_so_the_other_speaker_fits_between():
    long = Segment(start=0.0, end=6.0, text="sure it is done great thanks", speaker="user", channel=1, words=[
        WordTiming(word=w, start=s, end=s + 0.3) for w, s in
        [("sure", 0.0), ("it", 0.4), ("is", 0.8), ("done", 1.2), ("great", 5.0), ("thanks", 5.5)]])
    b = build_turns([long, seg("agent", 2.0, 4.5, "I have booked a technician", channel=0)])
    assert [t.speaker for t in b.turns] == ["user", "agent", "user"]
    assert not any(t.overlap for t in b.turns)


def test_words_carry_speaker_channel_and_turn_index():
    b = build_turns([seg("agent", 0.0, 1.0, "hello there", 0), seg("user", 1.5, 2.0, "hi", 1)])
    assert [(w.word, w.speaker, w.channel, w.turn) for w in b.words] == [
        ("hello", "agent", 0, 0), ("there", "agent", 0, 0), ("hi", "user", 1, 1)]


def _events(tmp_path: Path, lines: list) -> Path:
    p = tmp_path / "call.events.jsonl"
    p.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return p


def test_tool_events_merge_in_time_order_as_zero_length_turns(tmp_path):
    p = _events(tmp_path, [
        {"t": 2.6, "tool_result": {"id": "call_1", "content": ["a", 1]}},
        {"t": 2.5, "tool_call": {"id": "call_1", "name": "check_status", "arguments": {"customer_id": "4471"}}}])
    events, issues = load_events(p, "up/call.events.jsonl")
    assert issues == []
    b = build_turns([seg("agent", 0.0, 2.0, "let me check"), seg("agent", 3.0, 4.0, "it is done")], events)
    kinds = [("call" if t.tool_call else "result" if t.tool_result else t.speaker, t.start, t.end) for t in b.turns]
    assert kinds == [("agent", 0.0, 2.0), ("call", 2.5, 2.5), ("result", 2.6, 2.6), ("agent", 3.0, 4.0)]
    assert b.turns[2].speaker == "tool" and b.turns[1].speaker == "agent"
    assert [w.turn for w in b.words if w.word == "done"] == [3]  # word turn index counts tool turns


def test_bad_event_lines_are_line_numbered_issues_and_the_rest_is_kept(tmp_path):
    p = _events(tmp_path, [
        {"t": 1.0, "tool_call": {"id": "c1", "name": "check_status"}},
        "{not json",
        {"t": 2.0},
        {"t": 3.0, "tool_call": {"id": "c2", "name": "x"}, "tool_result": {"id": "c2"}},
        {"t": -1, "tool_result": {"id": "c1", "content": 1}}])
    events, issues = load_events(p, "up/call.events.jsonl", "conv1")
    assert [e.tool_call.id for e in events] == ["c1"]
    assert [(i.code, i.line) for i in issues] == [("events_json_invalid", 2), ("events_not_one_kind", 3),
                                                  ("events_not_one_kind", 4), ("events_negative_time", 5)]
    assert all(isinstance(i, Issue) and i.file == "up/call.events.jsonl" and i.record_id == "conv1" for i in issues)


def test_events_file_is_matched_by_stem_in_the_recordings_folder(tmp_path):
    assert events_path_for(tmp_path, "calls/call_003.flac") == tmp_path / "calls" / "call_003.events.jsonl"


def _normalized(channels=2) -> NormalizedAudio:
    settings = RecordingSettings(
        locale="en-IN", source="real", consent="recorded_verbal", consent_ref="policy-v3", voice_consent_ref="v1",
        license="proprietary-internal", condition="phone", domain="support", scenario="refund",
        system_prompt="You are a helpful agent.", channel_map={"0": "agent", "1": "user"},
        speakers={"agent": "anjali", "user": "cust-1"},
        tools=[{"name": "check_status", "parameters": {"type": "object", "properties": {}}}])
    return NormalizedAudio(
        conv_id="up-call", upload="up", source_file="call.flac", source_sha256="0" * 64, settings_hash="h",
        path="audio/up-call.wav", sample_rate=24000, channels=channels, duration_s=6.0, settings=settings,
        inspect=InspectReport(file="call.flac", sample_rate=24000, channels=channels, frames=144000,
                              duration_s=6.0, silence_ratio=0.1, clipping_ratio=0.0))


def test_build_record_fills_audio_provenance_and_languages_and_is_valid():
    na = _normalized()
    tr = ConversationTranscript(
        conv_id=na.conv_id, upload="up", source_file="call.flac", audio_path=na.path, source_sha256="0" * 64,
        cache_key="k", engine="faster-whisper-tiny.en", attribution="channels",
        diarization=Diarization(engine="channels", confidence=1.0), duration_s=6.0,
        segments=[seg("agent", 0.0, 2.0, "Namaste, aapki kya madad kar sakti hoon?", 0),
                  seg("user", 2.5, 5.0, "My refund has not arrived yet, can you check?", 1)])
    rec, alignment, issues = build_record(na, tr, created="2026-01-01T00:00:00Z")
    assert issues == []
    assert rec.audio.model_dump(exclude_none=True) == {
        "path": "audio/up-call.wav", "sample_rate": 24000, "channels": 2, "channel_map": {"0": "agent", "1": "user"},
        "duration_s": 6.0, "condition": "phone"}
    m = rec.meta
    assert (m.source, m.consent, m.consent_ref, m.voice_consent_ref, m.license, m.pii_redacted) == (
        "real", "recorded_verbal", "policy-v3", "v1", "proprietary-internal", False)
    assert m.transcription.engine == "faster-whisper-tiny.en" and m.transcription.verified_by_human is False
    assert m.diarization.engine == "channels" and m.speakers == {"agent": "anjali", "user": "cust-1"}
    assert [t.lang for t in rec.turns] == ["hi-Latn", "en"]
    assert rec.language.mix == ["en", "hi"]
    assert (rec.domain, rec.scenario, rec.tools[0].name) == ("support", "refund", "check_status")
    assert alignment.conversation_id == "up-call" and len(alignment.words) == 16
    assert "created" in rec.dump()["meta"]


def test_text_rebuilt_from_word_tokens_keeps_numbers_and_punctuation_attached():
    from vak_pipeline.speech.models import join_words

    assert join_words(["Sure,", "it", "is", "876", "-543", "to", "1", ".0", "."]) == "Sure, it is 876-543 to 1.0."
