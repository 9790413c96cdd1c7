"""Audio identity: an exact key over decoded PCM and Chromaprint fingerprints per channel and of the mix.

Chromaprint (through pyacoustid's binding to libchromaprint) hashes chroma features of ~0.12 s frames at
11 kHz, so resampling, gain and lossy re-encoding change few bits; a shift search absorbs trimmed or padded
silence. The exact key hashes the 16-bit samples, so a FLAC and a WAV of one recording share it whatever
their tags or names.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..audio.decode import open_audio

BLOCK_FRAMES = 1 << 16
FRAME_SECONDS = 4096 / 3 / 11025  # Chromaprint's hop at its 11025 Hz working rate (about 0.124 s)
MAX_SHIFT_FRAMES = 32  # about 4 s of trimmed or added lead-in on either side
MIN_DISTINCT = 0.2  # a fingerprint with fewer distinct frames than this share is silence or a tone


@dataclass
class AudioPrint:
    """The identity of one recording: its exact key and one fingerprint per channel (plus the mix)."""

    exact: str
    sample_rate: int
    channels: list[np.ndarray] = field(default_factory=list)  # uint32 Chromaprint frames per channel
    mix: np.ndarray | None = None  # of the mono mix; the channel itself for mono audio
    seconds: float = 0.0


def _fingerprinter(sample_rate: int):
    import chromaprint

    fp = chromaprint.Fingerprinter()
    fp.start(sample_rate, 1)
    return fp


def _frames(fp) -> np.ndarray:
    import chromaprint

    raw, _ = chromaprint.decode_fingerprint(fp.finish())
    return np.asarray(raw, dtype=np.int64).astype(np.uint32)


def _pcm16(block: np.ndarray) -> np.ndarray:
    return np.clip(np.round(block * 32768.0), -32768, 32767).astype("<i2")


def audio_print(path: Path) -> AudioPrint:
    """Decode `path` once (streamed) into its exact key and fingerprints; raises audio.AudioError."""
    with open_audio(Path(path)) as reader:
        sr, ch = reader.info.sample_rate, reader.info.channels
        digest = hashlib.sha256(f"pcm16:{sr}:{ch}:".encode())
        fps = [_fingerprinter(sr) for _ in range(ch)]
        mix_fp = _fingerprinter(sr) if ch > 1 else None
        frames = 0
        for block in reader.blocks(BLOCK_FRAMES):
            pcm = _pcm16(block)
            digest.update(pcm.tobytes())
            frames += len(pcm)
            for c in range(ch):
                fps[c].feed(np.ascontiguousarray(pcm[:, c]).tobytes())
            if mix_fp is not None:
                mix_fp.feed(_pcm16(block.mean(axis=1)).tobytes())
    channels = [_frames(fp) for fp in fps]
    mix = _frames(mix_fp) if mix_fp is not None else channels[0]
    return AudioPrint(digest.hexdigest(), sr, channels, mix, frames / sr if sr else 0.0)


def informative(frames: np.ndarray) -> bool:
    """Whether a fingerprint can identify anything (silence and steady tones repeat one frame value)."""
    return len(frames) >= 16 and len(np.unique(frames)) >= MIN_DISTINCT * len(frames)


def bit_error(a: np.ndarray, b: np.ndarray, min_overlap: float, max_shift: int = MAX_SHIFT_FRAMES) -> float:
    """Smallest share of differing bits over the shifts that line up at least `min_overlap` of the shorter
    fingerprint with the other; 1.0 when no shift does (or either one is uninformative)."""
    if not (informative(a) and informative(b)):
        return 1.0
    need = max(16, int(min_overlap * min(len(a), len(b))))
    best = 1.0
    for shift in range(-max_shift, max_shift + 1):
        x, y = (a[shift:], b) if shift >= 0 else (a, b[-shift:])
        n = min(len(x), len(y))
        if n < need:
            continue
        errors = int(np.bitwise_count(np.bitwise_xor(x[:n], y[:n])).sum())
        best = min(best, errors / (32 * n))
    return best


def sample_keys(frames: np.ndarray, every: int = 4) -> list[int]:
    """Content-defined sample of a fingerprint's frame values (those divisible by `every`): two copies of
    one recording share most of them whatever was trimmed, so they find each other in the index."""
    if not informative(frames):
        return []
    vals = np.unique(frames[frames % every == 0])
    return [int(v) for v in vals]
