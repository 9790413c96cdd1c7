"""How much of each channel of a two-channel call is the other channel leaking in (cross-talk, echo).

A headset that hears the line, or a switch that mixes a little of the far side back, puts the other
party's voice on a channel, quieter and a few milliseconds late. ASR then transcribes the same words on
both channels. This module measures that leak from the audio alone, streamed:

- the signal is cut into 1 s windows (from a carried buffer, so the result does not depend on block size);
- a window where one channel (the source) is at least `DOMINANCE_DB` louder than the other is a chance to
  see the leak: the quiet channel then holds nothing but the leak and the line noise;
- the normalised cross-correlation of the two channels over lags 0..`MAX_LAG_S` (FFT) finds the lag where
  the quiet channel best matches the source; above `MIN_CORRELATION` the window counts as bleed, and the
  least-squares gain at that lag is the leak level (dB relative to the source);
- per direction the median level and lag over the bleed windows are reported, with how many windows
  looked and how many saw bleed.

A channel that carries its own, different speech while the other talks does not correlate with it, so
real overlaps are not mistaken for bleed.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

WINDOW_S = 1.0
MAX_LAG_S = 0.08  # echo paths of phone lines and headsets are well under this
DOMINANCE_DB = 6.0  # the source must be this much louder than the other channel in a window
SOURCE_MIN_DBFS = -45.0  # windows where the source is quieter than this are not used
MIN_CORRELATION = 0.3  # normalised cross-correlation peak that counts as "the same signal"
MIN_BLEED_WINDOWS = 2  # fewer bleed windows than this: no leak reported
MAX_WINDOWS = 120  # per direction: the medians are settled long before; keeps long calls cheap
_EPS = 1e-12


class ChannelLeak(BaseModel):
    """The other channel's leak into `channel`: level relative to the other channel, and its lag."""

    model_config = ConfigDict(extra="forbid")
    channel: int = Field(description="The channel that hears the other one.")
    source: int = Field(description="The channel whose speech leaks in.")
    windows: int = Field(
        0, description="1 s windows where the source talked and this channel was quiet (the first 120 are analysed)."
    )
    bleed_windows: int = Field(0, description="... of which this channel carried the source's signal.")
    level_db: float | None = Field(None, description="Median leak level in dB relative to the source (e.g. -16).")
    lag_ms: float | None = Field(None, description="Median delay of the leak behind the source, in ms.")
    correlation: float | None = Field(None, description="Median normalised cross-correlation of bleed windows.")

    @property
    def detected(self) -> bool:
        return self.level_db is not None


class Crosstalk(BaseModel):
    """Cross-talk of a two-channel recording: one `ChannelLeak` per channel (index = channel)."""

    model_config = ConfigDict(extra="forbid")
    leaks: list[ChannelLeak]

    def leak_into(self, channel: int) -> ChannelLeak | None:
        return next((x for x in self.leaks if x.channel == channel), None)

    def summary(self) -> str:
        """'ch0<-ch1 -16.1 dB 12 ms; ch1<-ch0 none' for tables and logs."""
        parts = []
        for x in self.leaks:
            what = f"{x.level_db:.1f} dB {x.lag_ms:.0f} ms" if x.detected else "none"
            parts.append(f"ch{x.channel}<-ch{x.source} {what}")
        return "; ".join(parts)


def _db(power: float) -> float:
    return 10.0 * float(np.log10(max(power, _EPS)))


def window_leak(src: np.ndarray, dst: np.ndarray, max_lag: int) -> tuple[float, int, float]:
    """(normalised correlation peak, lag in samples >= 0, gain) of `dst` explained as a delayed copy of `src`.

    One real FFT over both channels (rows of one array) and one inverse; the energies by `einsum`, not `np.dot`:
    OpenBLAS threads a dot over more than 10 000 samples, which on a loaded machine costs milliseconds a call and
    makes the last bits depend on the thread count. Against the time-domain definition (`np.correlate` over lags
    0..max_lag, energies by `np.sum`) the correlation and gain agree to 1e-9 relative, the lag exactly
    (vak_pipeline_tests/audio/test_crosstalk_measure.py)."""
    n = len(src)
    size = 1 << int(np.ceil(np.log2(n + max_lag + 1)))  # no wrap-around into lags 0..max_lag
    spec = np.fft.rfft(np.stack([src, dst]), size, axis=1)
    xc = np.fft.irfft(spec[1] * np.conj(spec[0]), size)[: max_lag + 1]  # xc[k] = sum src[t] * dst[t + k]
    k = int(np.argmax(np.abs(xc)))
    es = float(np.einsum("i,i->", src, src))
    ed = float(np.einsum("i,i->", dst, dst))
    corr = abs(float(xc[k])) / np.sqrt(max(es * ed, _EPS))
    return corr, k, float(xc[k]) / max(es, _EPS)


class CrosstalkMeter:
    """Feed (frames, 2) float blocks in order; `result()` gives the leak of each channel into the other."""

    def __init__(self, sample_rate: int) -> None:
        self.sample_rate = sample_rate
        self.window = max(1, int(round(WINDOW_S * sample_rate)))
        self.max_lag = int(round(MAX_LAG_S * sample_rate))
        self._carry = np.zeros((0, 2), dtype=np.float32)
        # per destination channel: windows looked at, [(corr, lag, gain_db)] of bleed windows
        self._seen = [0, 0]
        self._bleed: list[list[tuple[float, float, float]]] = [[], []]

    def feed(self, block: np.ndarray) -> None:
        if block.ndim != 2 or block.shape[1] != 2 or not len(block):
            return
        buf = np.concatenate([self._carry, block]) if len(self._carry) else block
        n = len(buf) // self.window
        for i in range(n):
            self._window(buf[i * self.window : (i + 1) * self.window].astype(np.float64))
        self._carry = buf[n * self.window :].copy()

    def _window(self, w: np.ndarray) -> None:
        p = [_db(float(np.mean(w[:, c] ** 2))) for c in (0, 1)]
        src = 0 if p[0] >= p[1] else 1
        dst = 1 - src
        if p[src] < SOURCE_MIN_DBFS or p[src] - p[dst] < DOMINANCE_DB or self._seen[dst] >= MAX_WINDOWS:
            return
        self._seen[dst] += 1
        corr, lag, gain = window_leak(np.ascontiguousarray(w[:, src]), np.ascontiguousarray(w[:, dst]), self.max_lag)
        if corr >= MIN_CORRELATION and gain != 0.0:
            self._bleed[dst].append((corr, lag / self.sample_rate * 1000.0, 20.0 * np.log10(abs(gain))))

    def result(self) -> Crosstalk:
        leaks = []
        for dst in (0, 1):
            found = self._bleed[dst]
            leak = ChannelLeak(channel=dst, source=1 - dst, windows=self._seen[dst], bleed_windows=len(found))
            if len(found) >= MIN_BLEED_WINDOWS:
                arr = np.array(found)
                leak.correlation = round(float(np.median(arr[:, 0])), 3)
                leak.lag_ms = round(float(np.median(arr[:, 1])), 1)
                leak.level_db = round(float(np.median(arr[:, 2])), 1)
            leaks.append(leak)
        return Crosstalk(leaks=leaks)


def measure_crosstalk(audio: np.ndarray, sample_rate: int) -> Crosstalk | None:
    """Cross-talk of a whole (frames, 2) signal; None for anything that is not two channels."""
    if audio.ndim != 2 or audio.shape[1] != 2:
        return None
    meter = CrosstalkMeter(sample_rate)
    meter.feed(np.asarray(audio, dtype=np.float32))
    return meter.result()
