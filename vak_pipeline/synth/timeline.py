"""Turn times that read like a call: gaps between speakers, pauses within a party, tool latency.

The gap model is learned from the real calls of the same upload when they hold enough speaker
switches (a log-normal fitted to their positive gaps, plus their share of overlapping switches),
else the documented default of `GapModel` is used; a pinned model in the settings wins over both.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass

from ..schema.record import VakRecord
from .settings import GapModel, SynthSettings


@dataclass
class SwitchStats:
    """Running sums over speaker switches of real calls (memory flat in the number of records)."""

    n: int = 0
    overlaps: int = 0
    log_sum: float = 0.0
    log_sq: float = 0.0
    positive: int = 0

    def add_record(self, rec: VakRecord) -> None:
        prev = None
        for t in rec.turns:
            if not t.is_spoken or t.speaker not in ("agent", "user") or not t.text:
                continue
            if prev is not None and prev.speaker != t.speaker:
                gap = t.start - prev.end
                self.n += 1
                if gap < 0:
                    self.overlaps += 1
                elif gap >= 0.01:
                    self.positive += 1
                    lg = math.log(gap)
                    self.log_sum += lg
                    self.log_sq += lg * lg
            prev = t

    def model(self) -> GapModel:
        mu = self.log_sum / self.positive
        var = max(0.0, self.log_sq / self.positive - mu * mu)
        return GapModel(
            median_s=round(math.exp(mu), 2),
            sigma=round(math.sqrt(var), 2),
            overlap_probability=round(self.overlaps / self.n, 2),
            source=f"learned ({self.n} switches)",
        )


def is_real_call(rec: VakRecord) -> bool:
    return rec.audio is not None and rec.audio.synthesis is None and rec.meta.source != "synthetic"


def choose_gap_model(settings: SynthSettings, real_calls: Iterable[VakRecord]) -> GapModel:
    if settings.gap_model is not None:
        return settings.gap_model.model_copy(update={"source": "config"})
    if settings.gaps == "learned":
        stats = SwitchStats()
        for rec in real_calls:
            stats.add_record(rec)
        if stats.n >= settings.learn_min_switches and stats.positive > 1:
            return stats.model()
    return GapModel()


@dataclass
class Placed:
    start: float
    end: float
    overlap: bool = False


def _uniform(rng: random.Random, lo_hi: tuple[float, float]) -> float:
    lo, hi = lo_hi
    return lo + (hi - lo) * rng.random()


def place_turns(
    rec: VakRecord, durations: list[float | None], settings: SynthSettings, gaps: GapModel, rng: random.Random
) -> list[Placed]:
    """Start/end per turn. `durations[i]` is the rendered length of spoken turn i (None: not rendered).

    Turns stay sorted by start; an overlapping turn starts inside the other party's previous turn
    (never inside its own party's); tool calls follow the agent's words and their results arrive after
    a latency during which the agent is silent."""
    out: list[Placed] = []
    cursor = settings.lead_in_s  # no event may start before this
    last_end: dict[str, float] = {}
    prev: tuple[str, float, float] | None = None  # (speaker, start, end) of the last rendered turn
    after_tool = False
    for i, t in enumerate(rec.turns):
        dur = durations[i]
        if t.tool_call is not None:
            at = round(max(cursor, prev[2] if prev else cursor) + _uniform(rng, settings.tool_call_delay_s), 3)
            out.append(Placed(at, at))
            cursor, after_tool = at, True
            continue
        if t.tool_result is not None:
            at = round(cursor + _uniform(rng, settings.tool_latency_s), 3)
            out.append(Placed(at, at))
            cursor, after_tool = at, True
            continue
        if dur is None:  # a turn nobody speaks (no text): zero length where it falls
            out.append(Placed(cursor, cursor))
            continue
        overlap = False
        if prev is None:
            start = cursor
        elif after_tool:
            start = cursor + _uniform(rng, settings.tool_call_delay_s)
        elif prev[0] == t.speaker:
            start = prev[2] + _uniform(rng, settings.same_speaker_pause_s)
        else:
            room = prev[2] - prev[1] - 0.3
            if rng.random() < gaps.overlap_probability and room > 0.1:
                start = prev[2] - min(gaps.overlap_max_s, room) * (0.3 + 0.7 * rng.random())
                overlap = True
            else:
                gap = math.exp(math.log(gaps.median_s) + gaps.sigma * rng.gauss(0.0, 1.0))
                start = prev[2] + min(gaps.max_s, max(gaps.min_s, gap))
        start = max(
            start, cursor if not overlap else prev[1] + 0.3 if prev else cursor, last_end.get(t.speaker, 0.0) + 0.05
        )
        start = round(start, 3)
        end = math.ceil(round((start + dur) * 1000, 6)) / 1000  # the turn covers its last sample
        out.append(Placed(start, end, overlap))
        last_end[t.speaker] = end
        prev = (t.speaker, start, end)
        cursor = start if overlap else max(cursor, start)
        after_tool = False
    return out
