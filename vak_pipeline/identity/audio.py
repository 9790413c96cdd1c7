"""Audio identity: an exact key over decoded PCM and Chromaprint fingerprints per channel and of the mix.

Chromaprint (through pyacoustid's binding to libchromaprint) hashes chroma features of ~0.12 s frames at
11 kHz, so resampling, gain and lossy re-encoding change few bits; a shift search absorbs trimmed or padded
silence. The exact key hashes the 16-bit samples, so a FLAC and a WAV of one recording share it whatever
their tags or names.

Each fingerprint frame also gets a weight from the energy of the audio it was computed from: a channel of a
stereo call is silent most of the time (the other side is talking), and low noise in a copy turns the
silence's constant frame into random bits. Frames that are silence (far below the channel's speech level)
count for nothing in the bit error, so a noisy copy is found per channel and two silences do not look alike.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..audio.decode import open_audio
from ..audio.resample import StreamResampler

BLOCK_FRAMES = 1 << 16
FRAME_SECONDS = 4096 / 3 / 11025  # Chromaprint's hop at its 11025 Hz working rate (about 0.124 s)
MAX_SHIFT_FRAMES = 32  # about 4 s of trimmed or added lead-in on either side
MIN_DISTINCT = 0.2  # a fingerprint with fewer distinct frames than this share is silence or a tone
HOP = 1365  # Chromaprint's hop in samples at 11025 Hz, its working rate (frames of 4096, 2/3 overlap)
SPAN_HOPS = 22  # a fingerprint frame is computed from 20 chroma frames of 3 hops each: hops [i, i + 22)
SPEECH_BELOW_DB = 30.0  # a hop this far below the channel's loud hops (95th percentile) is silence: weight 0
RAMP_DB = 10.0  # ... rising to full weight 10 dB above that
FLOOR_DBFS = -70.0  # and a hop below this is silence whatever the channel's level
CHROMA_RATE = 11025  # Chromaprint's working rate: audio is resampled to it once, for every channel and the mix


@dataclass
class AudioPrint:
    """The identity of one recording: its exact key and one fingerprint per channel (plus the mix)."""

    exact: str
    sample_rate: int
    channels: list[np.ndarray] = field(default_factory=list)  # uint32 Chromaprint frames per channel
    mix: np.ndarray | None = None  # of the mono mix; the channel itself for mono audio
    seconds: float = 0.0
    weights: list[np.ndarray] = field(default_factory=list)  # per channel, one uint8 weight (0-255) per frame
    mix_weights: np.ndarray | None = None


class _Energy:
    """Sum of squares per Chromaprint hop of one signal, fed block by block (memory: one float per hop)."""

    def __init__(self, sample_rate: int) -> None:
        self.hop = HOP * sample_rate / 11025
        self.sums = np.zeros(0)
        self.pos = 0

    def feed(self, x: np.ndarray) -> None:
        if not len(x):
            return
        # sample i of the signal is in hop floor(i / hop): sum the block's squares between hop boundaries
        first, last = int(self.pos // self.hop), int((self.pos + len(x) - 1) // self.hop)
        bounds = np.ceil(np.arange(first + 1, last + 1) * self.hop).astype(np.int64) - self.pos
        self.pos += len(x)
        start = first
        add = np.add.reduceat(np.square(x, dtype=np.float64), np.concatenate([[0], bounds]))
        if start + len(add) > len(self.sums):
            self.sums = np.concatenate([self.sums, np.zeros(start + len(add) - len(self.sums))])
        self.sums[start:start + len(add)] += add

    def weights(self, n_frames: int) -> np.ndarray:
        """One weight per fingerprint frame: the share of the hops it spans that are speech, squared (a frame
        that is part silence is part noise in a noisy copy), as uint8 (0-255)."""
        sums = np.concatenate([self.sums, np.zeros(max(0, n_frames + SPAN_HOPS - len(self.sums)))])
        speech = energy_weights(10 * np.log10(np.maximum(sums / self.hop, 1e-12)))
        cum = np.concatenate([[0.0], np.cumsum(speech)])
        share = (cum[SPAN_HOPS:SPAN_HOPS + n_frames] - cum[:n_frames]) / SPAN_HOPS
        return np.round(share**2 * 255).astype(np.uint8)


def energy_weights(db: np.ndarray) -> np.ndarray:
    """How much each hop at `db` dBFS is speech (0-1): 0 for silence, 1 at speech level."""
    if not len(db):
        return np.zeros(0)
    low = max(FLOOR_DBFS, float(np.percentile(db, 95)) - SPEECH_BELOW_DB)
    return np.clip((db - low) / RAMP_DB, 0.0, 1.0)


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
    """Decode `path` once (streamed) into its exact key and fingerprints; raises audio.AudioError.

    Chromaprint works at 11025 Hz and would resample each stream itself (most of its cost); all channels are
    resampled here in one soxr stream instead, and the mix is taken of the resampled channels (resampling is
    linear), which gives the fingerprints Chromaprint makes of the original rate at a third of the cost."""
    with open_audio(Path(path)) as reader:
        sr, ch = reader.info.sample_rate, reader.info.channels
        digest = hashlib.sha256(f"pcm16:{sr}:{ch}:".encode())
        fps = [_fingerprinter(CHROMA_RATE) for _ in range(ch)]
        energy = [_Energy(sr) for _ in range(ch)]
        mix_fp = _fingerprinter(CHROMA_RATE) if ch > 1 else None
        mix_energy = _Energy(sr)
        resampler = StreamResampler(sr, CHROMA_RATE, ch)
        share = np.full(ch, 1.0 / ch, dtype=np.float32)  # the mix: a mean over channels, as one product

        def feed(y: np.ndarray) -> None:
            if not len(y):
                return
            pcm = _pcm16(y)
            for c in range(ch):
                fps[c].feed(np.ascontiguousarray(pcm[:, c]).tobytes())
            if mix_fp is not None:
                mix_fp.feed(_pcm16(y @ share).tobytes())

        frames = 0
        for block in reader.blocks(BLOCK_FRAMES):
            pcm = _pcm16(block)
            digest.update(pcm.tobytes())
            frames += len(pcm)
            for c in range(ch):
                energy[c].feed(block[:, c])
            if mix_fp is not None:
                mix_energy.feed(block @ share)
            feed(resampler.process(block))
        feed(resampler.process(np.zeros((0, ch), dtype=np.float32), last=True))
    channels = [_frames(fp) for fp in fps]
    weights = [e.weights(len(f)) for e, f in zip(energy, channels, strict=True)]
    mix = _frames(mix_fp) if mix_fp is not None else channels[0]
    mix_weights = mix_energy.weights(len(mix)) if mix_fp is not None else weights[0]
    return AudioPrint(digest.hexdigest(), sr, channels, mix, frames / sr if sr else 0.0, weights, mix_weights)


def _active(frames: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    return frames if weights is None or len(weights) != len(frames) else frames[weights >= 128]


def informative(frames: np.ndarray, weights: np.ndarray | None = None) -> bool:
    """Whether a fingerprint can identify anything (silence and steady tones repeat one frame value); with
    `weights`, judged on the frames that are not silence."""
    frames = _active(frames, weights)
    return len(frames) >= 16 and len(np.unique(frames)) >= MIN_DISTINCT * len(frames)


def bit_error(a: np.ndarray, b: np.ndarray, min_overlap: float, max_shift: int = MAX_SHIFT_FRAMES,
              wa: np.ndarray | None = None, wb: np.ndarray | None = None) -> float:
    """Smallest share of differing bits over the shifts that line up at least `min_overlap` of the shorter
    fingerprint with the other; 1.0 when no shift does (or either one is uninformative).

    With energy weights (`wa`, `wb`: uint8 per frame, None = all 255) a frame counts by the smaller of its two
    weights, so what is silence in either copy counts for nothing, and the overlap is measured in weight."""
    if not (informative(a, wa) and informative(b, wb)):
        return 1.0
    ua = _unit(wa, len(a))
    ub = _unit(wb, len(b))
    need = max(16.0, min_overlap * min(float(ua.sum()), float(ub.sum())))
    best = 1.0
    for shift in range(-max_shift, max_shift + 1):
        x, y, vx, vy = (a[shift:], b, ua[shift:], ub) if shift >= 0 else (a, b[-shift:], ua, ub[-shift:])
        n = min(len(x), len(y))
        w = np.minimum(vx[:n], vy[:n])
        mass = float(w.sum())
        if mass < need:
            continue
        errors = float(np.dot(np.bitwise_count(np.bitwise_xor(x[:n], y[:n])).astype(np.float64), w))
        best = min(best, errors / (32 * mass))
    return best


def _unit(weights: np.ndarray | None, n: int) -> np.ndarray:
    if weights is None or len(weights) != n:
        return np.ones(n)
    return weights.astype(np.float64) / 255.0


def sample_keys(frames: np.ndarray, every: int = 4, weights: np.ndarray | None = None) -> list[int]:
    """Content-defined sample of a fingerprint's frame values (those divisible by `every`, silence left out):
    two copies of one recording share most of them whatever was trimmed, so they find each other in the index."""
    if not informative(frames, weights):
        return []
    frames = _active(frames, weights)
    vals = np.unique(frames[frames % every == 0])
    return [int(v) for v in vals]
