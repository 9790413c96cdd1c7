"""Power of a signal over any time span in O(1), from a cumulative sum of squares (bleed and hallucination
checks ask it once per word or segment, so summing the samples each time would be quadratic)."""

from __future__ import annotations

import numpy as np

_EPS = 1e-12


class SpanPower:
    """Mean power (dBFS) of one channel between two times in seconds; -120 dB for an empty span."""

    def __init__(self, x: np.ndarray, sample_rate: int) -> None:
        self.sr = sample_rate
        self.cum = np.concatenate([[0.0], np.cumsum(np.asarray(x, dtype=np.float64) ** 2)])

    def db(self, start: float, end: float) -> float:
        n = len(self.cum) - 1
        a = min(max(int(start * self.sr), 0), n)
        b = min(max(int(end * self.sr), a + 1), n)
        if b <= a:
            return -120.0
        return 10.0 * float(np.log10(max((self.cum[b] - self.cum[a]) / (b - a), _EPS)))
