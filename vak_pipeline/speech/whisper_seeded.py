"""faster-whisper whose temperature fallback samples from a stream seeded by the window itself.

faster-whisper decodes each 30 s window with beam search and, when that result fails its compression-ratio
or log-prob test, retries with sampling (temperatures 0.2 ... 1.0). CTranslate2 draws those samples from a
`thread_local` generator in the model's worker thread, seeded once, at that thread's first draw, from the
process-wide seed (`ctranslate2.set_random_seed`, else the system). A long-lived model therefore gives a
hard window a sample that depends on every draw its worker made before: on the process, the recordings
transcribed earlier and the worker count. CTranslate2 takes no per-call seed, and a used thread cannot be
re-seeded.

So each window that reaches sampling gets a private copy of the model (a fresh worker thread) whose first
draw is seeded, under a lock, from the window's key: the settings' seed, the window's encoder output and
its text prompt. Its retries then depend on that window and the settings only. The copy is loaded only for
windows that sample and dropped after them (about 0.15 s for tiny.en on CPU); beam passes use the shared
model as before.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from collections.abc import Callable
from typing import Any

import ctranslate2
import numpy as np
from faster_whisper import WhisperModel

# CTranslate2's seed is one process-wide value, read when a thread makes its generator: one window at a time
_SEED_LOCK = threading.Lock()
_SYSTEM_SEED = 2**32 - 1  # what CTranslate2 reads as "seed from the system"


def window_seed(fallback_seed: int, encoder_output: Any, prompt: list[int]) -> int:
    """The seed of one window's sampled retries: what the decoder sees (encoder output, prompt) plus the setting."""
    if encoder_output.dtype != ctranslate2.DataType.float32:  # float16 / bfloat16 on GPUs; numpy lacks the latter
        encoder_output = encoder_output.to(ctranslate2.DataType.float32)
    if encoder_output.device != "cpu":
        encoder_output = encoder_output.to_device(ctranslate2.Device.cpu)
    digest = hashlib.sha256(f"vak-fallback-seed-{fallback_seed}".encode())
    digest.update(np.asarray(prompt, dtype=np.int64).tobytes())
    digest.update(np.ascontiguousarray(np.asarray(encoder_output)).tobytes())
    seed = int.from_bytes(digest.digest()[:4], "big")
    return seed if seed != _SYSTEM_SEED else 0


class _WindowDecoder:
    """The CTranslate2 model as one window's fallback loop sees it: deterministic passes go to the shared
    model, sampled ones to this window's own copy, seeded by the window's key on its first draw."""

    def __init__(self, shared: Any, load_sampler: Callable[[], Any], seed_of_window: Callable[[], int]) -> None:
        self._shared = shared
        self._load_sampler = load_sampler
        self._seed_of_window = seed_of_window
        self._sampler: Any = None
        self._seed = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._shared, name)

    def generate(self, features: Any, prompts: Any, **kwargs: Any) -> Any:
        if kwargs.get("sampling_topk", 1) == 1:  # beam or greedy search: no random draws
            return self._shared.generate(features, prompts, **kwargs)
        if kwargs.get("asynchronous"):
            raise ValueError("seeded sampling runs synchronously: the seed must be in place while it draws")
        if self._sampler is None:
            self._seed = self._seed_of_window()
            self._sampler = self._load_sampler()
        # set before every sampled call, not only the first: on CUDA a larger batch re-creates the
        # thread's generator states from the process-wide seed, which must then still be this window's
        with _SEED_LOCK:
            ctranslate2.set_random_seed(self._seed)
            try:
                return self._sampler.generate(features, prompts, **kwargs)
            finally:
                ctranslate2.set_random_seed(_SYSTEM_SEED)


class SeededWhisperModel(WhisperModel):
    """A WhisperModel whose temperature fallback is a function of the window and `fallback_seed` only."""

    def __init__(self, model_path: str, *, fallback_seed: int, device: str, compute_type: str,
                 cpu_threads: int, **kwargs: Any) -> None:
        super().__init__(model_path, device=device, compute_type=compute_type, cpu_threads=cpu_threads, **kwargs)
        self.fallback_seed = fallback_seed
        self._sampler_args = dict(model_path=model_path, device=device, compute_type=compute_type,
                                  intra_threads=cpu_threads, inter_threads=1)

    def _load_sampler(self) -> Any:
        """A private copy of the CTranslate2 model, same numerics, with a worker thread that never drew."""
        return ctranslate2.models.Whisper(**self._sampler_args)

    def generate_with_fallback(self, encoder_output: Any, prompt: list[int], tokenizer: Any, options: Any) -> Any:
        # faster-whisper's own loop, run on a shallow copy whose `model` routes this window's sampling
        window = copy.copy(self)
        window.model = _WindowDecoder(self.model, self._load_sampler,
                                      lambda: window_seed(self.fallback_seed, encoder_output, prompt))
        return WhisperModel.generate_with_fallback(window, encoder_output, prompt, tokenizer, options)
