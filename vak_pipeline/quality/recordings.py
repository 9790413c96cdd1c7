"""Quality per recording, against thresholds a steward sets: flagged, never silently dropped.

For every real recording in the manifest (not a chat or ticket the synth stage rendered as a call: the
speech ratio, SNR or words per second of synthesized audio measure synth's settings, not the data):
speech ratio and clipping (from the normalized_audio inspection),
an SNR estimate (frame energies of the normalized wav: loud frames over quiet frames), cross-talk level
(the loudest leak of one channel into the other, meta.crosstalk) and hallucination drops
(meta.removed.hallucinated_segments), read when the speech stage measured them and empty otherwise;
words per second of speech, the share of spoken turns whose language tag fell back to the
conversation's language (LID was not sure), and ASR confidence (mean word probability).

`QualityThresholds` is a pydantic settings model (env VAK_QUALITY_*, or Dagster config): a recording
outside a threshold is flagged in the report and as a WARN validation issue; a metric named in
`exclude` turns its flag into an ERROR, so validated_manifest leaves the recording out (with the
reason in rejected.jsonl).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from ..core.file_digests import FileDigests
from ..core.issue import Issue, Severity
from ..layout import DataLayout
from ..rules.origin import record_kind, record_origin
from ..storage import iter_jsonl, resolve_inside

METRICS = (
    "speech_ratio",
    "snr_db",
    "clipping_ratio",
    "cross_talk_db",
    "hallucination_drops",
    "words_per_s",
    "lang_fallback_share",
    "asr_confidence",
)
_FRAME_S = 0.02
_FALLBACK = "\x00fallback"


class QualityThresholds(BaseSettings):
    """Bounds of a usable recording; None switches a bound off. `exclude`: metrics whose flag leaves it out."""

    model_config = SettingsConfigDict(env_prefix="VAK_QUALITY_", extra="ignore")
    min_speech_ratio: float | None = 0.15
    min_snr_db: float | None = 10.0
    max_clipping_ratio: float | None = 0.001
    max_cross_talk_db: float | None = -20.0  # loudest leak of one channel into the other, dB
    max_hallucination_drops: int | None = 3
    min_words_per_s: float | None = 0.5
    max_words_per_s: float | None = 5.0
    max_lang_fallback_share: float | None = 0.5
    min_asr_confidence: float | None = 0.5
    exclude: list[str] = Field(default_factory=list, description=f"any of {', '.join(METRICS)}")


class RecordingQuality(BaseModel):
    conv_id: str
    upload: str | None = None
    file: str | None = None
    locale: str | None = None
    duration_s: float = 0.0
    # A metric is None when the stage that measures it did not run on this recording.
    speech_ratio: float | None = Field(
        default=None, description="Share of frames with speech, summed over channels, at most 1.")
    snr_db: float | None = Field(default=None, description="Loud frames over quiet frames, dB.")
    clipping_ratio: float | None = Field(default=None, description="Share of samples clipped at full scale (0-1).")
    cross_talk_db: float | None = Field(
        default=None, description="Loudest leak of one channel into the other, dB (higher = more bleed).")
    hallucination_drops: int | None = Field(
        default=None, description="ASR segments the hallucination filter removed.")
    words_per_s: float | None = Field(default=None, description="Words per second of speech.")
    lang_fallback_share: float | None = Field(
        default=None, description="Share of spoken turns whose language fell back to the conversation's.")
    asr_confidence: float | None = Field(default=None, description="Mean word probability of the ASR (0-1).")
    flags: list[str] = Field(default_factory=list)

    def row(self) -> dict[str, Any]:
        d = self.model_dump(mode="json")
        d["flags"] = ", ".join(self.flags)
        return d


def flags_of(q: RecordingQuality, t: QualityThresholds) -> list[str]:
    """The metrics of `q` outside the thresholds (a missing value is never a flag)."""
    bounds = {
        "speech_ratio": (t.min_speech_ratio, None),
        "snr_db": (t.min_snr_db, None),
        "clipping_ratio": (None, t.max_clipping_ratio),
        "cross_talk_db": (None, t.max_cross_talk_db),
        "hallucination_drops": (None, t.max_hallucination_drops),
        "words_per_s": (t.min_words_per_s, t.max_words_per_s),
        "lang_fallback_share": (None, t.max_lang_fallback_share),
        "asr_confidence": (t.min_asr_confidence, None),
    }
    out = []
    for m in METRICS:
        v = getattr(q, m)
        lo, hi = bounds[m]
        if v is not None and ((lo is not None and v < lo) or (hi is not None and v > hi)):
            out.append(m)
    return out


SNR_KIND = "snr_db/1"  # the key of snr_estimate_db's results in core.file_digests: bump when it changes


def snr_estimate_db(path: Path, block_s: float = 30.0) -> float | None:
    """Loud-frame over quiet-frame energy (95th/10th percentile of 20 ms frames of all channels together).

    The channels are pooled: on a call each side is silent while the other talks, so a per-channel
    estimate would measure turn-taking, not noise. Streamed; 50 floats per second are kept.
    """
    import numpy as np
    import soundfile as sf

    try:
        info = sf.info(str(path))
    except (OSError, RuntimeError):
        return None
    frame = max(1, int(info.samplerate * _FRAME_S))
    energies: list[Any] = []
    try:
        for block in sf.blocks(
            str(path), blocksize=frame * max(1, int(block_s / _FRAME_S)), always_2d=True, dtype="float32"
        ):
            n = (len(block) // frame) * frame
            if n:
                energies.append((block[:n].reshape(-1, frame, block.shape[1]) ** 2).mean(axis=(1, 2)))
    except (OSError, RuntimeError):
        return None
    if not energies:
        return None
    e = np.concatenate(energies)
    loud, quiet = np.percentile(e, 95), np.percentile(e, 10)
    return round(10 * math.log10((float(loud) + 1e-10) / (float(quiet) + 1e-10)), 2)


def cross_talk_db(meta: dict[str, Any], inspect: dict[str, Any] | None) -> float | None:
    """Loudest detected leak of one channel into the other (dB relative to the source channel).

    The speech stage records it as meta.crosstalk.leaks[].level_db (normalized_audio as
    inspect.crosstalk in audio.jsonl); None when it was not measured or no leak was found.
    """
    for where in (meta.get("crosstalk"), (inspect or {}).get("crosstalk")):
        if isinstance(where, dict):
            levels = [
                x["level_db"]
                for x in where.get("leaks") or []
                if isinstance(x, dict) and isinstance(x.get("level_db"), int | float)
            ]
            return round(max(levels), 2) if levels else None
    return None


def hallucination_drops(meta: dict[str, Any]) -> int | None:
    """Segments the speech stage dropped as hallucinated (meta.removed.hallucinated_segments); None if unknown."""
    removed = meta.get("removed")
    if isinstance(removed, dict) and isinstance(removed.get("hallucinated_segments"), int):
        return int(removed["hallucinated_segments"])
    return None


def lang_fallback_share(record: dict[str, Any]) -> float | None:
    """Share of spoken turns whose tag is only the conversation's fallback (the detector was not sure)."""
    from ..locales.lid import detect_lang
    from ..locales.registry import PACKS

    pack = PACKS.get(str(record.get("locale")))
    turns = [
        t
        for t in record.get("turns") or []
        if isinstance(t, dict) and t.get("text") and not t.get("tool_call") and not t.get("tool_result")
    ]
    if pack is None or not turns:
        return None
    fell = sum(detect_lang(pack, str(t["text"]), _FALLBACK) == _FALLBACK for t in turns)
    return round(fell / len(turns), 4)


class QualityIndex:
    """Per-upload lookups a recording's quality needs (inspection rows, ASR word probabilities), loaded once."""

    def __init__(self, layout: DataLayout) -> None:
        self.layout = layout
        self._inspect: dict[str, dict[str, dict[str, Any]]] = {}
        self._confidence: dict[str, dict[str, float]] = {}
        self._digests: FileDigests | None = None

    def snr_db(self, wav: Path) -> float | None:
        """snr_estimate_db of the file, decoded once per content (core.file_digests, across publishes)."""
        if self._digests is None:
            self._digests = FileDigests.open(self.layout.publish_cache / "digests.sqlite")
        return self._digests.cached(SNR_KIND, wav, lambda: snr_estimate_db(wav))

    def inspect(self, upload: str, conv_id: str) -> dict[str, Any] | None:
        if upload not in self._inspect:
            rows: dict[str, dict[str, Any]] = {}
            path = self.layout.audio_index(upload)
            if path.is_file():
                for jl in iter_jsonl(path):
                    if isinstance(jl.value, dict) and "conv_id" in jl.value:
                        rows[jl.value["conv_id"]] = jl.value
            self._inspect[upload] = rows
        return self._inspect[upload].get(conv_id)

    def confidence(self, upload: str, conv_id: str) -> float | None:
        if upload not in self._confidence:
            out: dict[str, float] = {}
            path = self.layout.transcripts(upload)
            if path.is_file():
                for jl in iter_jsonl(path):
                    v = jl.value
                    if not isinstance(v, dict) or "conv_id" not in v:
                        continue
                    probs = [
                        w["probability"]
                        for s in v.get("segments") or []
                        for w in s.get("words") or []
                        if isinstance(w.get("probability"), int | float)
                    ]
                    if probs:
                        out[v["conv_id"]] = round(sum(probs) / len(probs), 4)
            self._confidence[upload] = out
        return self._confidence[upload].get(conv_id)


def recording_quality(
    record: dict[str, Any], index: QualityIndex, thresholds: QualityThresholds, measure_snr: bool = True
) -> RecordingQuality | None:
    """The quality of one real recording (None for a text conversation, with or without synthesized audio)."""
    audio = record.get("audio")
    if not isinstance(audio, dict) or record_kind(record) != "audio":
        return None
    origin = record_origin(record)
    conv = str(record.get("id"))
    q = RecordingQuality(
        conv_id=conv,
        upload=origin.upload,
        file=origin.file,
        locale=record.get("locale"),
        duration_s=float(audio.get("duration_s") or 0.0),
    )
    row = index.inspect(origin.upload, conv) if origin.upload else None
    if row is not None:
        ins = row.get("inspect") or {}
        ratios = [r for r in ins.get("speech_ratio") or [] if isinstance(r, int | float)]
        q.speech_ratio = round(sum(ratios), 4) if ratios else round(1 - float(ins.get("silence_ratio", 0.0)), 4)
        q.speech_ratio = min(q.speech_ratio, 1.0)
        q.clipping_ratio = float(ins.get("clipping_ratio", 0.0))
    if measure_snr:  # the private normalized wav (no masking tones), else the published one
        wav = resolve_inside(index.layout.root, str(row.get("path") or "")) if row is not None else None
        if wav is None or not wav.is_file():
            wav = resolve_inside(index.layout.release_root, str(audio.get("path") or ""))
        if wav is not None and wav.is_file():
            q.snr_db = index.snr_db(wav)
    meta = record.get("meta") if isinstance(record.get("meta"), dict) else {}
    q.cross_talk_db = cross_talk_db(meta, (row or {}).get("inspect"))
    q.hallucination_drops = hallucination_drops(meta)
    spoken = [
        t
        for t in record.get("turns") or []
        if isinstance(t, dict) and not t.get("tool_call") and not t.get("tool_result")
    ]
    seconds = sum(max(0.0, float(t.get("end", 0)) - float(t.get("start", 0))) for t in spoken)
    words = sum(len(str(t.get("text") or "").split()) for t in spoken)
    q.words_per_s = round(words / seconds, 3) if seconds > 0 else None
    q.lang_fallback_share = lang_fallback_share(record)
    q.asr_confidence = index.confidence(origin.upload, conv) if origin.upload else None
    q.flags = flags_of(q, thresholds)
    return q


def quality_issues(q: RecordingQuality, thresholds: QualityThresholds) -> list[Issue]:
    """A WARN issue per flagged metric; ERROR (the recording is left out) for metrics in `exclude`."""
    out = []
    for m in q.flags:
        excluded = m in thresholds.exclude
        out.append(
            Issue(
                code=f"quality_{m}",
                family="audio",
                severity=Severity.ERROR if excluded else Severity.WARN,
                record_id=q.conv_id,
                file=q.file,
                field=m,
                message=f"{m} = {getattr(q, m)} is outside the quality thresholds"
                + ("; excluded by config" if excluded else ""),
                fix=f"listen to the recording; re-record or re-export it, or relax the {m} threshold"
                + (" or remove it from quality exclude" if excluded else ""),
            )
        )
    return out


QUALITY_RULES_VERSION = "1"  # bump when a quality finding for the same record, files and thresholds would change


class QualityRules:
    """The validated_manifest hook: quality issues of one record dict (none for text conversations, synthesized
    audio included: a threshold on synth's output would flag or drop chats for the renderer's settings).

    Says what shapes its findings, so publish may keep them per record (rules.cache): the thresholds and
    this version for all, and for a record with audio its upload's inspection rows and transcripts and the
    wav the SNR is measured on."""

    def __init__(self, layout: DataLayout, thresholds: QualityThresholds) -> None:
        self.index = QualityIndex(layout)
        self.thresholds = thresholds
        self._upload_keys: dict[str, list[str]] = {}

    def __call__(self, record: dict[str, Any]) -> list[Issue]:
        t = self.thresholds
        q = recording_quality(record, self.index, t, measure_snr=t.min_snr_db is not None)
        return quality_issues(q, t) if q is not None else []

    def fingerprint(self) -> str:
        return f"quality/{QUALITY_RULES_VERSION}/{SNR_KIND}/{self.thresholds.model_dump_json()}"

    def record_key(self, record: dict[str, Any]) -> str | None:
        """The inputs beyond the record's line and its own files: '' for a record without audio."""
        audio = record.get("audio")
        if not isinstance(audio, dict):
            return ""
        upload, conv = record_origin(record).upload, str(record.get("id"))
        if not upload:
            return "no-upload"
        if upload not in self._upload_keys:
            layout = self.index.layout
            self._upload_keys[upload] = [self._digest(layout.audio_index(upload)),
                                         self._digest(layout.transcripts(upload))]
        row = self.index.inspect(upload, conv)
        wav = resolve_inside(self.index.layout.root, str(row.get("path") or "")) if row is not None else None
        return json.dumps([*self._upload_keys[upload], self._digest(wav) if wav is not None else "-"])

    def _digest(self, path: Path) -> str:
        if not path.is_file():
            return "-"
        if self.index._digests is None:
            self.index._digests = FileDigests.open(self.index.layout.publish_cache / "digests.sqlite")
        return self.index._digests.sha256(path)


def quality_rules(layout: DataLayout, thresholds: QualityThresholds) -> QualityRules:
    """The validated_manifest hook (QualityRules), for one publish."""
    return QualityRules(layout, thresholds)


__all__ = [
    "METRICS",
    "QualityIndex",
    "QualityRules",
    "QualityThresholds",
    "RecordingQuality",
    "flags_of",
    "quality_issues",
    "quality_rules",
    "recording_quality",
    "snr_estimate_db",
]
