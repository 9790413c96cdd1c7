"""espeak-ng through its C library (shipped by the `espeakng-loader` wheel), driven with ctypes.

One `espeak_Synth` call per utterance gives both the samples (through the synth callback) and a
WORD event per word with its character position in the text and its time in the output, so a
conversation comes with exact word timings and no forced aligner is needed.

The library keeps global state and is not thread-safe: one process renders one utterance at a time
(a module lock guards it), and the stage gets its parallelism from a pool of processes.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import threading
from dataclasses import dataclass

import numpy as np

AUDIO_OUTPUT_SYNCHRONOUS = 2
POS_CHARACTER = 1
ESPEAK_CHARS_UTF8 = 1
EVENT_LIST_TERMINATED, EVENT_WORD, EVENT_END, EVENT_MSG_TERMINATED, EVENT_SAMPLERATE = 0, 1, 5, 6, 8
PARAM_RATE, PARAM_VOLUME, PARAM_PITCH, PARAM_RANGE, PARAM_WORDGAP = 1, 2, 3, 4, 7
EE_OK = 0


class _EventId(ctypes.Union):
    _fields_ = [("number", ctypes.c_int), ("name", ctypes.c_char_p), ("string", ctypes.c_char * 8)]


class _Event(ctypes.Structure):
    """espeak_EVENT of speak_lib.h."""

    _fields_ = [
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", _EventId),
    ]


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event))


class EspeakUnavailable(RuntimeError):
    """The espeak-ng library or its voice data cannot be loaded; the message says what to install."""


@dataclass(frozen=True)
class WordEvent:
    """A word espeak spoke: its characters in the input text and where its sound starts."""

    char_start: int  # 0-based index into the synthesized text
    char_end: int
    sample: int  # first sample of the word in the engine's native-rate output


@dataclass(frozen=True)
class RawUtterance:
    samples: np.ndarray  # int16 mono at `rate`
    rate: int
    words: list[WordEvent]


class EspeakLibrary:
    """The loaded library, initialized once per process for synchronous (callback) output."""

    def __init__(self) -> None:
        try:
            import espeakng_loader
        except ImportError as exc:
            raise EspeakUnavailable(
                "the espeak-ng engine needs the `espeakng-loader` package (pip install "
                "'espeakng-loader>=0.2'); it ships the library and its voices"
            ) from exc
        try:
            self.lib = ctypes.CDLL(espeakng_loader.get_library_path())
            data = espeakng_loader.get_data_path()
        except (OSError, RuntimeError) as exc:
            raise EspeakUnavailable(f"cannot load espeak-ng from espeakng-loader: {exc}") from exc
        lib = self.lib
        lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        lib.espeak_Initialize.restype = ctypes.c_int
        lib.espeak_SetSynthCallback.argtypes = [_CALLBACK]
        lib.espeak_SetSynthCallback.restype = None
        lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        lib.espeak_SetVoiceByName.restype = ctypes.c_int
        lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.espeak_SetParameter.restype = ctypes.c_int
        lib.espeak_Synth.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_uint,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.POINTER(ctypes.c_uint),
            ctypes.c_void_p,
        ]
        lib.espeak_Synth.restype = ctypes.c_int
        # espeak-ng seeds its noise generator from the clock at start-up; a seed per utterance makes a
        # rendering a function of its text and voice (same bytes in every process, every run)
        lib.espeak_ng_SetRandSeed.argtypes = [ctypes.c_long]
        lib.espeak_ng_SetRandSeed.restype = None
        lib.espeak_Info.argtypes = [ctypes.POINTER(ctypes.c_char_p)]
        lib.espeak_Info.restype = ctypes.c_char_p
        rate = lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, data.encode(), 0)
        if rate <= 0:
            raise EspeakUnavailable(f"espeak_Initialize failed for the voice data at {data}")
        self.rate = rate
        self.version = lib.espeak_Info(None).decode()
        self._chunks: list[bytes] = []
        self._events: list[tuple[int, int, int, int]] = []
        self._callback = _CALLBACK(self._on_audio)  # kept referenced: the library calls it later
        lib.espeak_SetSynthCallback(self._callback)
        self.lock = threading.Lock()

    def _on_audio(self, wav, n, events) -> int:
        if n > 0 and wav:
            self._chunks.append(ctypes.string_at(wav, n * 2))
        i = 0
        while events[i].type != EVENT_LIST_TERMINATED:
            e = events[i]
            if e.type == EVENT_WORD:
                self._events.append((e.text_position, e.length, e.audio_position, e.sample))
            i += 1
        return 0

    def synth(self, text: str, voice: str, rate_wpm: int, pitch: int, pitch_range: int) -> RawUtterance:
        """Speak `text` with the voice (e.g. "en-gb+f2") and prosody given; samples plus word events."""
        with self.lock:
            if self.lib.espeak_SetVoiceByName(voice.encode()) != EE_OK:
                raise ValueError(f"espeak-ng has no voice {voice!r}")
            for param, value in (
                (PARAM_RATE, rate_wpm),
                (PARAM_PITCH, pitch),
                (PARAM_RANGE, pitch_range),
                (PARAM_VOLUME, 100),
                (PARAM_WORDGAP, 0),
            ):
                self.lib.espeak_SetParameter(param, int(value), 0)
            self._chunks, self._events = [], []
            data = text.encode("utf-8") + b"\0"
            key = f"{voice}|{rate_wpm}|{pitch}|{pitch_range}|".encode() + data
            self.lib.espeak_ng_SetRandSeed(int.from_bytes(hashlib.sha256(key).digest()[:4], "little"))
            err = self.lib.espeak_Synth(data, len(data), 0, POS_CHARACTER, 0, ESPEAK_CHARS_UTF8, None, None)
            if err != EE_OK:
                raise RuntimeError(f"espeak_Synth failed with code {err}")
            samples = np.frombuffer(b"".join(self._chunks), dtype="<i2").copy()
            events = list(self._events)
        words = [
            WordEvent(pos - 1, pos - 1 + length, int(round(audio_ms * self.rate / 1000)))
            for pos, length, audio_ms, _ in events
        ]
        return RawUtterance(samples, self.rate, words)


@functools.lru_cache(maxsize=1)
def library() -> EspeakLibrary:
    """The process's one espeak-ng instance (loaded on first use; worker processes load their own)."""
    return EspeakLibrary()
