"""Reading a conversation's WAV, finding a speaker's channel, cutting and writing 16-bit clips.

Exports keep samples as int16 end to end (no float round-trip), so a clip is bit-identical to the
span of the normalized (and redacted) recording it came from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np

from ..schema import VakRecord
from ..storage import give_umask_mode, resolve_inside
from .masking import AudioProblem, apply_masks, load_masks  # noqa: F401  (AudioProblem re-exported)

TARGET_RATE = 24000
# how an export that holds audio bytes (Parquet, Shar) encodes them: FLAC is lossless (16-bit samples read back
# bit for bit) and about half the bytes of WAV on speech; WAV for a consumer without a FLAC decoder
EmbeddedFormat = Literal["flac", "wav"]


def audio_file(root: Path, record: VakRecord) -> Path:
    if record.audio is None:
        raise AudioProblem("no_audio", "record has no audio (text-only source)")
    path = resolve_inside(root, record.audio.path)
    if path is None:
        raise AudioProblem("audio_path_unsafe", "audio.path is absolute or leaves the data directory")
    if not path.is_file():
        raise AudioProblem("audio_missing", f"audio file {record.audio.path} does not exist")
    return path


def read_audio(root: Path, record: VakRecord) -> tuple[np.ndarray, int]:
    """(samples [frames, channels] int16, sample_rate) of the record's recording."""
    import soundfile as sf

    path = audio_file(root, record)
    try:
        data, rate = sf.read(str(path), dtype="int16", always_2d=True)
    except (RuntimeError, sf.LibsndfileError) as exc:
        raise AudioProblem("audio_unreadable", f"audio file {record.audio.path} cannot be decoded ({exc})") from exc
    return data, int(rate)


def linkable_wav(path: Path) -> tuple[int, int, int] | None:
    """(channels, frames, rate) of a 16-bit PCM WAV, the format an export writes; None for any other file (or
    one libsndfile cannot open), which the export then decodes and writes itself."""
    import soundfile as sf

    try:
        info = sf.info(str(path))
    except (RuntimeError, sf.LibsndfileError):
        return None
    if info.format != "WAV" or info.subtype != "PCM_16":
        return None
    return int(info.channels), int(info.frames), int(info.samplerate)


def role_channels(record: VakRecord, n_channels: int) -> dict[str, int]:
    """{"agent": ch, "user": ch} from audio.channel_map; raises when the map cannot separate the speakers."""
    cmap = (record.audio.channel_map if record.audio else None) or {}
    found: dict[str, int] = {}
    for ch, role in cmap.items():
        try:
            idx = int(ch)
        except ValueError as exc:
            raise AudioProblem("channel_map_invalid", f"channel_map key '{ch}' is not a channel number") from exc
        if idx >= n_channels:
            raise AudioProblem("channel_map_invalid", f"channel_map names channel {idx} but the file has "
                                                      f"{n_channels} channel(s)")
        if role in found:
            raise AudioProblem("channel_map_invalid", f"channel_map gives two channels to the {role}")
        found[role] = idx
    if set(found) != {"agent", "user"}:
        raise AudioProblem("channel_map_incomplete",
                           "channel_map must assign one channel to the agent and one to the user")
    return found


def span(data: np.ndarray, rate: int, start: float, end: float) -> np.ndarray:
    """Samples between start and end seconds (clamped to the file)."""
    a = max(0, int(round(start * rate)))
    b = min(len(data), int(round(end * rate)))
    return data[a:b] if b > a else data[0:0]


def resample_int16(x: np.ndarray, rate: int, target: int = TARGET_RATE) -> np.ndarray:
    if rate == target or len(x) == 0:
        return x
    import soxr

    y = soxr.resample(x.astype(np.float32) / 32768.0, rate, target)
    return np.clip(np.round(y * 32768.0), -32768, 32767).astype(np.int16)


def write_wav(path: Path, data: np.ndarray, rate: int) -> float:
    """Write int16 samples ([frames] or [frames, channels]) as 16-bit PCM; returns the duration in seconds."""
    import soundfile as sf

    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(path), data, rate, subtype="PCM_16", format="WAV")
    give_umask_mode(path)  # libsndfile creates 0755 whatever the umask; an export file is 0644 under 022
    return len(data) / rate


def wav_bytes(data: np.ndarray, rate: int) -> bytes:
    """The bytes `write_wav` writes for the same samples (16-bit PCM WAV)."""
    return encoded_bytes(data, rate, "wav")


def encoded_bytes(data: np.ndarray, rate: int, fmt: EmbeddedFormat) -> bytes:
    """int16 samples as the bytes of a 16-bit WAV or FLAC file (libsndfile: the same bytes for the same samples,
    and the FLAC lhotse's SharWriter writes for them)."""
    import io

    import soundfile as sf

    buf = io.BytesIO()
    sf.write(buf, data, rate, subtype="PCM_16", format=fmt.upper())
    return buf.getvalue()


class ConversationAudio:
    """A decoded recording with each speaker's channel, cutting 24 kHz mono int16 turn clips."""

    def __init__(self, data: np.ndarray, rate: int, channels: dict[str, int], mono: bool) -> None:
        self.data, self.rate, self.channels, self.mono = data, rate, channels, mono
        self.masked_spans = 0

    @classmethod
    def open(cls, root: Path, record: VakRecord, redacted_audio: str | None = None) -> ConversationAudio:
        """The recording; with `redacted_audio` ("silence" | "tone") its redacted spans re-masked that way."""
        data, rate = read_audio(root, record)
        masked = 0
        if redacted_audio is not None:

            data, masked = apply_masks(data, rate, load_masks(root, record), redacted_audio)  # type: ignore[arg-type]
        if data.shape[1] == 1:
            audio = cls(data, rate, {"agent": 0, "user": 0}, True)
        else:
            audio = cls(data, rate, role_channels(record, data.shape[1]), False)
        audio.masked_spans = masked
        return audio

    def clip(self, role: str, start: float, end: float, target_rate: int = TARGET_RATE) -> np.ndarray:
        return resample_int16(span(self.data[:, self.channels[role]], self.rate, start, end), self.rate, target_rate)


def overlapping_turns(record: VakRecord) -> set[int]:
    """Indices of spoken turns that start before the previous spoken turn ends (or are marked overlap)."""
    out: set[int] = set()
    prev_end: float | None = None
    for i, t in enumerate(record.turns):
        if not t.is_spoken or t.speaker not in ("agent", "user"):
            continue
        if t.overlap or (prev_end is not None and t.start < prev_end - 1e-6):
            out.add(i)
        prev_end = t.end if prev_end is None else max(prev_end, t.end)
    return out
