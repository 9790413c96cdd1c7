"""Shorter encoder inputs for short windows (AsrSettings.encoder_frames 'window'): the bucket rule, the batches it
makes of one recording's windows, and a real tiny.en window encoded at its bucket with its words still aligned."""

from pathlib import Path

import pytest

from vak_pipeline.speech.asr import AsrSettings, Transcriber, encoder_batches, read_channels
from vak_pipeline.speech.encoder_length import bucket_frames

SAMPLE = Path(__file__).parents[2] / "data" / "raw" / "sample-calls"
WINDOW = AsrSettings(beam_size=1, batch_size=2, cpu_threads=2, device="cpu", encoder_frames="window",
                     encoder_bucket_s=5, encoder_margin_s=3.0)


def test_a_window_is_encoded_at_its_seconds_plus_the_margin_rounded_up_to_the_bucket_and_at_most_30_s():
    assert bucket_frames(4.0, 5, 3.0) == 1000  # 7 s -> 10 s
    assert bucket_frames(12.0, 5, 3.0) == 1500
    assert bucket_frames(12.1, 2, 1.0) == 1400  # 13.1 s -> 14 s
    assert bucket_frames(23.6, 5, 3.0) == 3000  # 26.6 s -> 30 s: Whisper's window
    assert bucket_frames(29.9, 5, 3.0) == 3000  # never more than 30 s
    assert bucket_frames(0.3, 5, 0.0) == 500
    # never fewer than the whole seconds the word alignment reads, a sample of slack included
    assert bucket_frames(10.0, 5, 0.0) == 1100
    assert bucket_frames(9.99, 5, 0.0) == 1000


def test_windows_are_batched_by_bucket_each_batch_at_its_longest_and_the_first_windows_batch_goes_first():
    seconds = [28.0, 4.0, 12.0, 6.0]  # buckets 30, 10, 15, 10 s
    assert encoder_batches(seconds, WINDOW) == [(3000, [2, 0]), (1000, [1, 3])]
    assert encoder_batches(seconds, WINDOW.model_copy(update={"batch_size": 8})) == [(3000, [1, 3, 2, 0])]
    assert encoder_batches(seconds, WINDOW.model_copy(update={"encoder_frames": "full"})) == [(3000, [0, 1, 2, 3])]
    assert encoder_batches([], WINDOW) == []


def test_the_encoder_settings_are_part_of_the_cache_key_and_window_is_the_default():
    assert AsrSettings().encoder_frames == "window"
    base = AsrSettings()
    for change in ({"encoder_frames": "full"}, {"encoder_bucket_s": 2}, {"encoder_margin_s": 1.0}):
        assert base.model_copy(update=change).fingerprint() != base.fingerprint()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_short_window_is_encoded_at_its_bucket_and_its_words_are_still_aligned():
    """The first 8 s of a sample call's agent channel: one window of a few seconds of speech. The encoder gets its
    bucket (the frames recorded at the encode call, not computed beside it), at 'full' 30 s; the words keep their
    times inside the clip and in order."""
    audio, sr = read_channels(SAMPLE / "call_001.flac")
    clip = audio[: 8 * sr, 0]
    once = {"tail_rounds": 0}  # one encoder pass per window, so its frames are the window's alone
    segs, (inp,) = Transcriber(WINDOW.model_copy(update=once)).transcribe_channels([clip], sr, None, [0])
    assert 0 < inp.decoded_s <= 8.0
    assert inp.encoded_s == bucket_frames(inp.decoded_s, 5, 3.0) / 100 < 30.0
    words = [w for s in segs for w in s.words]
    assert words, "the short window decoded nothing"
    assert all(0 <= w.start <= w.end <= 8.0 for w in words)
    assert [w.start for w in words] == sorted(w.start for w in words)

    full, (inp_full,) = Transcriber(WINDOW.model_copy(update=once | {"encoder_frames": "full"})).transcribe_channels(
        [clip], sr, None, [0])
    assert inp_full.encoded_s == 30.0 and inp_full.decoded_s == inp.decoded_s
    assert full and all(s.words for s in full)
