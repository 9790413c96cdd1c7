"""Quality per recording against the steward's thresholds: flagged (WARN) by default, left out (ERROR) only
for metrics named in `exclude`; cross-talk and hallucination drops read from what the speech stage recorded."""

from __future__ import annotations

import numpy as np
import soundfile as sf

from vak_pipeline.layout import DataLayout
from vak_pipeline.quality.recordings import (
    QualityIndex,
    QualityThresholds,
    quality_issues,
    quality_rules,
    recording_quality,
    snr_estimate_db,
)
from vak_pipeline.rules.issue import Severity
from vak_pipeline.schema import AudioSynthesis
from vak_pipeline_tests.builders import make_audio, make_record, turn


def _record(tmp_path, crosstalk_db: float | None = None, hallucinated: int | None = None) -> dict:
    sr = 24000
    t = np.arange(sr * 4) / sr
    speech = 0.3 * np.sin(2 * np.pi * 220 * t) * (t % 2 < 1)  # 1 s tone, 1 s silence
    noise = np.random.default_rng(0).normal(0, 0.003, len(t))
    (tmp_path / "audio").mkdir(exist_ok=True)
    sf.write(tmp_path / "audio/c1.wav", np.stack([speech + noise, noise], axis=1), sr, subtype="PCM_16")
    rec = make_record(
        "c1",
        {"user": "u", "agent": "a"},
        [turn("user", 0.0, 1.0, "one two three four"), turn("agent", 2.0, 3.0, "five six")],
        audio=make_audio("c1", 4.0),
    ).dump()
    if crosstalk_db is not None:
        rec["meta"]["crosstalk"] = {
            "leaks": [{"channel": 1, "source": 0, "level_db": crosstalk_db}, {"channel": 0, "source": 1}]
        }
    if hallucinated is not None:
        rec["meta"]["removed"] = {"hallucinated_segments": hallucinated, "bleed_words": 2}
    return rec


def test_snr_estimate_separates_clean_from_noisy_audio(tmp_path):
    sr = 16000
    t = np.arange(sr * 4) / sr
    speech = 0.3 * np.sin(2 * np.pi * 200 * t) * (t % 2 < 1)
    rng = np.random.default_rng(1)
    sf.write(tmp_path / "clean.wav", speech + rng.normal(0, 0.001, len(t)), sr)
    sf.write(tmp_path / "noisy.wav", speech + rng.normal(0, 0.05, len(t)), sr)
    clean, noisy = snr_estimate_db(tmp_path / "clean.wav"), snr_estimate_db(tmp_path / "noisy.wav")
    assert clean > 40 and noisy < 15


def test_recordings_outside_thresholds_are_flagged_not_dropped(tmp_path):
    rec = _record(tmp_path, crosstalk_db=-12.5, hallucinated=5)
    thresholds = QualityThresholds()
    q = recording_quality(rec, QualityIndex(DataLayout.at(tmp_path)), thresholds)
    assert q.cross_talk_db == -12.5 and q.hallucination_drops == 5 and q.words_per_s == 3.0
    assert {"cross_talk_db", "hallucination_drops"} <= set(q.flags) and "snr_db" not in q.flags
    issues = quality_issues(q, thresholds)
    assert {i.code for i in issues} >= {"quality_cross_talk_db", "quality_hallucination_drops"}
    assert all(i.severity is Severity.WARN and i.fix for i in issues)
    excluding = thresholds.model_copy(update={"exclude": ["cross_talk_db"]})
    by_code = {i.code: i.severity for i in quality_issues(q, excluding)}
    assert by_code["quality_cross_talk_db"] is Severity.ERROR
    assert by_code["quality_hallucination_drops"] is Severity.WARN


def test_unmeasured_values_are_empty_and_never_flagged(tmp_path):
    q = recording_quality(_record(tmp_path), QualityIndex(DataLayout.at(tmp_path)), QualityThresholds())
    assert q.cross_talk_db is None and q.hallucination_drops is None and q.flags == []


def test_thresholds_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("VAK_QUALITY_MIN_SNR_DB", "25")
    monkeypatch.setenv("VAK_QUALITY_EXCLUDE", '["snr_db"]')
    t = QualityThresholds()
    assert t.min_snr_db == 25.0 and t.exclude == ["snr_db"]


def test_text_conversations_have_no_recording_quality(tmp_path):
    chat = make_record("t1", {"user": "u"}).dump()
    assert recording_quality(chat, QualityIndex(DataLayout.at(tmp_path)), QualityThresholds()) is None


def test_a_synthesized_call_is_no_recording_and_never_flagged(tmp_path):
    """A chat rendered by synth: its speech ratio, SNR and words per second are synth's settings, not data."""
    rec = _record(tmp_path, crosstalk_db=-3.0, hallucinated=9)  # would be flagged as a real recording
    rec["audio"]["synthesis"] = AudioSynthesis(
        engine="espeak-ng", engine_version="1.52.0", voices={"user": "u", "agent": "a"}, settings_hash="h"
    ).model_dump(mode="json")
    thresholds = QualityThresholds(exclude=["cross_talk_db"])
    assert recording_quality(rec, QualityIndex(DataLayout.at(tmp_path)), thresholds) is None
    assert quality_rules(DataLayout.at(tmp_path), thresholds)(rec) == []
