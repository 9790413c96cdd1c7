"""Decode any supported recording into float32 blocks of shape (frames, channels), in bounded memory.

libsndfile (via soundfile) reads WAV, FLAC, OGG and MP3; PyAV (FFmpeg) reads M4A/AAC. A file that cannot
be used raises `AudioError` with a code, a reason and a fix, never a bare decoder exception.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..storage import Closing

SOUNDFILE_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3")
AV_SUFFIXES = (".m4a", ".aac")
_DATA_SIZE = re.compile(r"data\s*:\s*(\d+)\s*\(should be (\d+)\)")
_STREAMING_SIZES = {0, 0xFFFFFFFF, 0x7FFFFFFF}  # writers that did not know the length up front


class AudioError(Exception):
    """A recording the pipeline cannot use: `code` for reports, `message` (why) and `fix` (what to do)."""

    def __init__(self, code: str, message: str, fix: str) -> None:
        super().__init__(message)
        self.code, self.message, self.fix = code, message, fix


@dataclass(frozen=True)
class SourceInfo:
    sample_rate: int
    channels: int
    frames: int | None  # None when the container does not say (some M4A/AAC)
    format: str  # e.g. "WAV/PCM_16", "FLAC/PCM_24", "m4a/aac"

    @property
    def duration_s(self) -> float | None:
        return None if self.frames is None else self.frames / self.sample_rate


def _unreadable(path: Path, detail: str) -> AudioError:
    return AudioError("audio_unreadable",
                      f"{path.name} is not audio the decoder recognises ({detail}); it may be corrupt or another "
                      "kind of file with an audio suffix",
                      "re-export the recording as WAV (PCM) or FLAC, or remove it from the upload")


def _check_not_truncated(sf_file, path: Path) -> None:
    """libsndfile silently shortens a WAV whose data chunk is cut off; its log says so. Refuse such files."""
    m = _DATA_SIZE.search(sf_file.extra_info or "")
    if not m:
        return
    declared, actual = int(m.group(1)), int(m.group(2))
    if declared in _STREAMING_SIZES or declared <= actual + 8:
        return
    pct = 100.0 * actual / declared
    raise AudioError("audio_truncated",
                     f"{path.name} is truncated: its header declares {declared} bytes of audio but only {actual} "
                     f"({pct:.0f}%) are present",
                     "upload the complete file again (the copy or export was interrupted)")


class AudioReader(Closing):
    """An open recording: `info` up front, then `blocks(frames)` streamed once. Use as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        suffix = self.path.suffix.lower()
        if not self.path.is_file():
            raise AudioError("audio_missing", f"{self.path.name} does not exist", "check the file name")
        if self.path.stat().st_size == 0:
            raise AudioError("audio_empty_file", f"{self.path.name} is empty (0 bytes)",
                             "upload the file again; the copy produced an empty file")
        self._sf = None
        self._av = None
        if suffix in AV_SUFFIXES:
            self._open_av()
        elif suffix in SOUNDFILE_SUFFIXES:
            self._open_sf()
        else:
            raise AudioError("audio_unsupported_format", f"{self.path.name}: {suffix or 'no suffix'} is not a "
                             "supported audio format", "convert it to WAV or FLAC "
                             "(e.g. `ffmpeg -i in.xyz -c:a pcm_s16le out.wav`)")

    def _open_sf(self) -> None:
        import soundfile as sf

        try:
            self._sf = sf.SoundFile(str(self.path))
        except sf.LibsndfileError as exc:
            raise _unreadable(self.path, str(exc).split(":")[-1].strip() or "unknown format") from None
        _check_not_truncated(self._sf, self.path)
        self.info = SourceInfo(self._sf.samplerate, self._sf.channels, self._sf.frames,
                               f"{self._sf.format}/{self._sf.subtype}")
        if self.info.frames == 0:
            self.close()
            raise AudioError("audio_no_samples", f"{self.path.name} holds no audio samples",
                             "re-export the recording; this file has a header but no sound")

    def _open_av(self) -> None:
        try:
            import av
        except ImportError:  # pragma: no cover - av ships with faster-whisper
            raise AudioError("audio_unsupported_format", f"{self.path.name}: M4A/AAC needs PyAV, which is not "
                             "installed", "`pip install av`, or convert to WAV/FLAC with ffmpeg") from None
        try:
            self._av = av.open(str(self.path))
            if not self._av.streams.audio:
                raise _unreadable(self.path, "no audio stream")
            stream = self._av.streams.audio[0]
            ctx = stream.codec_context
            frames = None
            if stream.duration is not None and stream.time_base is not None:
                frames = int(round(float(stream.duration * stream.time_base) * ctx.sample_rate))
            self.info = SourceInfo(ctx.sample_rate, ctx.channels, frames,
                                   f"{self.path.suffix.lower().lstrip('.')}/{ctx.name}")
        except AudioError:
            self.close()
            raise
        except (av.FFmpegError, ValueError, OSError) as exc:
            self.close()
            raise _unreadable(self.path, type(exc).__name__) from None

    def blocks(self, block_frames: int) -> Iterator[np.ndarray]:
        """float32 blocks of shape (<= block_frames, channels); raises AudioError on a decode failure."""
        if self._sf is not None:
            yield from self._sf_blocks(block_frames)
        else:
            yield from self._av_blocks(block_frames)

    def _sf_blocks(self, block_frames: int) -> Iterator[np.ndarray]:
        import soundfile as sf

        f = self._sf
        try:
            while True:
                block = f.read(block_frames, dtype="float32", always_2d=True)
                if not len(block):
                    return
                yield block
        except (sf.LibsndfileError, RuntimeError) as exc:
            raise AudioError("audio_decode_failed", f"{self.path.name} could not be decoded past frame "
                             f"{f.tell() if not f.closed else '?'} ({exc})",
                             "the file is damaged; upload it again or re-export it") from None

    def _av_blocks(self, block_frames: int) -> Iterator[np.ndarray]:
        import av

        stream = self._av.streams.audio[0]
        ch = self.info.channels
        resampler = av.AudioResampler(format="flt", layout=stream.codec_context.layout, rate=self.info.sample_rate)
        pending: list[np.ndarray] = []
        n = 0
        try:
            for frame in self._av.decode(stream):
                for out in resampler.resample(frame):
                    arr = out.to_ndarray().reshape(-1, ch)
                    pending.append(arr)
                    n += len(arr)
                    if n >= block_frames:
                        joined = np.concatenate(pending)
                        yield joined[:block_frames]
                        rest = joined[block_frames:]
                        pending, n = ([rest], len(rest)) if len(rest) else ([], 0)
            for out in resampler.resample(None):
                pending.append(out.to_ndarray().reshape(-1, ch))
        except av.FFmpegError as exc:
            raise AudioError("audio_decode_failed", f"{self.path.name} could not be decoded ({type(exc).__name__})",
                             "the file is damaged; upload it again or re-export it") from None
        if pending:
            joined = np.concatenate(pending)
            for i in range(0, len(joined), block_frames):
                yield joined[i:i + block_frames]

    def close(self) -> None:
        if self._sf is not None and not self._sf.closed:
            self._sf.close()
        if self._av is not None:
            self._av.close()
            self._av = None



def open_audio(path: Path) -> AudioReader:
    """Open a recording for streamed decoding (raises AudioError when it cannot be used)."""
    return AudioReader(path)
