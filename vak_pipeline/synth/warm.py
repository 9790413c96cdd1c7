"""Imported once by the render forkserver, so every per-conversation process starts warm.

The forkserver forks one process per conversation (stage.py says why); what is loaded here (numpy,
soxr, soundfile, the espeak-ng library initialized but never used to speak) is inherited instead of
loaded again per conversation. An initialized, unused engine is the same state in every child.
"""

import contextlib

import soundfile  # noqa: F401
import soxr  # noqa: F401

from . import stage  # noqa: F401
from .espeak import EspeakUnavailable, library

with contextlib.suppress(EspeakUnavailable):
    library()
