"""Encoder input of the window's own length instead of Whisper's 30 s (AsrSettings.encoder_frames 'window').

faster-whisper's batched pipeline pads every window's log-mel features to 3000 frames (30 s) before the encoder,
whose cost grows faster than its input (tiny.en int8, 2 threads, a batch of 8: ~5.5 CPU s at 3000 frames, ~1.0 s
at 1000), while most windows of a call hold 10-25 s of speech. CTranslate2's Whisper encoder takes any number of
frames, and the word alignment reads only the frames of the window's own seconds, so a group of windows can be
encoded at a length that fits its longest one. The frames beyond the speech are the same zero padding either way:
only less of it is encoded.
"""

from __future__ import annotations

import math
from typing import Any

ASR_RATE = 16000
FRAMES_PER_S = 100  # mel frames per second of audio (hop 160 at 16 kHz)
WINDOW_S = 30  # Whisper's window: the most speech one batched window holds


def bucket_frames(seconds: float, bucket_s: int, margin_s: float, max_s: int = WINDOW_S) -> int:
    """Mel frames the encoder gets for a window of `seconds` of audio: at least `margin_s` more, rounded up to a
    multiple of `bucket_s`, at most `max_s`. Never fewer than the whole seconds the word alignment reads
    (faster-whisper aligns over ceil(duration) seconds; a clip's duration can come out a sample longer)."""
    padded = bucket_s * math.ceil((seconds + margin_s) / bucket_s)
    return min(max(padded, math.ceil(seconds + 1 / ASR_RATE)), max_s) * FRAMES_PER_S


class WindowLengthModel:
    """The shared WhisperModel as one batched pipeline call sees it: `encode` gets the first `frames` mel frames of
    each (30 s-padded) window, everything else is the shared model's. `encoded` lists the frames each window was
    encoded at, in encoding order: what the encoder really got."""

    def __init__(self, shared: Any, frames: int = WINDOW_S * FRAMES_PER_S) -> None:
        self.shared = shared
        self.frames = frames
        self.encoded: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.shared, name)

    def encode(self, features: Any) -> Any:
        features = features[..., : self.frames]
        self.encoded += [int(features.shape[-1])] * (features.shape[0] if features.ndim == 3 else 1)
        return self.shared.encode(features)
