"""Voices, surrogates and provenance rules of synthesized calls."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from vak_pipeline.rules.context import ValidationContext
from vak_pipeline.rules.engine import validate_record
from vak_pipeline.schema import AudioSynthesis
from vak_pipeline.splits import build_splits
from vak_pipeline.synth import SynthSettings
from vak_pipeline.synth.surrogates import Surrogates, to_text_offset
from vak_pipeline.synth.voices import assign_voices, espeak_table

from ..builders import make_audio, make_record


def test_same_placeholder_same_surrogate_within_a_conversation_and_fake_by_construction():
    s = Surrogates("conv-1", "en-GB")
    spoken, spans = s.speak("Call <PHONE_1> or <PHONE_2>, ask for <PER_1>; <PER_1> knows <EMAIL_1>.")
    values = {sur.placeholder: sur.value for *_, sur in spans}
    assert [sur.value for *_, sur in spans if sur.placeholder == "<PER_1>"] == [values["<PER_1>"]] * 2
    assert values["<PHONE_1>"] != values["<PHONE_2>"]
    assert all(re.fullmatch(r"07700 900\d{3}", values[p]) for p in ("<PHONE_1>", "<PHONE_2>"))  # Ofcom drama range
    assert values["<EMAIL_1>"].endswith("@example.com")
    assert "<" not in spoken and values["<PER_1>"] in spoken
    assert Surrogates("conv-1", "en-GB").get("<PER_1>", "PER") == s.get("<PER_1>", "PER")  # seeded by conversation
    us = Surrogates("conv-1", "en-US").get("<PHONE_1>", "PHONE").value
    assert re.fullmatch(r"\d{3}-555-01\d{2}", us)


def test_spoken_offsets_map_back_to_the_placeholder_in_the_text():
    text = "Order <ID_1> for <PER_1> now"
    spoken, spans = Surrogates("c", "en-GB").speak(text)
    (_, _, id_s, id_e, _), (_, _, per_s, _, _) = spans
    assert to_text_offset(id_s + 2, spans) == text.index("<ID_1>")
    assert to_text_offset(per_s, spans) == text.index("<PER_1>")
    assert to_text_offset(len(spoken) - 3, spans) == len(text) - 3  # after the last surrogate
    assert to_text_offset(0, spans) == 0


def test_voice_pools_are_disjoint_so_synthetic_voices_do_not_tie_every_conversation_together():
    settings = SynthSettings()
    table = espeak_table("en-GB", settings)
    assert len({v.id for v in table}) == len(table)
    records = [make_record(f"c{i:03d}", locale="en-GB") for i in range(200)]
    voices = [assign_voices(r, settings, table) for r in records]
    assert all(v["agent"].id != v["user"].id for v in voices)
    agents = Counter(v["agent"].id for v in voices)
    assert 8 <= len(agents) <= settings.voice_groups  # varied across conversations
    users_of = {}
    for v in voices:
        users_of.setdefault(v["agent"].id, set()).add(v["user"].id)
    pools = list(users_of.values())
    assert all(a.isdisjoint(b) for i, a in enumerate(pools) for b in pools[i + 1 :])

    summaries = [(r.id, {k: v.id for k, v in vs.items()}) for r, vs in zip(records, voices, strict=True)]
    counts = Counter(build_splits(summaries).assignment.values())
    assert counts["train"] > counts["validation"] > 0 and counts["test"] > 0  # the split still has room


def test_a_known_agent_keeps_one_voice_across_conversations():
    settings = SynthSettings()
    table = espeak_table("en-US", settings)
    got = {
        assign_voices(make_record(f"c{i}", speakers={"agent": "priya"}), settings, table)["agent"].id for i in range(20)
    }
    assert len(got) == 1


def _synthesized(**meta):
    rec = make_record(
        "s1", audio=make_audio("s1"), source="real", consent="written", consent_ref="dpa-1", pii_redacted=True, **meta
    )
    voices = {"agent": "espeak-ng:en-US+m3:p50:r165", "user": "espeak-ng:en-US+f2:p60:r155"}
    synthesis = AudioSynthesis(engine="espeak-ng", engine_version="1.52.0", voices=voices, settings_hash="abc")
    audio = rec.audio.model_copy(update={"synthesis": synthesis})
    return rec.model_copy(update={"audio": audio}).dump(), voices


def _codes(obj: dict) -> set[str]:
    result = validate_record(obj, ValidationContext(base_dir=Path("."), check_audio=False, check_pii=False))
    return {i.code for i in result.issues}


def test_synthesized_audio_needs_no_voice_consent_but_a_real_recording_still_does():
    obj, voices = _synthesized(speakers=None)
    obj["meta"]["speakers"] = voices
    assert "voice_consent_missing" not in _codes(obj)
    del obj["audio"]["synthesis"]
    assert "voice_consent_missing" in _codes(obj)


def test_a_synthesis_claim_must_name_its_voices_in_meta_speakers():
    obj, voices = _synthesized(speakers={"agent": "priya"})
    assert "synthesis_voice_not_in_speakers" in _codes(obj)
    obj["meta"]["speakers"] = voices
    assert "synthesis_voice_not_in_speakers" not in _codes(obj)


def test_a_chinese_turn_is_aligned_character_by_character_with_the_placeholder_as_one_word():
    from vak_pipeline.synth import GapModel
    from vak_pipeline.synth.engine import get_engine
    from vak_pipeline.synth.render import render_conversation

    rec = make_record(
        "zh1",
        locale="zh-CN",
        turns=[
            (
                "user",
                0,
                0,
                "你好，我的订单<ID_1>在哪里？",
            ),
            ("agent", 0, 0, "请稍等。"),
        ],
    )
    settings = SynthSettings()
    out = render_conversation(rec, settings, GapModel(), get_engine(settings), "audio/zh1.wav")
    words = [w.word for w in out.alignment.words]
    assert words == ["你", "好", "我", "的", "订", "单", "<ID_1>", "在", "哪", "里", "请", "稍", "等"]
    assert out.record.audio.synthesis.voices["agent"].startswith("espeak-ng:cmn+")


def test_overlaps_cross_channels_only_are_flagged_and_backchannels_add_no_turns():
    from vak_pipeline.synth import GapModel
    from vak_pipeline.synth.engine import get_engine
    from vak_pipeline.synth.render import render_conversation

    long_ = "I would like to know why my last three deliveries all arrived late in the evening."
    rec = make_record(
        "ov1",
        locale="en-GB",
        turns=[
            ("user", 0, 0, long_),
            ("agent", 0, 0, long_),
            ("user", 0, 0, long_),
            ("user", 0, 0, "Thanks."),
            ("agent", 0, 0, long_),
        ],
    )
    settings = SynthSettings(backchannel_probability=1.0)
    gaps = GapModel(overlap_probability=1.0, overlap_max_s=0.4)
    out = render_conversation(rec, settings, gaps, get_engine(settings), "audio/ov1.wav")
    turns = out.record.turns
    assert len(turns) == len(rec.turns)
    assert [t.overlap for t in turns] == [None, True, True, None, True]  # never within one party
    for a in turns:
        for b in turns:
            if a is not b and a.speaker == b.speaker:
                assert a.end <= b.start or b.end <= a.start
    issues = validate_record(
        out.record.dump(), ValidationContext(base_dir=Path("."), check_audio=False, check_pii=False)
    ).issues
    assert not [i.code for i in issues if i.code.startswith("turn_overlap")]
    extra = [w for w in out.alignment.words if w.turn is None]
    assert extra and {w.speaker for w in extra} <= {"user", "agent"}
    assert len(out.sidecar["backchannels"]) == len(extra)
    for w, b in zip(sorted(extra, key=lambda w: w.start), out.sidecar["backchannels"], strict=True):
        during = turns[b["during_turn"]]  # the listener speaks inside the other party's turn
        assert during.speaker != w.speaker and during.start < w.start < w.end < during.end
    for ch in (0, 1):  # and never over its own words
        mine = sorted((w for w in out.alignment.words if w.channel == ch), key=lambda w: w.start)
        assert all(a.end <= b.start + 0.011 for a, b in zip(mine, mine[1:], strict=False))
