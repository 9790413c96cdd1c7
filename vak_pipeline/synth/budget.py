"""Which text-only conversations of an upload are rendered as calls: the upload's choice, within a budget.

Rendering a year of chat logs as calls would cost a year of audio in every export, so rendering is chosen
per upload in upload.yaml (`synth:`), and bounded: `render: all`, `none`, or `budget` (the default) with
`budget_hours` of estimated speech (1 h when nothing is said) and/or `budget_fraction` of the upload's
text conversations. The selection is seeded: each conversation's rank is sha256(seed, conv id), so the same
upload renders the same conversations on every run and machine; a fraction keeps a conversation whenever
its rank falls under the fraction, whatever else the upload holds.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterable

from ..uploads.descriptor import SynthChoice

CHARS_PER_WORD = 6  # five letters and a space: how text becomes estimated seconds of speech


def rank(seed: int, conv_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{conv_id}".encode()).digest()[:8], "big")


def estimated_seconds(chars: int, rate_wpm: int) -> float:
    return chars / (rate_wpm * CHARS_PER_WORD / 60)


def choose(choice: SynthChoice, candidates: Iterable[tuple[str, int]], rate_wpm: int) -> set[str] | None:
    """Conversation ids to render among (conv id, spoken characters); None: all of them.

    Memory is bounded by what is chosen: a heap keeps the best-ranked conversations within the hours."""
    if choice.render == "all" or (choice.budget_hours is None and choice.budget_fraction is None):
        return None
    if choice.render == "none":
        return set()
    cut = None if choice.budget_fraction is None else int(choice.budget_fraction * 2 ** 64)
    limit = None if choice.budget_hours is None else choice.budget_hours * 3600
    heap: list[tuple[int, str, float]] = []  # (-rank, id, seconds): the worst-ranked on top
    total = 0.0
    for conv_id, chars in candidates:
        r = rank(choice.seed, conv_id)
        if cut is not None and r >= cut:
            continue
        secs = estimated_seconds(chars, rate_wpm)
        heapq.heappush(heap, (-r, conv_id, secs))
        total += secs
        while limit is not None and heap and total > limit:
            total -= heapq.heappop(heap)[2]
    return {conv_id for _, conv_id, _ in heap}
