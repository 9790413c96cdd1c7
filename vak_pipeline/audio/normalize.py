"""One recording -> 24 kHz 16-bit PCM WAV, channels kept, streamed block by block, written atomically.

decode (blocks) -> pick channels -> soxr stream -> inspect -> clip -> 16-bit WAV in a temp file beside the
destination -> fsync -> rename. Memory depends on `block_s`, never on the length of the recording; the
source is only ever opened for reading.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..storage import atomic_open
from .decode import AudioError, open_audio
from .inspect import Inspector
from .models import InspectReport
from .resample import StreamResampler

TARGET_RATE = 24000
DEFAULT_BLOCK_S = 5.0
MAX_BLOCK_FRAMES = 1 << 20  # even at 192 kHz x 8 channels a block stays ~32 MB of float32
DEFAULT_MAX_DURATION_S = 4 * 3600.0  # longer "calls" are refused: a few KB of FLAC can claim hours of silence
_WAV_LIMIT = 0xFFFFFFFF - 1024  # larger outputs need RF64 (still read as WAV by libsndfile/soundfile)


def select_channels(channels: int, keep_channels: list[int] | None) -> list[int] | None:
    """Which source channels to keep (None = all). Mono and stereo stay as they are; more needs a choice.

    `keep_channels` is only for files with more than two channels (an upload-wide default must not turn
    its stereo files into something else), so it is ignored for mono and stereo.
    """
    if keep_channels and channels > 2:
        bad = [c for c in keep_channels if not 0 <= c < channels]
        if bad or len(keep_channels) > 2 or len(set(keep_channels)) != len(keep_channels):
            raise AudioError("audio_keep_channels_invalid",
                             f"keep_channels {keep_channels} does not name one or two distinct channels of this "
                             f"{channels}-channel file (channels are numbered from 0)",
                             f"set keep_channels to two channel numbers between 0 and {channels - 1}")
        return list(keep_channels)
    if channels > 2:
        raise AudioError("audio_too_many_channels",
                         f"the file has {channels} channels; only mono or stereo (one channel per party) is used",
                         "name the two channels to keep, e.g. keep_channels: [0, 1] in upload.yaml or a "
                         "recordings.csv row; the first is output channel 0")
    return None


def _too_long(src: Path, seconds: float, limit: float | None) -> AudioError:
    return AudioError("audio_too_long", f"{src.name} lasts {seconds / 3600:.1f} h (at least), over the "
                      f"max_duration_s limit of {limit:.0f} s; it was not decoded",
                      "split the recording into calls, or raise max_duration_s in the normalized_audio config "
                      "if such long recordings are real")


def normalize_recording(src: Path, dst: Path, keep_channels: list[int] | None = None,
                        target_rate: int = TARGET_RATE, block_s: float = DEFAULT_BLOCK_S,
                        quality: str = "HQ", name: str | None = None,
                        max_duration_s: float | None = DEFAULT_MAX_DURATION_S) -> InspectReport:
    """Write `dst` (16-bit PCM WAV at `target_rate`) from `src`; return the inspection of the written audio.

    Raises AudioError (code, message, fix) when the file cannot be used; `dst` is then left untouched.
    A recording longer than `max_duration_s` (by its header, or found while decoding when the header
    lies or says nothing) is refused as `audio_too_long` before anything is written under `dst`.
    """
    import soundfile as sf

    src, dst = Path(src), Path(dst)
    with open_audio(src) as reader:
        info = reader.info
        if max_duration_s is not None and info.duration_s is not None and info.duration_s > max_duration_s:
            raise _too_long(src, info.duration_s, max_duration_s)
        max_frames = None if max_duration_s is None else int(max_duration_s * info.sample_rate) + info.sample_rate
        keep = select_channels(info.channels, keep_channels)
        out_ch = len(keep) if keep else info.channels
        block_frames = max(1024, min(MAX_BLOCK_FRAMES, int(block_s * info.sample_rate)))
        resampler = StreamResampler(info.sample_rate, target_rate, out_ch, quality)
        inspector = Inspector(target_rate, out_ch)
        est_bytes = (info.frames or 0) * target_rate / info.sample_rate * out_ch * 2
        fmt = "RF64" if est_bytes > _WAV_LIMIT else "WAV"
        # temp file beside dst, fsynced and renamed over it only when the whole recording was written
        with atomic_open(dst, "wb", encoding=None) as fh:
            with sf.SoundFile(fh, "w", samplerate=target_rate, channels=out_ch, subtype="PCM_16",
                              format=fmt) as out:

                def emit(y: np.ndarray) -> None:
                    if len(y):
                        inspector.feed(y)
                        out.write(np.clip(y, -1.0, 1.0))

                decoded = 0
                for block in reader.blocks(block_frames):
                    decoded += len(block)
                    if max_frames is not None and decoded > max_frames:
                        raise _too_long(src, decoded / info.sample_rate, max_duration_s)
                    if keep:
                        block = block[:, keep]
                    emit(resampler.process(block))
                emit(resampler.process(np.zeros((0, out_ch), dtype=np.float32), last=True))
            if inspector.frames == 0:
                raise AudioError("audio_no_samples", f"{src.name} decoded to no audio samples",
                                 "re-export the recording; this file has a header but no sound")
    return inspector.report(name or src.name, source_sample_rate=info.sample_rate,
                            source_channels=info.channels if keep else None, source_format=info.format)
