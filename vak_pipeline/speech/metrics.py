"""Word error rate, for tests and benchmarks of the ASR stage against known scripts."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z0-9']+")


def normalize_words(text: str) -> list[str]:
    """Lower-case word tokens without punctuation (so 'Hello,' == 'hello')."""
    return _TOKEN.findall(text.lower())


def wer(reference: str, hypothesis: str) -> float:
    """(substitutions + deletions + insertions) / reference words; 0.0 for two empty texts."""
    ref, hyp = normalize_words(reference), normalize_words(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h))
        prev = cur
    return prev[-1] / len(ref)
