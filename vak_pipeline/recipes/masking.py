"""How a redacted span sounds in training audio, per recipe: silence (default), or the redaction tone.

The published recording (audio/<conv>.wav) carries whatever the redaction stage wrote over each span
(a 1 kHz tone by default: good for a human listener, bad for a model, which learns to beep). A recipe
re-masks the spans named in the redaction log (redactions/<conv>.json, `audio` of each span) with its own
`redacted_audio` setting on the int16 samples it exports, and drops the words whose time falls inside a
masked span, so the text targets agree with what is heard; what a text target says in a placeholder's
place (nothing here, a surrogate's spoken form in synthesized audio) is recipes/spoken.py.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import ValidationError

from ..schema import AudioMask, VakRecord
from ..schema.redaction_log import RedactionLog
from ..storage import resolve_inside


class AudioProblem(ValueError):
    """Why a record's audio cannot be used by an export (becomes a skipped.jsonl reason)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

RedactedAudio = Literal["silence", "tone"]
TONE_HZ, TONE_DBFS = 1000.0, -20.0  # what the redaction stage writes by default (redaction.audio.AudioSettings)


def load_masks(root: Path, record: VakRecord) -> list[AudioMask]:
    """The audio masks of the record's redaction log ([] when it names none, or names a file that is not there:
    the manifest rule `redaction_log_missing` already rejects such a record before it reaches an export)."""
    rel = record.meta.redaction_log
    if not rel or record.audio is None:
        return []
    path = resolve_inside(root, rel)
    if path is None or not path.is_file():
        return []
    try:
        log = RedactionLog.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise AudioProblem(
            "redaction_log_invalid", f"redaction log {rel} does not match the schema ({exc.error_count()} errors)"
        ) from exc
    return [s.audio for s in log.spans if s.audio is not None]


def apply_masks(data: np.ndarray, rate: int, masks: list[AudioMask], how: RedactedAudio) -> tuple[np.ndarray, int]:
    """A copy of `data` ([frames, channels] int16, the recording's own channel order) with each masked
    interval replaced on its channel (all channels when the mask names none); returns (samples, spans)."""
    if not masks:
        return data, 0
    out = np.array(data, copy=True)
    amp = 10 ** (TONE_DBFS / 20.0) * 32767.0
    n = 0
    for m in masks:
        a = max(0, int(math.floor(m.start_s * rate)))
        b = min(len(out), int(math.ceil(m.end_s * rate)))
        if b <= a:
            continue
        if how == "tone":
            t = np.arange(a, b, dtype=np.float64) / rate
            fill = np.round(amp * np.sin(2 * np.pi * TONE_HZ * t)).astype(np.int16)
        else:
            fill = np.zeros(b - a, dtype=np.int16)
        channels = range(out.shape[1]) if m.channel is None else [m.channel]
        for c in channels:
            if 0 <= c < out.shape[1]:
                out[a:b, c] = fill
        n += 1
    return out, n


def inside_masks(start: float, end: float, masks: list[AudioMask], channel: int | None = None) -> bool:
    """True when more than half of [start, end] is masked (on `channel`, or any channel when None)."""
    dur = end - start
    if dur <= 0:
        return False
    covered = 0.0
    for m in masks:
        if channel is not None and m.channel is not None and m.channel != channel:
            continue
        covered += max(0.0, min(end, m.end_s) - max(start, m.start_s))
    return covered > dur / 2
