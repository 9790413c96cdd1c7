"""Speaker-disjoint, seeded, stable split assignment by conversation id.

Conversations that share a known speaker (an agent voice, a customer id; by role) form one connected
component and always land in one split. Three promises:
- deterministic: the same manifest, config and previous file give the same splits.json;
- stable: a conversation already assigned never moves, and a new conversation that joins an assigned
  component goes where that component is;
- honest: a new conversation that would tie together components already in different splits is held
  out with a message, never silently moved (moving it would leak a speaker into a second split).
Fresh components are ordered by sha256(seed, smallest conv id) and each goes greedily to the split
furthest below its target share, so existing assignments constrain but never get reshuffled.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import defaultdict
from collections.abc import Iterable

from .model import Conflict, SplitConfig, SplitsFile
from .summaries import SplitSummary, as_summary, speaker_keys


class UnionFind:
    """Path-halving, union-by-size disjoint sets over dense integer ids (compact arrays, not dicts)."""

    def __init__(self, n: int = 0) -> None:
        self.parent = array("q", range(n))
        self.size = array("q", [1]) * n

    def add(self) -> int:
        """A new singleton set; returns its id."""
        self.parent.append(len(self.parent))
        self.size.append(1)
        return len(self.parent) - 1

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]


def _components(conv_keys: dict[str, list[str]]) -> list[list[str]]:
    """Connected components of conversations linked through shared speaker keys (each sorted).

    Conversations are ids 0..n-1 and each distinct speaker key gets the next id, so memory is a few
    machine words per node on top of the conversation ids the caller already holds.
    """
    convs = list(conv_keys)
    uf = UnionFind(len(convs))
    key_ids: dict[str, int] = {}
    for i, conv in enumerate(convs):
        for k in conv_keys[conv]:
            j = key_ids.get(k)
            if j is None:
                j = key_ids[k] = uf.add()
            uf.union(i, j)
    groups: dict[int, list[str]] = defaultdict(list)
    for i, conv in enumerate(convs):
        groups[uf.find(i)].append(conv)
    return [sorted(g) for g in groups.values()]


def component_order_key(seed: int, smallest_conv_id: str) -> str:
    return hashlib.sha256(f"{seed}\0{smallest_conv_id}".encode()).hexdigest()


def _pick_split(counts: dict[str, int], ratios: dict[str, float], size: int) -> str:
    total = sum(counts.values()) + size
    best, best_deficit = None, None
    for name, share in ratios.items():
        deficit = share * total - counts[name]
        if best_deficit is None or deficit > best_deficit + 1e-12:
            best, best_deficit = name, deficit
    assert best is not None
    return best


def build_splits(
    summaries: Iterable[SplitSummary | tuple],
    config: SplitConfig | None = None,
    previous: SplitsFile | None = None,
    manifest_hash: str | None = None,
) -> SplitsFile:
    """Assign every conversation to a split (or hold it out with a reason); see the module docstring."""
    config = config or SplitConfig()
    names = list(config.ratios)
    warnings: list[str] = []

    conv_keys: dict[str, list[str]] = {}
    pinned: dict[str, str] = {}
    for item in summaries:
        s = as_summary(item)
        if s.conv_id in conv_keys:
            warnings.append(f"conversation id {s.conv_id} appears more than once in the manifest; assigned once")
            conv_keys[s.conv_id] = sorted(set(conv_keys[s.conv_id]) | set(speaker_keys(s.speakers, config.roles)))
            continue
        conv_keys[s.conv_id] = speaker_keys(s.speakers, config.roles)
        if s.pinned:
            pinned[s.conv_id] = s.pinned

    prev_assign: dict[str, str] = {}
    prev_speakers: dict[str, str] = {}
    if previous is not None:
        prev_assign = {**previous.retired, **previous.assignment}
        prev_speakers = dict(previous.speakers)
        if previous.seed != config.seed:
            warnings.append(f"seed changed from {previous.seed} to {config.seed}: existing assignments are kept; "
                            "the new seed orders only new components")

    # anchors: conversations whose split is already decided (previous file first, then meta.split)
    anchor: dict[str, str] = {}
    for conv in conv_keys:
        if conv in prev_assign:
            anchor[conv] = prev_assign[conv]
            if conv in pinned and pinned[conv] != prev_assign[conv]:
                warnings.append(f"conversation {conv} carries meta.split={pinned[conv]} but splits.json already "
                                f"has it in {prev_assign[conv]}; splits.json wins (assignments never move)")
        elif conv in pinned:
            anchor[conv] = pinned[conv]
    for conv, split in anchor.items():
        if split not in config.ratios:
            warnings.append(f"conversation {conv} is kept in split '{split}', which is not in the configured ratios")

    assignment: dict[str, str] = dict(anchor)
    held_out: dict[str, str] = {}
    conflicts: list[Conflict] = []
    fresh: list[list[str]] = []

    for comp in _components(conv_keys):
        old = [c for c in comp if c in anchor]
        # where each speaker key already lives: from old members, then from the previous speaker map
        key_home: dict[str, dict[str, str]] = defaultdict(dict)  # key -> {split: example conv}
        for c in old:
            for k in conv_keys[c]:
                key_home[k].setdefault(anchor[c], c)
        for c in comp:
            for k in conv_keys[c]:
                if k in prev_speakers and prev_speakers[k] not in key_home[k]:
                    key_home[k][prev_speakers[k]] = "(an earlier conversation)"
        comp_splits = sorted({s for homes in key_home.values() for s in homes} | {anchor[c] for c in old})
        if not comp_splits:
            fresh.append(comp)
            continue
        if len(comp_splits) == 1:
            for c in comp:
                assignment.setdefault(c, comp_splits[0])
            continue
        _resolve_conflict(comp, conv_keys, anchor, key_home, assignment, held_out, conflicts)

    counts = {name: 0 for name in names}
    for split in assignment.values():
        counts[split] = counts.get(split, 0) + 1
    total_convs = max(len(conv_keys), 1)
    largest = max((len(c) for c in fresh), default=0)
    for comp in sorted(fresh, key=lambda c: component_order_key(config.seed, c[0])):
        split = _pick_split({n: counts.get(n, 0) for n in names}, config.ratios, len(comp))
        for c in comp:
            assignment[c] = split
        counts[split] += len(comp)

    if largest > 1 and largest / total_convs > 0.5:
        warnings.append(f"one group of conversations sharing speakers holds {largest} of {total_convs} "
                        "conversations; splits cannot reach their ratios. If a single agent voice is shared by "
                        "every call, split by customer only (roles=['user'])")
    empty = [n for n in names if config.ratios[n] > 0 and counts.get(n, 0) == 0]
    if empty and len(conv_keys) >= len(names):
        warnings.append(f"split(s) {', '.join(empty)} received no conversations")

    retired = {c: s for c, s in prev_assign.items() if c not in conv_keys}
    speakers_map = _speaker_map(conv_keys, assignment, prev_speakers)
    counts["held_out"] = len(held_out)
    return SplitsFile(
        seed=config.seed, ratios=config.ratios, roles=list(config.roles),
        assignment=dict(sorted(assignment.items())), counts=counts,
        held_out=dict(sorted(held_out.items())), conflicts=conflicts, retired=dict(sorted(retired.items())),
        speakers=speakers_map, warnings=warnings, manifest_hash=manifest_hash,
    )


def _resolve_conflict(
    comp: list[str],
    conv_keys: dict[str, list[str]],
    anchor: dict[str, str],
    key_home: dict[str, dict[str, str]],
    assignment: dict[str, str],
    held_out: dict[str, str],
    conflicts: list[Conflict],
) -> None:
    """A component spanning several splits: old members stay; new members go where they touch one split."""
    new = [c for c in comp if c not in anchor]
    old_splits = sorted({anchor[c] for c in comp if c in anchor})
    # new members linked to each other only through keys no old member has (keys with no home yet)
    sub: dict[str, list[str]] = {c: [k for k in conv_keys[c] if not key_home.get(k)] for c in new}
    for group in _components(sub):
        touched: dict[str, list[str]] = defaultdict(list)  # split -> evidence strings
        for c in group:
            for k in conv_keys[c]:
                for split, example in key_home.get(k, {}).items():
                    role = k.split(":", 1)[0]
                    touched[split].append(f"{c} shares the {role} speaker with {example} ({split})")
        if len(touched) == 1:
            split = next(iter(touched))
            for c in group:
                assignment[c] = split
            continue
        splits = sorted(touched)
        evidence = "; ".join(sorted({e for ev in touched.values() for e in ev})[:6])
        msg = (f"held out: would join speakers already in {' and '.join(splits)} ({evidence}). Moving either side "
               "would leak a speaker into a second split")
        for c in group:
            held_out[c] = msg + (". Fix: check meta.speakers of these conversations (a wrong speaker id is the "
                                 "usual cause) or move conversations by hand in splits.json, then re-run splits")
        conflicts.append(Conflict(code="bridge", conversations=group, splits=splits, message=msg))
    if len(old_splits) > 1:
        olds = [c for c in comp if c in anchor]
        # a leak among already-assigned conversations alone (speaker ids edited since the last run)
        only_old = _components({c: conv_keys[c] for c in olds})
        for group in only_old:
            gs = sorted({anchor[c] for c in group})
            if len(gs) > 1:
                conflicts.append(Conflict(
                    code="existing_leak", conversations=group, splits=gs,
                    message=f"conversations already assigned to {' and '.join(gs)} now share a speaker; "
                            "they were not moved. Fix: correct meta.speakers or move them by hand in splits.json"))


def _speaker_map(conv_keys: dict[str, list[str]], assignment: dict[str, str],
                 prev_speakers: dict[str, str]) -> dict[str, str]:
    """Speaker key -> split for unambiguous keys (previous entries kept for speakers no longer present)."""
    seen: dict[str, set[str]] = defaultdict(set)
    for conv, keys in conv_keys.items():
        split = assignment.get(conv)
        if split is None:
            continue
        for k in keys:
            seen[k].add(split)
    out = {k: s for k, s in prev_speakers.items() if k not in seen}
    out.update({k: next(iter(v)) for k, v in seen.items() if len(v) == 1})
    return dict(sorted(out.items()))
