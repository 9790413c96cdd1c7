"""Audio redaction: a redacted span is located from word timings and masked on the speaker's channel only."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from vak_pipeline.locales import get_pack
from vak_pipeline.redaction.audio import AudioSettings, write_masked
from vak_pipeline.redaction.redact import redact_record_full
from vak_pipeline.schema import Alignment, VakRecord

SR = 24000
TEXT = "my number is nine eight seven six five four three two one zero okay"


def _record() -> VakRecord:
    return VakRecord.model_validate({
        "id": "conv_a", "schema_version": "0.1", "locale": "en-IN", "language": {"primary": "en"},
        "audio": {"path": "audio/conv_a.wav", "sample_rate": SR, "channels": 2,
                  "channel_map": {"0": "user", "1": "agent"}, "duration_s": 4.0},
        "turns": [{"speaker": "user", "start": 0.2, "end": 3.6, "text": TEXT, "lang": "en"}],
        "meta": {"source": "real", "consent": "recorded_verbal", "consent_ref": "p1"}})


def _alignment() -> Alignment:
    words, t = [], 0.2
    for w in TEXT.split():
        words.append({"word": w, "start": round(t, 3), "end": round(t + 0.2, 3), "speaker": "user", "turn": 0,
                      "channel": 0})
        t += 0.25
    return Alignment.model_validate({"conversation_id": "conv_a", "words": words})


def _wav(path) -> np.ndarray:
    t = np.arange(4 * SR) / SR
    data = np.stack([0.3 * np.sin(2 * np.pi * 300 * t), 0.3 * np.sin(2 * np.pi * 450 * t)], axis=1)
    sf.write(path, data, SR, subtype="PCM_16")
    return sf.read(path, dtype="float32", always_2d=True)[0]


@pytest.mark.parametrize("method", ["tone", "silence"])
def test_masked_interval_is_tone_or_silence_on_the_speakers_channel_only(tmp_path, method):
    path = tmp_path / "conv_a.wav"
    before = _wav(path)
    settings = AudioSettings(method=method, padding_s=0.15)
    out = redact_record_full(_record(), get_pack("en-IN"), audio_settings=settings, alignment=_alignment())
    assert len(out.masks) == 1
    m = out.masks[0]
    # "nine" starts at word 3 (0.95 s), "zero" is word 12 and ends at 3.40 s; the touching words "is"
    # (0.70-0.90) and "okay" (3.45-3.65) lend half of themselves, 0.15 s at most, then padding 0.15 s
    assert (m.start_s, m.end_s, m.channel, m.model_extra["timing"]) == (0.65, 3.7, 0, "words")
    published = tmp_path / "published.wav"
    write_masked(path, published, out.masks, settings, block_frames=4096)  # masks straddle block edges
    after = sf.read(published, dtype="float32", always_2d=True)[0]
    np.testing.assert_array_equal(sf.read(path, dtype="float32", always_2d=True)[0], before)  # source untouched
    a, b = int(m.start_s * SR), int(m.end_s * SR)
    seg = after[a + 10:b - 10, 0]
    if method == "silence":
        assert np.abs(seg).max() < 1e-4
    else:
        rms_dbfs = 20 * np.log10(np.sqrt(np.mean(seg ** 2)) * np.sqrt(2))  # sine peak level
        assert abs(rms_dbfs - -20) < 0.5
        spectrum = np.abs(np.fft.rfft(seg))
        assert abs(np.fft.rfftfreq(len(seg), 1 / SR)[spectrum.argmax()] - 1000) < 5
    np.testing.assert_array_equal(after[:, 1], before[:, 1])  # the agent's channel is untouched
    np.testing.assert_array_equal(after[: a - 1, 0], before[: a - 1, 0])  # and the user's outside the span
    np.testing.assert_array_equal(after[b + 1:, 0], before[b + 1:, 0])


def test_alignment_words_are_rewritten_to_the_placeholder():
    out = redact_record_full(_record(), get_pack("en-IN"), alignment=_alignment())
    words = [w.word for w in out.alignment.words]
    assert words == ["my", "number", "is", "<PHONE_1>", "okay"]
    ph = out.alignment.words[3]
    assert (ph.start, ph.end) == (0.95, 3.4)


def test_without_word_timings_the_span_is_placed_proportionally():
    out = redact_record_full(_record(), get_pack("en-IN"), audio_settings=AudioSettings(padding_s=0.0))
    m = out.masks[0]
    assert m.model_extra["timing"] == "proportional"
    start = TEXT.index("nine")
    assert m.start_s == pytest.approx(0.2 + 3.4 * start / len(TEXT), abs=1e-3)


def _words(*spec: tuple[str, float, float]) -> Alignment:
    return Alignment.model_validate({"conversation_id": "conv_a", "words": [
        {"word": w, "start": a, "end": b, "speaker": "user", "turn": 0, "channel": 0} for w, a, b in spec]})


def test_the_mask_reaches_into_a_stretched_word_that_touches_the_number():
    # tiny.en's real timings for "Sure, my mobile number is 749-4252557": "is" took 0.6 s and held the
    # "sev-" of seven, which the re-transcribed masked audio still heard with 0.15 s padding alone
    rec = _record().model_copy(update={"turns": [_record().turns[0].model_copy(
        update={"text": "Sure, my mobile number is 749-4252557", "start": 0.0, "end": 3.9})]})
    words = _words(("Sure,", 0.0, 0.84), ("my", 1.24, 1.34), ("mobile", 1.34, 1.64), ("number", 1.64, 2.02),
                   ("is", 2.02, 2.62), ("749", 2.62, 3.14), ("-4252557", 3.14, 3.9))
    m = redact_record_full(rec, get_pack("en-IN"), audio_settings=AudioSettings(padding_s=0.15),
                           alignment=words).masks[0]
    assert m.start_s == pytest.approx(2.62 - 0.15 - 0.15)  # 0.15 s into "is" (half of it is 0.3), then padding
    assert m.end_s == 4.0  # padding stops at the end of the recording


def test_a_word_after_a_pause_lends_nothing_and_a_short_one_only_half():
    rec = _record().model_copy(update={"turns": [_record().turns[0].model_copy(
        update={"text": "ok my number is 98765 43210 right", "start": 0.0, "end": 3.9})]})
    words = _words(("ok", 0.0, 0.3), ("my", 0.3, 0.4), ("number", 0.4, 0.5), ("is", 0.5, 0.6),
                   ("98765", 0.6, 1.1), ("43210", 1.1, 1.6), ("right", 2.4, 2.8))
    m = redact_record_full(rec, get_pack("en-IN"), audio_settings=AudioSettings(padding_s=0.15),
                           alignment=words).masks[0]
    assert m.start_s == pytest.approx(0.6 - 0.05 - 0.15)  # half of the 0.1 s "is", then padding
    assert m.end_s == pytest.approx(1.6 + 0.15)  # "right" came after a 0.8 s pause
