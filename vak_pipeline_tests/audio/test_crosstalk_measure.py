"""The cross-talk measure (audio.crosstalk) is the time-domain definition computed cheaply: per 1 s window, the
cross-correlation over lags 0..MAX_LAG_S by one FFT over both channels and the energies by einsum, agreeing with
`np.correlate` and `np.sum` to 1e-9 relative (the lag exactly), so the reported leak levels, lags and
correlations are the reference's on every committed stereo fixture. `SpanPower.db_spans` is `db` value for value."""

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from vak_pipeline.audio import crosstalk
from vak_pipeline.audio.crosstalk import CrosstalkMeter, measure_crosstalk, window_leak
from vak_pipeline.audio.levels import SpanPower

FIX = Path(__file__).parents[1] / "fixtures"
SAMPLE = Path(__file__).parents[2] / "data" / "raw" / "sample-calls"
STEREO = [FIX / "realcalls" / f"{n}" for n in ("xtalk_10db.ogg", "xtalk_16db.ogg", "xtalk_30db.ogg", "ulaw_call.wav",
                                                "hold_music.ogg", "alaw_call.wav")] + [SAMPLE / "call_001.flac"]
TOLERANCE = 1e-9  # relative, on each window's correlation peak and gain


def reference_leak(src: np.ndarray, dst: np.ndarray, max_lag: int) -> tuple[float, int, float]:
    """The definition, in the time domain: xc[k] = sum src[t] * dst[t + k] for k in 0..max_lag."""
    xc = np.correlate(np.concatenate([dst, np.zeros(max_lag)]), src, mode="valid")  # max_lag + 1 lags
    k = int(np.argmax(np.abs(xc)))
    es, ed = float(np.sum(src * src)), float(np.sum(dst * dst))
    return abs(float(xc[k])) / np.sqrt(max(es * ed, 1e-12)), k, float(xc[k]) / max(es, 1e-12)


def windows(path: Path):
    """(source, destination, max_lag) of every window the meter analyses in a fixture."""
    audio, sr = sf.read(path, dtype="float32", always_2d=True)
    seen: list[tuple[np.ndarray, np.ndarray, int]] = []
    meter = CrosstalkMeter(sr)
    real = crosstalk.window_leak

    def spy(src, dst, max_lag):
        seen.append((src.copy(), dst.copy(), max_lag))
        return real(src, dst, max_lag)

    crosstalk.window_leak = spy
    try:
        meter.feed(audio)
    finally:
        crosstalk.window_leak = real
    return seen


@pytest.mark.parametrize("path", STEREO[:3], ids=lambda p: p.name)
def test_each_window_agrees_with_the_time_domain_definition(path):
    analysed = windows(path)
    assert len(analysed) >= 5
    for src, dst, max_lag in analysed:
        corr, lag, gain = window_leak(src, dst, max_lag)
        want_corr, want_lag, want_gain = reference_leak(src, dst, max_lag)
        assert lag == want_lag
        assert corr == pytest.approx(want_corr, rel=TOLERANCE, abs=1e-12)
        assert gain == pytest.approx(want_gain, rel=TOLERANCE, abs=1e-12)


@pytest.mark.parametrize("path", STEREO, ids=lambda p: p.name)
def test_the_reported_leaks_are_the_references_on_every_stereo_fixture(path, monkeypatch):
    audio, sr = sf.read(path, dtype="float32", always_2d=True)
    fast = measure_crosstalk(audio, sr)
    monkeypatch.setattr(crosstalk, "window_leak", reference_leak)
    assert fast.model_dump() == measure_crosstalk(audio, sr).model_dump()


def test_the_measure_does_not_depend_on_how_the_audio_is_cut_into_blocks():
    audio, sr = sf.read(STEREO[1], dtype="float32", always_2d=True)
    meter = CrosstalkMeter(sr)
    for i in range(0, len(audio), 7919):
        meter.feed(audio[i: i + 7919])
    assert meter.result() == measure_crosstalk(audio, sr)


def test_span_powers_of_many_spans_are_db_value_for_value():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(48000) * np.linspace(0, 0.5, 48000)).astype(np.float32)
    power = SpanPower(x, 16000)
    start = np.concatenate([rng.uniform(-0.5, 3.5, 400), [0.0, 2.99, 3.0, 5.0, -1.0]])
    end = np.concatenate([start[:400] + rng.uniform(0.0, 0.4, 400), [0.0, 3.5, 3.0, 6.0, -0.5]])
    assert power.db_spans(start, end).tolist() == [power.db(a, b) for a, b in zip(start, end, strict=True)]
