"""Power of a signal over any time span in O(1), from a cumulative sum of squares (bleed and hallucination
checks ask it once per word or segment, so summing the samples each time would be quadratic); `db_spans` answers
many spans in one numpy pass with the same arithmetic, value for value (the bleed gate asks it per 50 ms frame)."""

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

    def db_spans(self, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        """`db` of every (start[i], end[i]) at once: the same indices (truncated like `int`) and the same sums."""
        n = len(self.cum) - 1
        a = np.clip(np.trunc(np.asarray(start, dtype=np.float64) * self.sr).astype(np.int64), 0, n)
        b = np.minimum(np.maximum(np.trunc(np.asarray(end, dtype=np.float64) * self.sr).astype(np.int64), a + 1), n)
        empty = b <= a
        width = np.where(empty, 1, b - a)
        power = np.maximum((self.cum[b] - self.cum[a]) / width, _EPS)
        return np.where(empty, -120.0, 10.0 * np.log10(power))
