"""The synth stage's settings: one pydantic model, from which the Dagster config is derived."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..schema.record import ChannelRole

# bump when the same text and settings would render different bytes (2: espeak-ng seeded per utterance)
SYNTH_VERSION = "2"

EXECUTION_ONLY = ("workers",)  # how the stage runs, never what it renders
# which records are rendered at all, never the bytes of one that is (a refusal is not cached)
GATES = ("max_turn_chars", "max_record_chars")


class GapModel(BaseModel):
    """Turn-taking timing: the silence between two speakers' turns is log-normal (a long right tail, as
    in real calls), clipped; a share of switches overlap the end of the previous turn instead.

    The defaults are the documented fallback (docs/synth.md) used when the upload has too few real
    calls to learn from: a median switch gap of 350 ms (telephone conversation runs a little slower
    than the ~200 ms of face-to-face talk) and no overlaps.
    """

    model_config = ConfigDict(extra="forbid")
    median_s: float = Field(default=0.35, gt=0)
    sigma: float = Field(default=0.5, ge=0, description="Spread of log(gap).")
    min_s: float = Field(default=0.08, ge=0)
    max_s: float = Field(default=2.0, gt=0)
    overlap_probability: float = Field(default=0.0, ge=0, le=1)
    overlap_max_s: float = Field(default=0.4, ge=0)
    source: str = Field(default="default", description="default | learned (n switches) | config")


class SynthSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    enabled: bool = True
    engine: Literal["espeak-ng", "piper"] = "espeak-ng"
    piper_voices: dict[str, str] = Field(
        default_factory=dict,
        description="engine piper: locale (or language) -> local .onnx voice file; never "
        "downloaded. Multi-speaker files give one voice per speaker id.",
    )
    channel_map: dict[str, ChannelRole] = Field(
        default_factory=lambda: {"0": "user", "1": "agent"},
        description="Which channel each party is rendered on (the upload's channel_map wins when it has one).",
    )
    gaps: Literal["learned", "default"] = "learned"  # learned: from the upload's real calls when enough
    gap_model: GapModel | None = Field(default=None, description="Pin the gap model (overrides `gaps`).")
    learn_min_switches: int = Field(default=40, ge=1, description="Speaker switches needed to learn gaps.")
    same_speaker_pause_s: tuple[float, float] = (0.25, 0.6)  # two turns of one party in a row
    tool_latency_s: tuple[float, float] = (0.6, 1.8)  # the agent is silent while its tool runs
    tool_call_delay_s: tuple[float, float] = (0.1, 0.3)  # from the agent's words to the call
    backchannel_probability: float = Field(
        default=0.0, ge=0, le=1, description="Per turn longer than 2.5 s: the listener says mm-hm."
    )
    voice_groups: int = Field(default=16, ge=1, description="Disjoint voice pools; a conversation uses one.")
    users_per_group: int = Field(default=3, ge=1)
    rate_wpm: int = Field(default=165, ge=80, le=400)
    lead_in_s: float = Field(default=0.3, ge=0)
    tail_s: float = Field(default=0.5, ge=0)
    seed: int = 0
    workers: int = Field(default=1, ge=0, description="Render processes (0 = one per core); output identical.")
    max_turn_chars: int = Field(
        default=4000, ge=1, description="A conversation with a longer spoken turn (about 4 minutes of speech "
        "at the default) is not rendered and stays text-only: rendering holds the whole call in memory.")
    max_record_chars: int = Field(
        default=20_000, ge=1, description="A conversation with more spoken text than this (about 20 minutes) "
        "is not rendered and stays text-only.")

    def fingerprint(self) -> str:
        """Hash of what shapes the rendered bytes (not `workers`)."""
        data = self.model_dump(mode="json")
        for key in (*EXECUTION_ONLY, *GATES):
            data.pop(key, None)
        return hashlib.sha256(json.dumps([SYNTH_VERSION, data], sort_keys=True).encode()).hexdigest()[:16]
