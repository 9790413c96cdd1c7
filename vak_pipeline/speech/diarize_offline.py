"""Who spoke when in a mono call, offline: weights that ship inside installed wheels, nothing downloaded.

The production engine is pyannote (`speech.diarize.Diarizer`), whose pretrained pipelines are gated on the
Hugging Face hub. A fresh machine has no such weights, and a mono call would then be dropped. This
engine needs only packages from PyPI that carry their weights:
- speech regions: Silero VAD, bundled with faster-whisper (`faster_whisper.vad`);
- speaker embeddings: the GE2E speaker encoder in the `resemblyzer` wheel, on short sliding windows
  (`WINDOW_S` long, every `HOP_S`) of the speech;
- two speakers: spectral clustering (scikit-learn, k-nearest-neighbour affinity, seeded) of the window
  embeddings, labels smoothed over neighbouring windows, then every 10 ms of speech takes the label of
  the nearest window. (Spectral clustering gave a lower DER than agglomerative (cosine, average) and
  k-means on the generated mono calls and on pyannote's real sample; bench/bench_realcalls.py measures it.)

It has the same interface as `Diarizer` (`engine`, `fingerprint()`, `diarize(audio, sr)`), so the speech
stage and the agent rule (`diarize.attribute_words`) are unchanged. `confidence()` of a result is the
mean cosine margin of the windows between their own and the other speaker's centroid (0..1).
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .diarize import DiarizationResult, Diarizer, DiarizerSettings
from .models import SpeakerSegment

ENGINE = "offline:resemblyzer"
RATE = 16000
WINDOW_S = 1.2
HOP_S = 0.2
MIN_SPEECH_SHARE = 0.5  # windows with less speech than this (by VAD) are not embedded
STEP_S = 0.01
MEL_HOP = 160  # resemblyzer's mel frames: 10 ms at 16 kHz
_ENCODERS: dict[str, Any] = {}
_LOCK = threading.Lock()


def offline_available() -> bool:
    """True when the offline engine's packages are installed (resemblyzer, scikit-learn, faster-whisper)."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("resemblyzer", "sklearn", "faster_whisper"))


def _encoder(device: str) -> Any:
    with _LOCK:
        if device not in _ENCODERS:
            from resemblyzer import VoiceEncoder

            _ENCODERS[device] = VoiceEncoder(device, verbose=False)
        return _ENCODERS[device]


def speech_regions(x: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) samples of speech at 16 kHz by faster-whisper's bundled Silero VAD."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    opts = VadOptions(min_silence_duration_ms=200, speech_pad_ms=60, min_speech_duration_ms=150)
    return [(int(s["start"]), int(s["end"])) for s in get_speech_timestamps(x, opts, sampling_rate=RATE)]


def _smooth(labels: np.ndarray, k: int = 2) -> np.ndarray:
    """Majority label over each window's neighbours (k each side): one odd window does not make a turn."""
    out = labels.copy()
    for i in range(len(labels)):
        seg = labels[max(0, i - k) : i + k + 1]
        out[i] = int(np.bincount(seg).argmax())
    return out


TORCH_THREADS = 1  # the speaker encoder's threads: fixed, so its output does not depend on the environment


@dataclass
class OfflineDiarizer:
    """Two-speaker diarization of a mono call from wheel-shipped weights; see module doc."""

    num_speakers: int | None = 2
    device: str = "cpu"
    last_confidence: float | None = field(default=None, init=False)

    @property
    def engine(self) -> str:
        return ENGINE

    def fingerprint(self) -> str:
        """Part of the transcript cache key: engine, its windowing, the speaker count and the numerics."""
        ident = (f"{ENGINE}|spectral|{WINDOW_S}|{HOP_S}|{MIN_SPEECH_SHARE}|{self.num_speakers}|"
                 f"{TORCH_THREADS}|{self.device}")
        return hashlib.sha256(ident.encode()).hexdigest()[:16]

    def diarize(self, audio: np.ndarray, sample_rate: int) -> DiarizationResult:
        """Speaker segments of a mono signal (1-D float array)."""
        import soxr
        from resemblyzer.audio import wav_to_mel_spectrogram
        from sklearn.cluster import SpectralClustering

        x = np.asarray(audio, dtype=np.float32)
        if sample_rate != RATE:
            x = soxr.resample(x, sample_rate, RATE).astype(np.float32)
        regions = speech_regions(x)
        if not regions:
            return DiarizationResult(segments=[], labels=[])
        speech = np.zeros(len(x), dtype=bool)
        for a, b in regions:
            speech[a:b] = True
        win, hop = int(WINDOW_S * RATE), int(HOP_S * RATE)
        starts = [s for s in range(0, max(len(x) - win, 0) + 1, hop) if speech[s : s + win].mean() >= MIN_SPEECH_SHARE]
        if len(starts) < 2:
            seg = [
                SpeakerSegment(label="SPEAKER_00", start=round(a / RATE, 3), end=round(b / RATE, 3)) for a, b in regions
            ]
            return DiarizationResult(segments=seg, labels=["SPEAKER_00"])
        import torch

        peak = float(np.abs(x).max()) or 1.0
        mel = wav_to_mel_spectrogram(x / peak)  # once for the whole call: 10 ms frames, windows are slices of it
        frames = win // MEL_HOP
        first = [s // MEL_HOP for s in starts]
        mels = np.stack([mel[f : f + frames] for f in first if f + frames <= len(mel)]).astype(np.float32)
        starts = starts[: len(mels)]
        threads = torch.get_num_threads()
        torch.set_num_threads(TORCH_THREADS)  # a fixed reduction order: same embeddings under any OMP_NUM_THREADS
        try:
            with torch.no_grad():
                emb = _encoder(self.device)(torch.from_numpy(mels).to(self.device)).cpu().numpy()
        finally:
            torch.set_num_threads(threads)
        k = min(self.num_speakers or 2, len(starts))
        raw = SpectralClustering(
            n_clusters=k, affinity="nearest_neighbors", n_neighbors=min(10, len(starts) - 1), random_state=0
        ).fit_predict(emb)
        labels = _smooth(raw)
        self.last_confidence = _margin(emb, labels, k)
        centers = (np.array(starts) + win / 2) / RATE
        # every 10 ms step of speech takes the label of the nearest window centre
        step = int(STEP_S * RATE)
        segs: list[tuple[int, float, float]] = []
        for a, b in regions:
            for s in range(a, b, step):
                t = (s + step / 2) / RATE
                lab = int(labels[int(np.argmin(np.abs(centers - t)))])
                end = min(s + step, b) / RATE
                if segs and segs[-1][0] == lab and abs(segs[-1][2] - s / RATE) < 1e-6:
                    segs[-1] = (lab, segs[-1][1], end)
                else:
                    segs.append((lab, s / RATE, end))
        # name speakers by first appearance: SPEAKER_00 speaks first
        order: dict[int, str] = {}
        for lab, _a, _b in segs:
            order.setdefault(lab, f"SPEAKER_{len(order):02d}")
        out = [SpeakerSegment(label=order[lab], start=round(a, 3), end=round(b, 3)) for lab, a, b in segs]
        return DiarizationResult(segments=out, labels=sorted(set(order.values())))


def _margin(emb: np.ndarray, labels: np.ndarray, k: int) -> float:
    """Mean of (cos to own centroid - cos to the other centroid), clipped to 0..1: how separable the speakers are."""
    if k < 2:
        return 0.0
    cents = np.stack([emb[labels == c].mean(axis=0) for c in range(k)])
    cents /= np.linalg.norm(cents, axis=1, keepdims=True) + 1e-9
    sims = emb @ cents.T
    own = sims[np.arange(len(labels)), labels]
    sims[np.arange(len(labels)), labels] = -np.inf
    return round(float(np.clip(np.mean(own - sims.max(axis=1)), 0.0, 1.0)), 3)


def pyannote_weights_present(pipeline: str) -> bool:
    """A local pipeline directory with config.yaml, or a hub id whose config.yaml is already in the local HF cache."""
    from pathlib import Path

    if not pipeline:
        return False
    if Path(pipeline).exists():
        return (Path(pipeline) / "config.yaml").is_file() or Path(pipeline).is_file()
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(pipeline, "config.yaml"), str)
    except Exception:  # huggingface_hub missing or an odd id: not available offline
        return False


def select_diarizer(settings: DiarizerSettings | None = None) -> tuple[Any, str]:
    """(diarizer or None, why) for mono recordings.

    auto: pyannote when `settings.pipeline` is set and its weights are on this machine, else the offline
    engine (when installed), else None (mono calls are reported as needing diarization); pyannote / offline:
    that engine as configured; none: no diarizer.
    """
    s = settings or DiarizerSettings()
    if s.engine == "none":
        return None, "diarization switched off (engine: none)"
    if s.engine == "pyannote" or (s.engine == "auto" and pyannote_weights_present(s.pipeline)):
        if not s.pipeline:
            return None, "engine pyannote without a pipeline id or directory"
        return Diarizer(pipeline=s.pipeline, token=s.hf_token, device=s.device, num_speakers=s.num_speakers), "pyannote"
    if offline_available():
        why = (
            "offline engine"
            if s.engine == "offline"
            else (
                f"pyannote weights for {s.pipeline!r} are not on this machine: offline engine"
                if s.pipeline
                else "no pyannote pipeline configured: offline engine"
            )
        )
        return OfflineDiarizer(num_speakers=s.num_speakers, device="cpu"), why
    return None, "offline engine not installed (pip install 'vak_pipeline[diarization]')"
