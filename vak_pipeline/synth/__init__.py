"""synth: text-only conversations rendered as two-channel 24 kHz calls with exact word alignments."""

from .settings import GapModel, SynthSettings
from .stage import SynthResult, synth_upload

__all__ = ["GapModel", "SynthResult", "SynthSettings", "synth_upload"]
