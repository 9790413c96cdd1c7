"""Speech engines behind one interface: text in, 24 kHz samples and word timings out.

`espeak-ng` (default) runs offline from the `espeakng-loader` wheel and reports where each word
starts while it speaks. `piper` renders with a local .onnx voice named in the settings; it never
downloads one, and says what is missing when the package or the file is not there. The engine is
one config value (`SynthSettings.engine`).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from .settings import SynthSettings
from .voices import Voice, espeak_table

TARGET_RATE = 24_000
SILENCE_DB = -34.0  # below the utterance's peak: counted as silence when word edges are trimmed
EDGE_PAD_S = 0.01


class EngineUnavailable(RuntimeError):
    """The configured engine cannot run here; the message says what to install or configure."""


@dataclass(frozen=True)
class SpokenWord:
    char_start: int  # in the text given to the engine
    char_end: int
    start: int  # samples at TARGET_RATE, from the start of the utterance
    end: int


@dataclass(frozen=True)
class Utterance:
    samples: np.ndarray  # int16 mono at TARGET_RATE, leading and trailing silence trimmed
    words: list[SpokenWord]
    timing: str = "engine"  # engine | estimated


class Engine(Protocol):
    name: str
    version: str

    def voices(self, locale: str) -> list[Voice]: ...

    def speak(self, text: str, voice: Voice, lang: str | None) -> Utterance: ...


def resample(samples: np.ndarray, rate: int) -> np.ndarray:
    """int16 at `rate` -> int16 at 24 kHz (soxr, high quality; deterministic)."""
    if rate == TARGET_RATE or len(samples) == 0:
        return samples.astype(np.int16, copy=False)
    import soxr

    out = soxr.resample(samples.astype(np.float32) / 32768.0, rate, TARGET_RATE, quality="HQ")
    return np.clip(np.round(out * 32768.0), -32768, 32767).astype(np.int16)


def voiced_bounds(x: np.ndarray, a: int, b: int, threshold: float) -> tuple[int, int] | None:
    """First and last sample in [a, b) louder than `threshold` (absolute), or None when all is silence."""
    seg = np.flatnonzero(np.abs(x[a:b].astype(np.int32)) > threshold)
    if len(seg) == 0:
        return None
    return a + int(seg[0]), a + int(seg[-1]) + 1


def finish(samples: np.ndarray, starts: list[tuple[int, int, int]], timing: str = "engine") -> Utterance:
    """Word spans from word onsets: each word runs to the next onset, then its silent edges are trimmed;
    the utterance itself is trimmed to its first and last voiced sample (plus a 10 ms pad)."""
    n = len(samples)
    peak = float(np.abs(samples.astype(np.int32)).max()) if n else 0.0
    thr = peak * 10 ** (SILENCE_DB / 20)
    pad = int(EDGE_PAD_S * TARGET_RATE)
    starts = sorted(starts, key=lambda w: (w[2], w[0]))
    words: list[SpokenWord] = []
    for k, (c0, c1, s) in enumerate(starts):
        e = starts[k + 1][2] if k + 1 < len(starts) else n
        b = voiced_bounds(samples, min(s, n), max(min(e, n), min(s, n)), thr)
        if b is None:
            continue
        words.append(SpokenWord(c0, c1, max(0, b[0] - pad), min(n, b[1] + pad)))
    whole = voiced_bounds(samples, 0, n, thr)
    if whole is None:
        return Utterance(samples[:0], [], timing)
    a, b = max(0, whole[0] - pad), min(n, whole[1] + pad)
    words = [
        SpokenWord(
            w.char_start,
            w.char_end,
            max(0, w.start - a),
            min(b - a, w.end - a, words[k + 1].start - a if k + 1 < len(words) else b - a),
        )
        for k, w in enumerate(words)
    ]  # a word ends where the next begins, pad or not
    return Utterance(np.ascontiguousarray(samples[a:b]), [w for w in words if w.end > w.start], timing)


class EspeakEngine:
    name = "espeak-ng"

    def __init__(self, settings: SynthSettings) -> None:
        from .espeak import EspeakUnavailable, library

        self.settings = settings
        try:
            self.lib = library()
        except EspeakUnavailable as exc:
            raise EngineUnavailable(str(exc)) from exc
        self.version = self.lib.version

    def voices(self, locale: str) -> list[Voice]:
        return espeak_table(locale, self.settings)

    def speak(self, text: str, voice: Voice, lang: str | None) -> Utterance:
        name = f"{voice.language_voice(lang)}+{voice.variant}"
        raw = self.lib.synth(text, name, voice.rate, voice.pitch, 50)
        samples = resample(raw.samples, raw.rate)
        scale = TARGET_RATE / raw.rate
        starts = [(w.char_start, w.char_end, int(round(w.sample * scale))) for w in raw.words]
        return finish(samples, starts)


class PiperEngine:
    """Piper voices from local files only (`piper_voices`: locale or language -> .onnx path)."""

    name = "piper"

    def __init__(self, settings: SynthSettings) -> None:
        self.settings = settings
        try:
            import piper  # the piper-tts package
        except ImportError as exc:
            raise EngineUnavailable(
                "engine 'piper' needs the piper-tts package (pip install piper-tts) and a "
                "local voice file per locale in synth settings piper_voices; or use "
                "engine 'espeak-ng'"
            ) from exc
        if not settings.piper_voices:
            raise EngineUnavailable(
                "engine 'piper' has no voices: set piper_voices to {locale: /path/voice.onnx} "
                "(voices are never downloaded)"
            )
        for loc, path in sorted(settings.piper_voices.items()):
            if not Path(path).is_file():
                raise EngineUnavailable(
                    f"piper voice for {loc} not found at {path}; put the .onnx (and its "
                    ".onnx.json) there or fix piper_voices"
                )
        self.version = getattr(piper, "__version__", "unknown")
        self._loaded: dict[str, object] = {}

    def _model(self, locale: str) -> str:
        v = self.settings.piper_voices
        path = v.get(locale) or v.get(locale.split("-")[0])
        if path is None:
            raise EngineUnavailable(f"no piper voice for locale {locale}; add it to piper_voices")
        return path

    def voices(self, locale: str) -> list[Voice]:
        import json

        path = self._model(locale)
        cfg = Path(path + ".json")
        n = 1
        if cfg.is_file():
            n = int(json.loads(cfg.read_text(encoding="utf-8")).get("num_speakers", 1) or 1)
        stem = Path(path).stem
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:8]
        return [Voice(f"piper:{stem}@{digest}#{s}", locale, "", 0, self.settings.rate_wpm, path, s) for s in range(n)]

    def speak(self, text: str, voice: Voice, lang: str | None) -> Utterance:
        from piper import PiperVoice, SynthesisConfig

        assert voice.model is not None
        model = self._loaded.get(voice.model)
        if model is None:
            model = self._loaded[voice.model] = PiperVoice.load(voice.model)
        chunks = list(model.synthesize(text, syn_config=SynthesisConfig(speaker_id=voice.speaker)))
        if not chunks:
            return Utterance(np.zeros(0, np.int16), [], "estimated")
        rate = chunks[0].sample_rate
        samples = resample(np.concatenate([c.audio_int16_array for c in chunks]), rate)
        # piper reports no word times: onsets spread over the voiced audio by characters (marked estimated)
        import re

        tokens = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
        total = sum(e - s for s, e in tokens) or 1
        pos, starts = 0, []
        for s, e in tokens:
            starts.append((s, e, int(len(samples) * pos / total)))
            pos += e - s
        return finish(samples, starts, "estimated")


@functools.lru_cache(maxsize=2)
def _cached(engine: str, settings_json: str) -> Engine:
    settings = SynthSettings.model_validate_json(settings_json)
    return EspeakEngine(settings) if engine == "espeak-ng" else PiperEngine(settings)


def get_engine(settings: SynthSettings) -> Engine:
    """The engine the settings name (one per process and settings)."""
    return _cached(settings.engine, settings.model_dump_json())
