"""Streaming sample-rate conversion with soxr: block in, block out, state carried between blocks.

Memory is bounded by the block size; the output of a file resampled in blocks equals the output of the
whole file resampled at once (soxr's streaming API keeps the filter state).
"""

from __future__ import annotations

import numpy as np

QUALITIES = ("HQ", "VHQ")


class StreamResampler:
    """Resample float32 (frames, channels) blocks from `in_rate` to `out_rate`; a no-op when they match."""

    def __init__(self, in_rate: int, out_rate: int, channels: int, quality: str = "HQ") -> None:
        if quality not in QUALITIES:
            raise ValueError(f"quality must be one of {QUALITIES}, not {quality!r}")
        self.in_rate, self.out_rate, self.channels = in_rate, out_rate, channels
        self._stream = None
        if in_rate != out_rate:
            import soxr

            self._stream = soxr.ResampleStream(in_rate, out_rate, channels, dtype="float32", quality=quality)

    @property
    def passthrough(self) -> bool:
        return self._stream is None

    def process(self, block: np.ndarray, last: bool = False) -> np.ndarray:
        """Resample one block; pass `last=True` once, on the final block (it may be empty), to flush."""
        if self._stream is None:
            return block
        return self._stream.resample_chunk(np.ascontiguousarray(block, dtype=np.float32), last=last)
