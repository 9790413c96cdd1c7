"""Digits said as words in ASR text ("nine eight seven ...", "double five", "oh", Hindi and Chinese numerals).

Number recognizers (phone, card, Aadhaar ...) only understand digits, so a text is rewritten into a
*digit view* where each spoken run of five or more digits becomes the digit string, with a per-character
map back to the original text. A match found in the view is mapped back to the words that said it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from .base import SHARED_RULES as _SHARED
from .base import latin_words, one_of

# The built-in table: the number words, repeat words ("double five") and digit characters (零 一 二 ...)
# of the original packs, read from their pack files (`shared_number_words: true`: en-US, hi-Latn-IN, hi-IN,
# zh-CN); they apply in every pack, with the words for + before a country code (`plus_words`: "plus").
_PLUS = tuple(sorted({w.lower() for r in _SHARED for w in r.shared_plus_words}, key=len, reverse=True))
_WORDS: dict[str, str] = {w: d for r in _SHARED for w, d in r.shared_number_words}
_REPEAT: dict[str, int] = {w: n for r in _SHARED for w, n in r.shared_repeat_words}
_ZH: dict[str, str] = {c: d for r in _SHARED for c, d in r.shared_digit_chars}
_ZH_CHARS = "".join(re.escape(c) for c in _ZH)

_L = r"(?<![\w\u0900-\u097F])"  # word boundaries that also respect Devanagari vowel signs
_R = r"(?![\w\u0900-\u097F])"
_REP_ALT = "|".join(re.escape(w) for w in _REPEAT)
_PLUS_ALT = one_of([re.escape(w) for w in _PLUS])
_ZH_RUN_RE = re.compile(rf"[{_ZH_CHARS}0-9]{{6,}}")


@dataclass(frozen=True)
class _Table:
    """The compiled number words of one pack: the built-in table plus the pack file's `number_words`.

    `latin`: the ASCII words in lower case where they are all plain letters (then an ASCII text without one
    among its latin_words has no spoken digit); None otherwise."""

    words: dict[str, str]
    run_re: re.Pattern[str]
    token_re: re.Pattern[str]
    prefilter: re.Pattern[str]
    latin: frozenset[str] | None


@functools.lru_cache(maxsize=64)
def _table(extra: tuple[tuple[str, str], ...] = ()) -> _Table:
    words = {**_WORDS, **dict(extra)}
    alt = "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))
    token = rf"{_L}(?:(?:{_REP_ALT})\s+)?(?:{alt}|\d+){_R}"
    ascii_words = [w for w in words if w.isascii()]
    return _Table(
        words,
        re.compile(rf"(?:{_L}{_PLUS_ALT}\s+)?{token}(?:[\s,\-]+{token})*", re.IGNORECASE),
        re.compile(rf"(?:({_REP_ALT})\s+)?({alt}|\d+)", re.IGNORECASE),
        re.compile(rf"{_L}(?:{alt}){_R}|[{_ZH_CHARS}]", re.IGNORECASE),
        frozenset(w.lower() for w in ascii_words) if all(re.fullmatch("[A-Za-z]+", w) for w in ascii_words) else None,
    )


MIN_DIGITS = 5  # a spoken US ZIP has five


@dataclass(frozen=True, slots=True)
class DigitView:
    """`text` with spoken digit runs turned into digits; starts/ends map each view char to the original."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        return self.starts[start], self.ends[end - 1]


T = TypeVar("T")
_MISSING = object()


def _entry(table: Mapping[str, T], word: str) -> T:
    """The entry of the word a case-insensitive regex matched. There "ſix" and "sıx" match "six", but
    lower() keeps ſ and ı, so a plain lookup would miss (and raise); those rare words search the table."""
    hit = table.get(word.lower(), _MISSING)
    if hit is _MISSING:
        hit = next(v for k, v in table.items() if re.fullmatch(re.escape(k), word, re.IGNORECASE))
    return hit  # type: ignore[return-value]


def _convert_run(text: str, m: re.Match[str], table: _Table) -> list[tuple[str, int, int]] | None:
    """(char, orig_start, orig_end) per output char, or None when the run has no words or too few digits."""
    out: list[tuple[str, int, int]] = []
    pos, end = m.start(), m.end()
    has_word = False
    seg = text[pos:end]
    plus = next((w for w in _PLUS if seg[: len(w)].lower() == w), None)
    if plus is not None:
        nxt = table.token_re.search(text, pos + len(plus), end)
        if nxt is None:
            return None
        out.append(("+", pos, nxt.start()))
        pos = nxt.start()
    for t in table.token_re.finditer(text, pos, end):
        rep, word = t.group(1), t.group(2)
        if word.isdigit():
            digits = word if word.isascii() else "".join(str(int(c)) for c in word)
        else:
            digits = _entry(table.words, word)
            has_word = True
        times = _entry(_REPEAT, rep) if rep else 1
        if rep:
            has_word = True
        for ch in digits * times if len(digits) == 1 else digits:
            out.append((ch, t.start(), t.end()))
        if rep and len(digits) > 1:  # "double 55" is rare; keep the digits once more per repeat
            for _ in range(times - 1):
                out.extend((ch, t.start(), t.end()) for ch in digits)
    if not has_word or sum(c.isdigit() for c, _, _ in out) < MIN_DIGITS:
        return None
    return out


def digit_view(
    text: str, extra_words: tuple[tuple[str, str], ...] = (), words: frozenset[str] | None = None
) -> DigitView | None:
    """The digit view of `text`, or None when nothing is spoken as digits (the common, cheap case).

    `extra_words`: a pack file's number words ("vijf", "fünf", "cinq"), added to the built-in table.
    `words`: latin_words(text), when the caller has it."""
    table = _table(extra_words)
    if text.isascii() and table.latin is not None:
        if table.latin.isdisjoint(latin_words(text) if words is None else words):
            return None  # the common case, decided by a set lookup over the text's words
    elif table.prefilter.search(text) is None:
        return None
    return _view(text, table)


def _view(text: str, table: _Table) -> DigitView | None:
    """The digit view: each run_re run that _convert_run reads, and each run of Chinese digit characters."""
    runs: list[tuple[int, int, list[tuple[str, int, int]]]] = []
    for m in table.run_re.finditer(text):
        conv = _convert_run(text, m, table)
        if conv:
            runs.append((m.start(), m.end(), conv))
    for m in _ZH_RUN_RE.finditer(text):
        s = m.group()
        if any(c in _ZH for c in s) and not any(a < m.end() and m.start() < b for a, b, _ in runs):
            runs.append(
                (m.start(), m.end(), [(_ZH.get(c, c), m.start() + i, m.start() + i + 1) for i, c in enumerate(s)])
            )
    if not runs:
        return None
    runs.sort()
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for a, b, conv in runs:
        for i in range(pos, a):
            chars.append(text[i])
            starts.append(i)
            ends.append(i + 1)
        for ch, s, e in conv:
            chars.append(ch)
            starts.append(s)
            ends.append(e)
        pos = b
    for i in range(pos, len(text)):
        chars.append(text[i])
        starts.append(i)
        ends.append(i + 1)
    return DigitView("".join(chars), tuple(starts), tuple(ends))


def spoken_digit_words(extra_words: tuple[tuple[str, str], ...] = ()) -> tuple[dict[str, str], dict[str, int]]:
    """The number words (word -> digits) and repeat words (word -> times) of a pack, built-in table included."""
    return _table(extra_words).words, _REPEAT
