"""Streaming inspection of audio: levels, silence, clipping and a simple energy VAD, block by block.

It measures and notes; it never guesses the recording `condition` (that is the uploader's to declare).
Results do not depend on the block size: 30 ms frames and 10 s VAD windows are cut from a carried buffer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .crosstalk import CrosstalkMeter
from .models import InspectReport

FRAME_S = 0.030
VAD_WINDOW_FRAMES = 333  # ~10 s: the noise floor is re-estimated per window
SILENCE_DBFS = -50.0  # a frame below this on every channel is silence
SPEECH_MIN_DBFS = -55.0  # a frame quieter than this is never speech
SPEECH_OVER_FLOOR_DB = 10.0  # ... and it must stand this far above the window's noise floor
CLIP_LEVEL = 0.999  # |sample| at or above this counts as clipped
_EPS = 1e-10


def _db(x: np.ndarray | float) -> np.ndarray | float:
    return 20.0 * np.log10(np.maximum(x, _EPS))


class Inspector:
    """Feed float32 (frames, channels) blocks in order; `report()` summarizes everything seen."""

    def __init__(self, sample_rate: int, channels: int) -> None:
        self.sample_rate, self.channels = sample_rate, channels
        self.frame_len = max(1, int(round(FRAME_S * sample_rate)))
        self.frames = 0
        self._sumsq = np.zeros(channels, dtype=np.float64)
        self._peak = np.zeros(channels, dtype=np.float64)
        self._clipped = 0
        self._carry = np.zeros((0, channels), dtype=np.float32)
        self._window: list[np.ndarray] = []  # frame levels (dB) waiting for a full VAD window
        self._window_n = 0
        self._n_frames = 0
        self._silent = 0
        self._speech = np.zeros(channels, dtype=np.int64)
        self._crosstalk = CrosstalkMeter(sample_rate) if channels == 2 else None

    def feed(self, block: np.ndarray) -> None:
        if block.ndim == 1:
            block = block[:, None]
        if not len(block):
            return
        self.frames += len(block)
        b64 = block.astype(np.float64, copy=False)
        self._sumsq += np.einsum("ij,ij->j", b64, b64)
        absb = np.abs(block)
        self._peak = np.maximum(self._peak, absb.max(axis=0))
        self._clipped += int(np.count_nonzero(absb >= CLIP_LEVEL))
        if self._crosstalk is not None:
            self._crosstalk.feed(block)
        buf = np.concatenate([self._carry, block]) if len(self._carry) else block
        n = len(buf) // self.frame_len
        self._carry = buf[n * self.frame_len:].copy()
        if n:
            self._frames(buf[: n * self.frame_len])

    def _frames(self, buf: np.ndarray) -> None:
        fr = buf.reshape(-1, self.frame_len, self.channels).astype(np.float64)
        level = _db(np.sqrt(np.mean(fr * fr, axis=1)))  # (n_frames, channels)
        self._n_frames += len(level)
        self._silent += int(np.count_nonzero((level < SILENCE_DBFS).all(axis=1)))
        self._window.append(level)
        self._window_n += len(level)
        while self._window_n >= VAD_WINDOW_FRAMES:
            joined = np.concatenate(self._window)
            self._vad(joined[:VAD_WINDOW_FRAMES])
            rest = joined[VAD_WINDOW_FRAMES:]
            self._window, self._window_n = ([rest], len(rest)) if len(rest) else ([], 0)

    def _vad(self, level: np.ndarray) -> None:
        """Energy VAD over one window: speech = loud enough and clearly above the window's noise floor."""
        floor = np.percentile(level, 10, axis=0)
        speech = (level > SPEECH_MIN_DBFS) & (level > floor + SPEECH_OVER_FLOOR_DB)
        self._speech += speech.sum(axis=0)

    def _finish(self) -> None:
        if len(self._carry):  # a final partial frame still counts
            pad = np.zeros((self.frame_len - len(self._carry), self.channels), dtype=np.float32)
            tail = np.concatenate([self._carry, pad])
            self._carry = self._carry[:0]
            self._frames(tail)
        if self._window_n:
            self._vad(np.concatenate(self._window))
            self._window, self._window_n = [], 0

    def report(self, file: str, source_sample_rate: int | None = None, source_channels: int | None = None,
               source_format: str | None = None) -> InspectReport:
        self._finish()
        frames = max(self.frames, 0)
        rms = np.sqrt(self._sumsq / frames) if frames else np.zeros(self.channels)
        nf = max(self._n_frames, 1)
        rep = InspectReport(
            file=file, sample_rate=self.sample_rate, channels=self.channels, frames=frames,
            duration_s=round(frames / self.sample_rate, 6),
            source_sample_rate=source_sample_rate, source_channels=source_channels, source_format=source_format,
            rms_dbfs=[round(float(v), 2) for v in _db(rms)], peak_dbfs=[round(float(v), 2) for v in _db(self._peak)],
            silence_ratio=round(self._silent / nf, 4),
            clipping_ratio=round(self._clipped / max(frames * self.channels, 1), 6),
            speech_ratio=[round(float(v) / nf, 4) for v in self._speech],
            crosstalk=self._crosstalk.result() if self._crosstalk is not None else None,
        )
        rep.notes = notes_for(rep)
        return rep


def notes_for(rep: InspectReport) -> list[str]:
    """Plain observations for a steward. Reported facts, not verdicts and not a `condition`."""
    notes = []
    src = rep.source_sample_rate or rep.sample_rate
    if src < 16000:
        notes.append(f"narrowband source ({src} Hz): nothing above {src // 2} Hz")
    if rep.source_sample_rate and rep.source_sample_rate != rep.sample_rate:
        notes.append(f"resampled from {rep.source_sample_rate} Hz to {rep.sample_rate} Hz")
    if rep.source_channels and rep.source_channels != rep.channels:
        notes.append(f"{rep.channels} of {rep.source_channels} source channels kept")
    if rep.duration_s < 1.0:
        notes.append(f"very short: {rep.duration_s:.2f} s")
    if rep.clipping_ratio > 0.001:
        notes.append(f"clipping on {100 * rep.clipping_ratio:.2f}% of samples")
    if rep.silence_ratio > 0.9:
        notes.append(f"mostly silent: {100 * rep.silence_ratio:.0f}% of frames")
    if rep.channels > 1:
        for ch, ratio in enumerate(rep.speech_ratio):
            if ratio == 0.0:
                notes.append(f"channel {ch} has no detected speech")
    for leak in rep.crosstalk.leaks if rep.crosstalk else []:
        if leak.detected:
            notes.append(f"cross-talk: channel {leak.channel} carries channel {leak.source} at {leak.level_db:.0f} dB, "
                         f"{leak.lag_ms:.0f} ms late")
    return notes


def inspect_file(path: Path, block_s: float = 5.0, name: str | None = None) -> InspectReport:
    """Inspect one recording as it is (no resampling), streaming it in blocks of `block_s` seconds."""
    from .decode import open_audio

    path = Path(path)
    with open_audio(path) as src:
        info = src.info
        ins = Inspector(info.sample_rate, info.channels)
        for block in src.blocks(max(1, int(block_s * info.sample_rate))):
            ins.feed(block)
    return ins.report(name or path.name, source_format=info.format)


def inspect_path(path: Path, block_s: float = 5.0) -> tuple[list[InspectReport], list[tuple[str, str, str, str]]]:
    """Inspect a recording, or every recording under a directory: (reports, [(file, code, reason, fix)])."""
    from ..uploads.inventory import AUDIO_SUFFIXES
    from .decode import AudioError

    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in AUDIO_SUFFIXES)
        names = [p.relative_to(path).as_posix() for p in files]
    else:
        files, names = [path], [path.name]
    reports, errors = [], []
    for f, name in zip(files, names, strict=True):
        try:
            reports.append(inspect_file(f, block_s=block_s, name=name))
        except AudioError as exc:
            errors.append((name, exc.code, exc.message, exc.fix))
    return reports, errors
