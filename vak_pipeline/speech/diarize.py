"""Who spoke when in a mono recording (pyannote.audio 4), and which diarized speaker is the agent.

The pretrained pipelines are gated on the Hugging Face hub, so the production setting is a pipeline id
(e.g. "pyannote/speaker-diarization-community-1", fetched with HF_TOKEN into the local HF cache) or a
local directory holding its `config.yaml` (what an air-gapped cluster uses). When none is configured a
mono recording is reported as needing diarization: speakers are never guessed.

Agent rule (documented in README and applied by `agent_label`), in order:
1. the recording's `agent_speaker_hint` when it names a diarized label (e.g. "SPEAKER_01");
2. `agent_speaker_hint: most` -> the label with the most speech;
3. `agent_speaker_hint: first`, or no hint -> the label that speaks first, because call-centre agents
   open the call. Every other label is the user.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from .models import Segment, SpeakerSegment, WordTiming, join_words

DEFAULT_AGENT_RULE = "first"
_PIPELINES: dict[tuple, Any] = {}
_LOCK = threading.Lock()


class AgentHintError(ValueError):
    """The agent_speaker_hint names a label the diarizer did not produce."""


DiarizerEngine = Literal["auto", "pyannote", "offline", "none"]


class DiarizerSettings(BaseModel):
    """Which engine diarizes mono calls and how (`diarize_offline.select_diarizer`). pyannote is one value
    away (`pipeline`: a local directory or a hub id, with HF_TOKEN); the default needs nothing downloaded."""

    model_config = ConfigDict(extra="forbid")
    engine: DiarizerEngine = Field(
        default="auto",
        description="auto: pyannote when `pipeline` names weights on this machine (a local directory, or a hub id "
        "already in the local HF cache), else the offline engine whose weights ship in the resemblyzer wheel; "
        "pyannote | offline force one; none: mono calls are reported as needing diarization.",
    )
    pipeline: str = Field(
        default="", description="pyannote pipeline: a local directory holding config.yaml, or a hub id "
        "(e.g. pyannote/speaker-diarization-community-1, fetched with HF_TOKEN)."
    )
    hf_token: str | None = Field(
        default=None, description="Hugging Face token for a gated hub pipeline (None: $HF_TOKEN when pyannote loads)."
    )
    device: Literal["auto", "cpu", "cuda"] = Field(
        default="auto", description="Where pyannote runs (auto: cuda when available); the offline engine runs on cpu."
    )
    num_speakers: int | None = Field(
        default=2, ge=1, description="Speakers in a call (two parties); None lets pyannote decide."
    )


@dataclass
class DiarizationResult:
    segments: list[SpeakerSegment]
    labels: list[str]


@dataclass
class Diarizer:
    """A pyannote speaker-diarization pipeline: hub id, local directory, or an already built Pipeline."""

    pipeline: Any
    token: str | None = None
    device: str = "auto"
    num_speakers: int | None = 2  # a call has two parties; None lets the pipeline decide
    _loaded: Any = field(default=None, init=False, repr=False)

    @property
    def name(self) -> str:
        if isinstance(self.pipeline, (str, Path)):
            return Path(str(self.pipeline)).name if Path(str(self.pipeline)).exists() else str(self.pipeline)
        return type(self.pipeline).__name__

    @property
    def engine(self) -> str:
        return f"pyannote:{self.name}"

    def resolved_device(self) -> str:
        """The device pyannote runs on: `auto` is cuda when torch sees one (imports torch, as loading does)."""
        if self.device != "auto":
            return self.device
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"

    def fingerprint(self) -> str:
        """Part of the transcript cache key: a different pipeline means different speakers, and so may another
        device (GPU and CPU kernels round differently), as for the ASR model."""
        ident = str(self.pipeline) if isinstance(self.pipeline, (str, Path)) else f"obj:{id(self.pipeline)}"
        config = Path(str(self.pipeline)) / "config.yaml" if isinstance(self.pipeline, (str, Path)) else None
        if config is not None and config.is_file():
            ident += hashlib.sha256(config.read_bytes()).hexdigest()
        device = self.resolved_device() if isinstance(self.pipeline, (str, Path)) else "given"
        return hashlib.sha256(f"{ident}|{self.num_speakers}|{device}".encode()).hexdigest()[:16]

    def load(self) -> Any:
        """The pyannote Pipeline, loaded once per process per (pipeline, device)."""
        if self._loaded is not None:
            return self._loaded
        if not isinstance(self.pipeline, (str, Path)):
            self._loaded = self.pipeline
            return self._loaded
        os.environ.setdefault("PYANNOTE_METRICS_ENABLED", "false")  # no telemetry from a data pipeline
        import torch
        from pyannote.audio import Pipeline

        device = self.resolved_device()
        key = (str(self.pipeline), device)
        with _LOCK:
            if key not in _PIPELINES:
                token = self.token or os.environ.get("HF_TOKEN") or None
                pipe = Pipeline.from_pretrained(str(self.pipeline), token=token)
                if pipe is None:
                    raise RuntimeError(f"pyannote could not load pipeline {self.name!r}: set HF_TOKEN with access "
                                       "to the gated model, or point diarizer.pipeline at a local directory")
                pipe.to(torch.device(device))
                _PIPELINES[key] = pipe
            self._loaded = _PIPELINES[key]
        return self._loaded

    def diarize(self, audio: np.ndarray, sample_rate: int) -> DiarizationResult:
        """Speaker segments of a mono signal (1-D float array)."""
        os.environ.setdefault("PYANNOTE_METRICS_ENABLED", "false")
        import torch

        pipe = self.load()
        wav = torch.from_numpy(np.ascontiguousarray(audio, dtype=np.float32)[None, :])
        kwargs = {"num_speakers": self.num_speakers} if self.num_speakers else {}
        out = pipe({"waveform": wav, "sample_rate": sample_rate}, **kwargs)
        annotation = getattr(out, "speaker_diarization", out)  # DiarizeOutput (4.x) or Annotation (legacy)
        total = len(audio) / sample_rate  # pyannote's last window may run past the end: clip to the audio
        segs = [SpeakerSegment(label=str(label), start=round(min(float(turn.start), total), 3),
                               end=round(min(float(turn.end), total), 3))
                for turn, _track, label in annotation.itertracks(yield_label=True) if float(turn.start) < total]
        segs.sort(key=lambda s: (s.start, s.end))
        return DiarizationResult(segments=segs, labels=sorted({s.label for s in segs}))


def speaker_of(start: float, end: float, segments: list[SpeakerSegment]) -> tuple[str | None, float]:
    """The label whose segments overlap [start, end] most, with the covered fraction (0..1).

    A word touching no segment goes to the nearest one (coverage 0): ASR word edges are loose.
    """
    overlap: dict[str, float] = {}
    for s in segments:
        ov = min(end, s.end) - max(start, s.start)
        if ov > 0:
            overlap[s.label] = overlap.get(s.label, 0.0) + ov
    if overlap:
        label = max(overlap, key=lambda k: overlap[k])
        return label, min(overlap[label] / max(end - start, 1e-3), 1.0)
    if not segments:
        return None, 0.0
    nearest = min(segments, key=lambda s: min(abs(s.start - end), abs(s.end - start)))
    return nearest.label, 0.0


def agent_label(segments: list[SpeakerSegment], hint: str | None) -> tuple[str | None, str]:
    """(label of the agent, rule used). Raises AgentHintError for a hint naming an unknown label."""
    if not segments:
        return None, hint or DEFAULT_AGENT_RULE
    rule = (hint or DEFAULT_AGENT_RULE).strip()
    labels = {s.label for s in segments}
    if rule.lower() == "most":
        talk: dict[str, float] = {}
        for s in segments:
            talk[s.label] = talk.get(s.label, 0.0) + (s.end - s.start)
        return max(sorted(talk), key=lambda k: talk[k]), "most"
    if rule.lower() == "first":
        return min(segments, key=lambda s: (s.start, s.label)).label, "first"
    if rule in labels:
        return rule, "label"
    raise AgentHintError(f"agent_speaker_hint {rule!r} is not a diarized label ({', '.join(sorted(labels))})")


def attribute_words(segments: list[Segment], diar: DiarizationResult, hint: str | None
                    ) -> tuple[list[Segment], dict[str, str], float, str]:
    """Split ASR segments of a mono channel into per-speaker segments by word/speaker overlap.

    Returns (segments with speaker set, label -> role, confidence, rule). Confidence is the
    duration-weighted share of word time covered by the assigned speaker's segments.
    """
    agent, rule = agent_label(diar.segments, hint)
    roles = {lab: ("agent" if lab == agent else "user") for lab in diar.labels}
    out: list[Segment] = []
    covered = total = 0.0
    for seg in segments:
        run: list[WordTiming] = []
        run_label: str | None = None
        words = seg.words or [WordTiming(word=seg.text, start=seg.start, end=seg.end)]
        for w in words:
            label, cov = speaker_of(w.start, w.end, diar.segments)
            dur = max(w.end - w.start, 1e-3)
            covered += cov * dur
            total += dur
            if run and label != run_label:
                out.append(_segment_from_words(run, roles.get(run_label or "", "user"), seg))
                run = []
            run.append(w)
            run_label = label
        if run:
            out.append(_segment_from_words(run, roles.get(run_label or "", "user"), seg))
    confidence = round(covered / total, 3) if total else 0.0
    return out, roles, confidence, rule


def _segment_from_words(words: list[WordTiming], speaker: str, parent: Segment) -> Segment:
    return Segment(start=words[0].start, end=max(w.end for w in words), text=join_words([w.word for w in words]),
                   words=words, channel=parent.channel, speaker=speaker, avg_logprob=parent.avg_logprob,
                   no_speech_prob=parent.no_speech_prob, language=parent.language)
