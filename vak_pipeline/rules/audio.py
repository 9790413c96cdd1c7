"""Audio rules: a safe relative path, a channel map that names both parties, and a file that matches."""

from __future__ import annotations

import os

from ..schema.record import VakRecord
from ..storage import resolve_inside
from .context import RecordIssues, ValidationContext

DURATION_TOLERANCE_S = 0.5
PROBE_KIND = "audio_probe/1"  # the key of `_probe`'s results in core.file_digests: bump when `_probe` changes


def check_audio_fields(rec: VakRecord, out: RecordIssues) -> bool:
    """Path and channel rules. Returns True when the path is safe to open."""
    a = rec.audio
    if a is None:  # audio is optional: records from documents and chats have none until synthesised
        return False
    safe = True
    p = a.path.replace("\\", "/")
    if os.path.isabs(a.path) or p.startswith("/") or (len(p) > 1 and p[1] == ":"):
        out.add("audio_path_absolute", "audio.path is absolute; a manifest may only name files inside the dataset",
                "make the path relative to the manifest's directory, e.g. audio/<id>.wav", family="audio",
                field="audio.path")
        safe = False
    elif ".." in p.split("/"):
        out.add("audio_path_parent", "audio.path has a '..' segment; a manifest may not name files outside it",
                "move the file under the dataset and use a path without '..'", family="audio", field="audio.path")
        safe = False
    if a.channels > 2:
        out.add("audio_channels_unsupported", f"audio.channels is {a.channels}; only 1 (mono) or 2 (dual) exist",
                "keep the two channels of the two parties when preparing the file", family="audio",
                field="audio.channels")
    elif a.channels == 2:
        cmap = a.channel_map
        if not cmap:
            out.add("audio_channel_map_missing", "2-channel audio has no channel_map",
                    'add "channel_map": {"0": "user", "1": "agent"} (or the other way round)', family="audio",
                    field="audio.channel_map")
        elif set(cmap) != {"0", "1"} or sorted(cmap.values()) != ["agent", "user"]:
            out.add("audio_channel_map_invalid",
                    "channel_map must give channel 0 and channel 1 one each to user and agent; two channels of "
                    "the same speaker cannot be split into a conversation",
                    'use {"0": "user", "1": "agent"} or {"0": "agent", "1": "user"}', family="audio",
                    field="audio.channel_map")
    elif a.channel_map and (set(a.channel_map) - {"0"}):
        out.add("audio_channel_map_invalid", "mono audio can only map channel 0",
                "drop the channel_map for mixed mono audio", family="audio", field="audio.channel_map")
    return safe


def check_audio_file(rec: VakRecord, ctx: ValidationContext, out: RecordIssues) -> None:
    """The file exists inside the dataset, decodes to its end, and matches rate/channels/duration."""
    a = rec.audio
    assert a is not None
    target = resolve_inside(ctx.base_dir, a.path)
    if target is None:
        out.add("audio_path_outside", "audio.path resolves outside the dataset (through a link)",
                "copy the file into the dataset instead of linking to it", family="audio", field="audio.path")
        return
    info = ctx._audio_cache.get(str(target))
    if info is None:
        if ctx.digests is not None and target.is_file():  # unchanged bytes: the earlier publish's probe
            info = tuple(ctx.digests.cached(PROBE_KIND, target, lambda: list(_probe(str(target)))))
        else:
            info = _probe(str(target))
        ctx._audio_cache[str(target)] = info
    if info[0] == "missing":
        out.add("audio_file_missing", f"audio file {a.path} does not exist",
                "run the normalize stage or fix audio.path", family="audio", field="audio.path")
        return
    if info[0] == "error":
        out.add("audio_decode_failed", f"audio file {a.path} does not decode: {info[1]}",
                "re-export the recording; the file is corrupt or truncated", family="audio", field="audio.path")
        return
    _, rate, channels, duration = info
    if rate != a.sample_rate:
        out.add("audio_sample_rate_mismatch", f"file is {rate} Hz but audio.sample_rate says {a.sample_rate}",
                "set audio.sample_rate to the file's rate, or re-normalize the file", family="audio",
                field="audio.sample_rate")
    if channels != a.channels:
        out.add("audio_channels_mismatch", f"file has {channels} channel(s) but audio.channels says {a.channels}",
                "set audio.channels to the file's channel count", family="audio", field="audio.channels")
    if abs(duration - a.duration_s) > DURATION_TOLERANCE_S:
        out.add("audio_duration_mismatch",
                f"file lasts {duration:.2f} s but audio.duration_s says {a.duration_s:.2f} s (tolerance 0.5 s)",
                "set audio.duration_s from the file", family="audio", field="audio.duration_s")


def _probe(path: str) -> tuple:
    """('ok', rate, channels, duration) or ('missing',) or ('error', reason). Reads the header and the tail."""
    if not os.path.isfile(path):
        return ("missing",)
    try:
        import soundfile as sf

        with sf.SoundFile(path) as f:
            rate, channels, frames = f.samplerate, f.channels, f.frames
            if frames > 0:  # decode the last block: a truncated file fails here, not in training
                f.seek(max(0, frames - 1024))
                got = f.read(1024, dtype="int16")
                if len(got) == 0:
                    return ("error", "no samples at the end of the file")
        return ("ok", rate, channels, frames / rate if rate else 0.0)
    except Exception as exc:  # soundfile raises several types for corrupt input
        return ("error", f"{type(exc).__name__}: {str(exc)[:120]}")
