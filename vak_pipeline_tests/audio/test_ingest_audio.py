"""Decoding, resampling, normalization and inspection of single recordings."""

from __future__ import annotations

import tracemalloc

import av
import numpy as np
import pytest
import soundfile as sf

from vak_pipeline.audio.decode import AudioError
from vak_pipeline.audio.inspect import Inspector, inspect_file
from vak_pipeline.audio.normalize import normalize_recording

from ..ingest_fixtures import speechlike, truncate, write_wav


def test_stereo_is_resampled_to_24k_16bit_and_stays_stereo(tmp_path):
    src = write_wav(tmp_path / "in.wav", seconds=2.0, rate=44100, channels=2)
    rep = normalize_recording(src, tmp_path / "out" / "c.wav")
    info = sf.info(str(tmp_path / "out" / "c.wav"))
    assert (info.samplerate, info.channels, info.subtype, info.format) == (24000, 2, "PCM_16", "WAV")
    assert info.frames == 48000 and rep.frames == 48000
    assert (rep.sample_rate, rep.channels, rep.duration_s, rep.source_sample_rate) == (24000, 2, 2.0, 44100)


def test_mono_stays_mono(tmp_path):
    src = write_wav(tmp_path / "in.flac", rate=16000, channels=1)
    rep = normalize_recording(src, tmp_path / "c.wav")
    assert sf.info(str(tmp_path / "c.wav")).channels == 1 and rep.channels == 1


def test_output_does_not_depend_on_block_size(tmp_path):
    src = write_wav(tmp_path / "in.wav", seconds=3.0, rate=44100)
    normalize_recording(src, tmp_path / "small.wav", block_s=0.05)
    normalize_recording(src, tmp_path / "large.wav", block_s=10.0)
    a, _ = sf.read(str(tmp_path / "small.wav"), dtype="int16")
    b, _ = sf.read(str(tmp_path / "large.wav"), dtype="int16")
    assert np.array_equal(a, b)


def test_resampled_content_is_the_same_signal(tmp_path):
    t = np.arange(48000) / 48000
    tone = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    src = write_wav(tmp_path / "tone.wav", rate=48000, data=tone, subtype="FLOAT")
    normalize_recording(src, tmp_path / "c.wav")
    y, rate = sf.read(str(tmp_path / "c.wav"), dtype="float32")
    ref = 0.5 * np.sin(2 * np.pi * 440 * np.arange(len(y)) / rate)
    assert np.max(np.abs(y[100:-100] - ref[100:-100])) < 2e-3


@pytest.mark.parametrize("rate", [8000, 192000])
def test_unusual_rates_normalize_and_are_noted(tmp_path, rate):
    src = write_wav(tmp_path / "in.wav", seconds=1.0, rate=rate, channels=1)
    rep = normalize_recording(src, tmp_path / "c.wav")
    assert rep.sample_rate == 24000 and abs(rep.duration_s - 1.0) < 1e-3
    assert any(f"from {rate} Hz" in n for n in rep.notes)
    assert any("narrowband" in n for n in rep.notes) == (rate == 8000)


def test_more_than_two_channels_need_keep_channels(tmp_path):
    n = 24000
    data = np.stack([np.full(n, 0.05 * (k + 1), dtype=np.float32) * np.sign(np.sin(np.arange(n) / 7))
                     for k in range(6)], axis=1)
    src = write_wav(tmp_path / "six.wav", rate=24000, data=data, subtype="FLOAT")
    with pytest.raises(AudioError) as err:
        normalize_recording(src, tmp_path / "c.wav")
    assert err.value.code == "audio_too_many_channels" and "keep_channels" in err.value.fix
    assert not (tmp_path / "c.wav").exists()
    rep = normalize_recording(src, tmp_path / "c.wav", keep_channels=[4, 1])
    y, _ = sf.read(str(tmp_path / "c.wav"))
    assert y.shape[1] == 2 and rep.source_channels == 6
    assert np.allclose(np.abs(y).max(axis=0), [0.25, 0.10], atol=1e-3)  # channel 4 first, then channel 1
    with pytest.raises(AudioError) as err:
        normalize_recording(src, tmp_path / "d.wav", keep_channels=[1, 9])
    assert err.value.code == "audio_keep_channels_invalid"


def test_keep_channels_is_ignored_for_stereo_and_mono(tmp_path):
    src = write_wav(tmp_path / "st.wav", rate=24000, channels=2)
    rep = normalize_recording(src, tmp_path / "c.wav", keep_channels=[2, 5])  # an upload-wide default
    assert rep.channels == 2 and rep.source_channels is None


@pytest.mark.parametrize("fmt", ["flac", "ogg", "mp3"])
def test_other_soundfile_formats(tmp_path, fmt):
    src = write_wav(tmp_path / f"in.{fmt}", seconds=1.0, rate=48000)
    rep = normalize_recording(src, tmp_path / "c.wav")
    assert rep.channels == 2 and abs(rep.duration_s - 1.0) < 0.1


def test_m4a_is_decoded_with_pyav(tmp_path):
    path = tmp_path / "call.m4a"
    with av.open(str(path), "w") as c:
        s = c.add_stream("aac", rate=44100)
        s.layout = "stereo"
        frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(speechlike(1.0, 44100).T), format="fltp",
                                           layout="stereo")
        frame.sample_rate = 44100
        for pkt in [*s.encode(frame), *s.encode(None)]:
            c.mux(pkt)
    rep = normalize_recording(path, tmp_path / "c.wav", block_s=0.1)
    assert (rep.sample_rate, rep.channels) == (24000, 2) and 0.9 < rep.duration_s < 1.2
    assert rep.source_format == "m4a/aac"


@pytest.mark.parametrize("make,code", [
    (lambda p: truncate(write_wav(p, seconds=2.0)), "audio_truncated"),
    (lambda p: p.write_bytes(b""), "audio_empty_file"),
    (lambda p: p.write_text("this is a text file, not audio\n" * 20), "audio_unreadable"),
    (lambda p: p.write_bytes(write_wav(p).read_bytes()[:30]), "audio_unreadable"),
])
def test_unusable_files_raise_a_clear_error_and_leave_the_destination_alone(tmp_path, make, code):
    src = tmp_path / "bad.wav"
    make(src)
    dst = tmp_path / "out" / "c.wav"
    dst.parent.mkdir()
    dst.write_bytes(b"previous")
    with pytest.raises(AudioError) as err:
        normalize_recording(src, dst)
    assert err.value.code == code and err.value.fix
    assert dst.read_bytes() == b"previous"
    assert sorted(p.name for p in dst.parent.iterdir()) == ["c.wav"]  # no temp file left behind


def test_truncated_flac_fails_while_decoding_without_a_partial_output(tmp_path):
    src = truncate(write_wav(tmp_path / "in.flac", seconds=3.0, rate=48000))
    with pytest.raises(AudioError) as err:
        normalize_recording(src, tmp_path / "c.wav")
    assert err.value.code in ("audio_decode_failed", "audio_unreadable")
    assert list(tmp_path.glob("*.wav")) == []


def test_inspection_measures_levels_silence_clipping_and_speech(tmp_path):
    rate = 24000
    x = speechlike(10.0, rate, channels=2)
    x[:, 1] = 0.0  # a silent second channel
    x[: rate // 10, 0] = 1.0  # 0.1 s clipped
    rep = inspect_file(write_wav(tmp_path / "a.wav", rate=rate, data=x, subtype="FLOAT"))
    assert rep.sample_rate == rate and rep.channels == 2 and rep.duration_s == 10.0
    assert rep.peak_dbfs[0] == pytest.approx(0.0, abs=0.01) and rep.rms_dbfs[1] < -150
    assert rep.clipping_ratio == pytest.approx(0.1 * rate / (2 * len(x)), rel=0.01)
    assert 0.3 < rep.speech_ratio[0] < 0.5 and rep.speech_ratio[1] == 0.0  # bursts are 40% of the time
    assert 0.0 < rep.silence_ratio < 0.7
    assert "channel 1 has no detected speech" in rep.notes
    assert "condition" not in rep.model_dump()  # it reports; it never guesses the condition


def test_silent_file_is_all_silence():
    ins = Inspector(24000, 1)
    ins.feed(np.zeros((24000, 1), dtype=np.float32))
    rep = ins.report("z.wav")
    assert rep.silence_ratio == 1.0 and rep.speech_ratio == [0.0] and any("silent" in n for n in rep.notes)


def test_inspection_is_independent_of_block_size():
    x = speechlike(12.0, 24000)
    reports = []
    for block in (333, 24000, len(x)):
        ins = Inspector(24000, 2)
        for i in range(0, len(x), block):
            ins.feed(x[i:i + block])
        reports.append(ins.report("x"))
    assert reports[0] == reports[1] == reports[2]


def test_memory_is_bounded_by_the_block_not_the_length(tmp_path):
    peaks = []
    for seconds in (8.0, 32.0):
        src = write_wav(tmp_path / f"{seconds}.wav", seconds=seconds, rate=48000, channels=2)
        tracemalloc.start()
        normalize_recording(src, tmp_path / f"{seconds}-out.wav", block_s=0.5)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    file_bytes_32s = 32 * 48000 * 2 * 2
    assert peaks[1] < 1.5 * peaks[0] + 1_000_000
    assert peaks[1] < file_bytes_32s / 2
