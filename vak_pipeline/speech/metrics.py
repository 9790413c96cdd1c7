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


def _overlaps(turn: dict, line: dict, slack: float = 0.5) -> bool:
    return turn["start"] < line["end"] + slack and turn["end"] > line["start"] - slack


def bleed_duplicates(turns: list[dict], script: list[dict], min_words: int = 3, share: float = 0.6) -> list[dict]:
    """Turns that repeat the OTHER speaker: at least `share` of their words (and `min_words`) are words of a
    script line of the other speaker said at the same time. Turns and lines are dicts with speaker/start/end/text."""
    out = []
    for t in turns:
        words = set(normalize_words(t.get("text") or ""))
        if len(words) < min_words:
            continue
        for line in script:
            if line["speaker"] != t["speaker"] and _overlaps(t, line, 0.0) and \
                    len(words & set(normalize_words(line["text"]))) >= share * len(words):
                out.append(t)
                break
    return out


def script_lines_found(turns: list[dict], script: list[dict], coverage: float = 0.5) -> list[bool]:
    """Per script line: is it still a turn of its own speaker? (Turns of that speaker cover at least `coverage`
    of the line's time.) Time, not words: tiny ASR models garble words, bleed removal removes whole turns."""
    found = []
    for line in script:
        spans = sorted((max(t["start"], line["start"]), min(t["end"], line["end"])) for t in turns
                       if t.get("text") and t["speaker"] == line["speaker"] and _overlaps(t, line, 0.0))
        covered, reach = 0.0, line["start"]
        for a, b in spans:
            a = max(a, reach)
            if b > a:
                covered += b - a
                reach = b
        found.append(covered >= coverage * max(line["end"] - line["start"], 1e-3))
    return found
