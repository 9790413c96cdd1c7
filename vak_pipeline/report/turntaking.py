"""Turn-taking statistics of the spoken (audio) conversations, per split and per locale.

Full-duplex models (Moshi) learn timing from the data: if gaps, overlaps and response latencies are off
(a diarizer that merges turns, a channel map the wrong way round, TTS audio with no overlap at all), the
fine-tune learns that. Measured on consecutive spoken turns of a real recording, text conversations left out
(their timestamps are message times, not speech). A chat or ticket the synth stage rendered as a call is not
data either: its gaps and latencies are what synth's gap model drew, so it is measured apart
(`TurnTaking.synthesized`, labelled as such) and never mixed into the totals, splits or locales:

- gap: a speaker change with silence between the turns (next start - previous end > 0)
- overlap: a speaker change where the next turn starts before the previous one ends (its length)
- interruption: a floor change where the previous speaker goes on >= `interrupt_min_s` after the other starts
- backchannel: a short turn (<= `backchannel_max_s`, <= `backchannel_max_words` words) by the listener,
  inside the floor holder's turn or followed by the floor holder again; it does not take the floor
- turn length: duration of every spoken turn
- agent response latency: from the end of a user turn to the start of the next agent turn (negative when
  the agent starts before the user finished)

Values are binned (50 ms) as they stream by, so memory stays flat; percentiles come from the bins.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ..rules.origin import record_kind, synthesized_audio

STEP_S = 0.05
LO_S, HI_S = -5.0, 30.0
MEASURES = ("gap_s", "overlap_s", "turn_length_s", "agent_latency_s")


class TurnTakingSettings(BaseModel):
    interrupt_min_s: float = 0.5
    backchannel_max_s: float = 1.0
    backchannel_max_words: int = 3


@dataclass
class Distribution:
    """A binned distribution: count, mean, percentiles (bin resolution), and the bins for plots.

    Plain dataclasses here (not pydantic): they are updated once per turn of every conversation.
    """

    count: int = 0
    total: float = 0.0
    bins: dict[int, int] = field(default_factory=dict)  # bin index -> count

    def add(self, v: float) -> None:
        self.count += 1
        self.total += v
        i = math.floor((min(max(v, LO_S), HI_S) - LO_S) / STEP_S + 1e-9)
        self.bins[i] = self.bins.get(i, 0) + 1

    def percentile(self, p: float) -> float | None:
        if not self.count:
            return None
        keys = sorted(self.bins)
        cum = []
        c = 0
        for k in keys:
            c += self.bins[k]
            cum.append(c)
        i = keys[bisect.bisect_left(cum, p / 100 * self.count)]
        return round(LO_S + (i + 0.5) * STEP_S, 3)

    def values(self) -> list[tuple[float, int]]:
        """(bin centre, count) pairs, sorted."""
        return [(round(LO_S + (i + 0.5) * STEP_S, 3), n) for i, n in sorted(self.bins.items())]

    def summary(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "mean": round(self.total / self.count, 3) if self.count else None,
            "p10": self.percentile(10),
            "p50": self.percentile(50),
            "p90": self.percentile(90),
        }


@dataclass
class GroupStats:
    conversations: int = 0
    spoken_turns: int = 0
    speaker_changes: int = 0
    gaps: int = 0
    overlaps: int = 0
    interruptions: int = 0
    backchannels: int = 0
    dist: dict[str, Distribution] = field(default_factory=lambda: {m: Distribution() for m in MEASURES})

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            k: getattr(self, k)
            for k in (
                "conversations",
                "spoken_turns",
                "speaker_changes",
                "gaps",
                "overlaps",
                "interruptions",
                "backchannels",
            )
        }
        changes = self.speaker_changes or 1
        out["overlap_rate"] = round(self.overlaps / changes, 4) if self.speaker_changes else None
        out["interruption_rate"] = round(self.interruptions / changes, 4) if self.speaker_changes else None
        out["backchannel_rate"] = round(self.backchannels / self.spoken_turns, 4) if self.spoken_turns else None
        out.update({m: d.summary() for m, d in self.dist.items()})
        return out


@dataclass
class TurnTaking:
    by_split: dict[str, GroupStats] = field(default_factory=dict)
    by_locale: dict[str, GroupStats] = field(default_factory=dict)
    total: GroupStats = field(default_factory=GroupStats)
    synthesized: GroupStats = field(default_factory=GroupStats)  # synth's timing, not data: never in the above

    def as_dict(self) -> dict[str, Any]:
        return {
            "total": self.total.summary(),
            "by_split": {k: v.summary() for k, v in sorted(self.by_split.items())},
            "by_locale": {k: v.summary() for k, v in sorted(self.by_locale.items())},
            "synthesized": self.synthesized.summary(),
        }


def _spoken(record: dict[str, Any]) -> list[tuple[str, float, float, int]]:
    out = []
    for t in record.get("turns") or []:
        if not isinstance(t, dict) or t.get("tool_call") or t.get("tool_result"):
            continue
        out.append(
            (
                str(t.get("speaker")),
                float(t.get("start", 0.0)),
                float(t.get("end", 0.0)),
                len(str(t.get("text") or "").split()),
            )
        )
    out.sort(key=lambda x: (x[1], x[2]))
    return out


def record_stats(record: dict[str, Any], settings: TurnTakingSettings) -> GroupStats | None:
    """The turn-taking of one real recording (None for a text record, synthesized audio included: its times
    are message times or synth's gap model, not speech).

    Gaps, overlaps and latency are measured against the turn that holds the floor: a backchannel does
    not take it, so "okay" inside the agent's turn does not hide the gap before the user's next turn.
    """
    if not isinstance(record.get("audio"), dict) or record_kind(record) != "audio":
        return None
    return _measure(record, settings)


def _measure(record: dict[str, Any], settings: TurnTakingSettings) -> GroupStats:
    g = GroupStats(conversations=1)
    turns = _spoken(record)
    floor: tuple[str, float, float, int] | None = None
    for i, (spk, start, end, words) in enumerate(turns):
        g.spoken_turns += 1
        g.dist["turn_length_s"].add(max(0.0, end - start))
        nxt = turns[i + 1] if i + 1 < len(turns) else None
        short = (end - start) <= settings.backchannel_max_s and words <= settings.backchannel_max_words
        if (
            floor is not None
            and floor[0] != spk
            and short
            and (end <= floor[2] or (nxt is not None and nxt[0] == floor[0]))
        ):
            g.backchannels += 1
            if start < floor[2]:
                g.overlaps += 1
                g.dist["overlap_s"].add(min(floor[2], end) - start)
            continue
        if floor is None or floor[0] == spk:
            floor = (spk, floor[1] if floor else start, max(end, floor[2] if floor else end), words)
            continue
        g.speaker_changes += 1
        offset = start - floor[2]
        if floor[0] == "user" and spk == "agent":
            g.dist["agent_latency_s"].add(offset)
        if offset >= 0:
            g.gaps += 1
            g.dist["gap_s"].add(offset)
        else:
            g.overlaps += 1
            g.dist["overlap_s"].add(min(floor[2], end) - start)
            if floor[2] - start >= settings.interrupt_min_s:
                g.interruptions += 1
        floor = (spk, start, end, words)
    return g


def merge_into(into: GroupStats, part: GroupStats) -> None:
    for k in ("conversations", "spoken_turns", "speaker_changes", "gaps", "overlaps", "interruptions", "backchannels"):
        setattr(into, k, getattr(into, k) + getattr(part, k))
    for m, d in part.dist.items():
        t = into.dist[m]
        t.count += d.count
        t.total += d.total
        for i, n in d.bins.items():
            t.bins[i] = t.bins.get(i, 0) + n


def add_record(tt: TurnTaking, record: dict[str, Any], split: str, settings: TurnTakingSettings) -> None:
    """Add one real recording to the total, its split's and its locale's groups; a synthesized call to
    `synthesized` only; a text conversation nowhere."""
    if isinstance(record.get("audio"), dict) and synthesized_audio(record):
        merge_into(tt.synthesized, _measure(record, settings))
        return
    part = record_stats(record, settings)
    if part is None:
        return
    merge_into(tt.total, part)
    merge_into(tt.by_split.setdefault(split, GroupStats()), part)
    merge_into(tt.by_locale.setdefault(str(record.get("locale")), GroupStats()), part)


__all__ = ["MEASURES", "Distribution", "GroupStats", "TurnTaking", "TurnTakingSettings", "add_record", "record_stats"]
