"""Turn-taking statistics: gaps, overlaps, interruptions, backchannels, turn lengths and agent latency,
measured on spoken turns of audio conversations only, grouped per split and per locale."""

from __future__ import annotations

import pytest

from vak_pipeline.report.turntaking import TurnTaking, TurnTakingSettings, add_record, record_stats
from vak_pipeline.schema import AudioSynthesis
from vak_pipeline_tests.builders import make_audio, make_record, turn

SETTINGS = TurnTakingSettings()


def _call(conv_id: str, turns, locale: str = "en-US") -> dict:
    return make_record(
        conv_id, {"user": "u", "agent": "a"}, turns, audio=make_audio(conv_id, 30.0), locale=locale
    ).dump()


def test_gap_overlap_interruption_backchannel_and_latency():
    rec = _call(
        "c1",
        [
            turn("user", 0.0, 2.0, "my inverter shows an error code"),
            turn("agent", 2.4, 6.0, "I see, let me look at your installation record now"),  # gap 0.4, latency 0.4
            turn("user", 3.0, 3.4, "okay"),  # backchannel inside the agent's turn: an overlap, not an interruption
            turn("user", 7.0, 9.0, "it started yesterday evening after the storm"),  # gap 1.0 after the agent
            turn("agent", 8.0, 11.0, "then the surge protector may have tripped"),  # starts 1 s early: interruption
        ],
    )
    g = record_stats(rec, SETTINGS)
    assert (g.spoken_turns, g.speaker_changes, g.gaps, g.overlaps) == (5, 3, 2, 2)
    assert g.backchannels == 1 and g.interruptions == 1
    assert g.dist["gap_s"].summary()["mean"] == pytest.approx(0.7, abs=0.05)
    assert sorted(v for v, _ in g.dist["agent_latency_s"].values()) == pytest.approx([-1.0, 0.4], abs=0.05)
    assert g.dist["turn_length_s"].count == 5


def test_text_conversations_are_not_measured():
    chat = make_record("t1", {"user": "u"}, [turn("user", 0.0, 0.0, "hi"), turn("agent", 0.0, 0.0, "hello")]).dump()
    assert record_stats(chat, SETTINGS) is None


def test_groups_per_split_and_locale_add_up_to_the_total():
    tt = TurnTaking()
    add_record(
        tt,
        _call("a", [turn("user", 0, 1, "hello there"), turn("agent", 1.5, 3, "hi how can I help")]),
        "train",
        SETTINGS,
    )
    add_record(
        tt,
        _call("b", [turn("user", 0, 1, "hello there"), turn("agent", 1.2, 3, "hi how can I help")], locale="en-GB"),
        "test",
        SETTINGS,
    )
    d = tt.as_dict()
    assert set(d["by_split"]) == {"train", "test"} and set(d["by_locale"]) == {"en-US", "en-GB"}
    assert d["total"]["gaps"] == 2 == sum(v["gaps"] for v in d["by_split"].values())
    assert d["by_split"]["train"]["agent_latency_s"]["p50"] == pytest.approx(0.5, abs=0.05)


def test_synthesized_calls_are_measured_apart_never_in_the_totals():
    """A chat rendered by synth: its gaps are what synth's gap model drew, not how people take turns."""
    call = _call("real", [turn("user", 0, 1, "hello there"), turn("agent", 1.5, 3, "hi how can I help")])
    chat = _call("chat", [turn("user", 0, 1, "hello there"), turn("agent", 1.35, 3, "hi how can I help")])
    chat["audio"]["synthesis"] = AudioSynthesis(
        engine="espeak-ng", engine_version="1.52.0", voices={"user": "u", "agent": "a"}, settings_hash="h"
    ).model_dump(mode="json")
    assert record_stats(chat, SETTINGS) is None
    tt = TurnTaking()
    add_record(tt, call, "train", SETTINGS)
    add_record(tt, chat, "train", SETTINGS)
    d = tt.as_dict()
    assert d["total"]["conversations"] == 1 == d["by_split"]["train"]["conversations"]
    assert d["by_locale"]["en-US"]["conversations"] == 1
    assert d["synthesized"]["conversations"] == 1 and d["synthesized"]["gaps"] == 1
    assert d["synthesized"]["gap_s"]["p50"] == pytest.approx(0.35, abs=0.05)
