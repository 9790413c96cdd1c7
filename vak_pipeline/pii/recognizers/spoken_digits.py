"""Digits said as words in ASR text ("nine eight seven ...", "double five", "oh", Hindi and Chinese numerals).

Number recognizers (phone, card, Aadhaar ...) only understand digits, so a text is rewritten into a
*digit view* where each spoken run of five or more digits becomes the digit string, with a per-character
map back to the original text. A match found in the view is mapped back to the words that said it.
"""

from __future__ import annotations

import _sre
import functools
import re
import re._casefix
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import accumulate, compress, repeat
from typing import TypeVar

from ...locales.registry import BUILTIN_PACKS
from .base import latin_words

# The built-in table: the number words, repeat words ("double five") and digit characters (零 一 二 ...)
# of the original packs, read from their pack files (`shared_number_words: true`: en-US, hi-Latn-IN, hi-IN,
# zh-CN); they apply in every pack, with the words for + before a country code (`plus_words`: "plus").
_SHARED = [p.rules for p in BUILTIN_PACKS.values() if p.rules is not None]
_PLUS = tuple(sorted({w.lower() for r in _SHARED for w in r.shared_plus_words}, key=len, reverse=True))
_WORDS: dict[str, str] = {w: d for r in _SHARED for w, d in r.shared_number_words}
_REPEAT: dict[str, int] = {w: n for r in _SHARED for w, n in r.shared_repeat_words}
_ZH: dict[str, str] = {c: d for r in _SHARED for c, d in r.shared_digit_chars}
_ZH_CHARS = "".join(re.escape(c) for c in _ZH)

_L = r"(?<![\w\u0900-\u097F])"  # word boundaries that also respect Devanagari vowel signs
_R = r"(?![\w\u0900-\u097F])"
_REP_ALT = "|".join(re.escape(w) for w in _REPEAT)
_PLUS_ALT = re.escape(_PLUS[0]) if len(_PLUS) == 1 else "(?:" + ("|".join(map(re.escape, _PLUS)) or "(?!)") + ")"
_ZH_RUN_RE = re.compile(rf"[{_ZH_CHARS}0-9]{{6,}}")
_WORD_RUN = re.compile(r"\w+")
_LETTERS = re.compile("[A-Za-z]+")
_SCRIPT_RUN = re.compile(r"[\w\u0900-\u097F]+")  # what _L and _R bound
_ASCII_CASE_ODD = frozenset("\u0130\u0131\u017f\u212a")  # letters re.IGNORECASE takes for ASCII ones
_CASE_ODD = re.compile("[\u0130\u0131\u017f\u212a]")  # finds one of them
_LATIN_OR_ODD = re.compile("[A-Za-z\u0130\u0131\u017f\u212a]")
_RUN_SPLIT = re.compile(r"([\w\u0900-\u097F]+)")  # split() keeps the _SCRIPT_RUN runs at odd indices


@dataclass(frozen=True, slots=True)
class _Lookup:
    """The words of a _Table by lower case, for reading a text's runs by dict lookups instead of run_re.

    codes: lower case -> "n" (number word), "r" (repeat word) or "p" (plus word), and the gaps between runs seen
    so far -> their code (_gap_code); number: lower case -> (digits, how many of them are digits), the value
    _entry gives for a run of that case; repeat: lower case -> times; digit: lower case -> its digit where every
    number word is one digit (else None)."""

    codes: dict[str, str]
    number: dict[str, tuple[str, int]]
    repeat: dict[str, int]
    digit: dict[str, str] | None


# The lookup path reads a text as a string of codes, one per run and one per gap between runs (gap, run, gap,
# ..., gap): runs "n" number word, "d" digits, "r" repeat word, "p" plus word, "x" any other; gaps "s" white
# space, "c" other [\s,\-]+ (what run_re allows between two tokens), "o" any other, "e" empty (at the ends).
# _CODE_RUN is run_re on that string, element for element: (plus \s+)? ((repeat \s+)? (word | \d+)) ([\s,\-]+ ...)*
_CODE_RUN = re.compile("(?:ps)?(?:rs)?[nd](?:[sc](?:rs)?[nd])*")
_CODE_WORDS = re.compile("n(?:[sc]n)*")  # _CODE_RUN where the string has no p, r or d (sre scans for its n)
_SEPARATOR = re.compile(r"[\s,\-]+")
_ZH_CHAR = re.compile(f"[{_ZH_CHARS}]")  # a _ZH_RUN_RE run holds one
_ASCII_RUN_SPLIT = re.compile("([0-9a-z_]+)")  # _RUN_SPLIT on lower-case ASCII text
_MAX_CODES = 4096  # words and gaps in the codes of one table


def _gap_code(gap: str) -> str:
    return "e" if not gap else "s" if gap.isspace() else "c" if _SEPARATOR.fullmatch(gap) else "o"


def _plain_letter(c: str) -> bool:
    """Whether re.IGNORECASE matches the word character `c` against exactly the characters whose lower()
    equals c.lower(), in a text without İ ı ſ K.

    sre compares simple lower cases, plus the extra pairs of re._casefix (i ı, s ſ, µ μ, β ϐ, ...), and takes an
    uncased character as it is: an ASCII letter is plain (its extra pairs are ı and ſ, kept out of the text); a
    cased letter whose lower case has no extra pair is plain; an uncased one only in the Devanagari block, which
    no other character lower-cases to (vak_pipeline_tests/pii/test_privacy_digit_view_fast.py checks these)."""
    if c.isascii():
        return c.isalpha()
    if not _sre.unicode_iscased(ord(c)):
        return "\u0900" <= c <= "\u097f"
    lo = _sre.unicode_tolower(ord(c))
    return c != "\u0130" and c.lower() == chr(lo) and lo not in re._casefix._EXTRA_CASES


def _lookup(words: dict[str, str]) -> _Lookup | None:
    """The _Lookup of a table, or None where dict lookups would not find what run_re and _convert_run find:
    a word that is not one run of word characters, holds a digit or a letter that is not _plain_letter, a word
    in two of the kinds (number, repeat, plus), or a number or repeat word that starts with a plus word
    (_convert_run takes any run that starts so for a plus)."""
    every = [*words, *_REPEAT, *_PLUS]
    if not all(_SCRIPT_RUN.fullmatch(w) and all(map(_plain_letter, w)) for w in every):
        return None
    if any(c.isdigit() for w in every for c in w):
        return None
    number: dict[str, tuple[str, int]] = {}
    for w, d in words.items():
        low = w.lower()
        if low not in number:
            d = words.get(low, d)  # _entry: the word of that lower case, else the first one of that case
            number[low] = (d, sum(map(str.isdigit, d)))
    repeat: dict[str, int] = {}
    for w, n in _REPEAT.items():
        repeat.setdefault(w.lower(), _REPEAT.get(w.lower(), n))
    codes = {**dict.fromkeys(number, "n"), **dict.fromkeys(repeat, "r"), **dict.fromkeys(_PLUS, "p")}
    if len(codes) != len(number) + len(repeat) + len(_PLUS):
        return None
    if any(w.startswith(p) for w in [*number, *repeat] for p in _PLUS):
        return None
    single = all(len(d) == 1 and n == 1 for d, n in number.values())
    codes |= {g: _gap_code(g) for g in ("", " ", ", ", ",", "-", " - ", ". ", "'", "? ", "! ", ": ", "\n")}
    return _Lookup(codes, number, repeat, {w: d for w, (d, _) in number.items()} if single else None)


@dataclass(frozen=True)
class _Table:
    """The compiled number words of one pack: the built-in table plus the pack file's `number_words`."""

    words: dict[str, str]
    run_re: re.Pattern[str]
    token_re: re.Pattern[str]
    prefilter: re.Pattern[str]
    ascii_words: frozenset[str]
    # for counting the prefilter's matches without it (see _count_words); None where that is not exact
    ascii_lower: frozenset[str] | None
    other_words: frozenset[str] | None
    lettered: bool  # every number and repeat word holds a letter: a run without one has no word
    # the characters a non-ASCII number word starts with, and the digit characters: a text without one has
    # no such word (None where the count is not exact, as for other_words)
    other_starts: frozenset[str] | None
    most: int  # the most digits one word run can give (longest word's digits, times the largest repeat)
    lookup: _Lookup | None = None  # for _view_by_lookup; None: only run_re reads this table exactly


@functools.lru_cache(maxsize=64)
def _table(extra: tuple[tuple[str, str], ...] = ()) -> _Table:
    words = {**_WORDS, **dict(extra)}
    alt = "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))
    # The prefilter's matches are the Chinese digit characters and the whole runs of word characters (\w and
    # Devanagari, its boundaries) that are number words: ASCII ones in any case, others as they are. That
    # count is exact when the ASCII words are made of letters, no word holds a letter re.IGNORECASE takes
    # for an ASCII one (İ ı ſ K) and the other words have no case and are such runs.
    odd = any(_ASCII_CASE_ODD.intersection(w) for w in words)
    plain = all(_LETTERS.fullmatch(w) for w in words if w.isascii())
    others = frozenset(w for w in words if not w.isascii())
    uncased = all(w == w.lower() == w.upper() and _SCRIPT_RUN.fullmatch(w) for w in others)
    token = rf"{_L}(?:(?:{_REP_ALT})\s+)?(?:{alt}|\d+){_R}"
    return _Table(
        words,
        re.compile(rf"(?:{_L}{_PLUS_ALT}\s+)?{token}(?:[\s,\-]+{token})*", re.IGNORECASE),
        re.compile(rf"(?:({_REP_ALT})\s+)?({alt}|\d+)", re.IGNORECASE),
        re.compile(rf"{_L}(?:{alt}){_R}|[{_ZH_CHARS}]", re.IGNORECASE),
        frozenset(w for w in words if w.isascii()),
        None if odd or not plain else frozenset(w.lower() for w in words if w.isascii()),
        None if odd or not plain or not uncased else others,
        all(any(c.isalpha() for c in w) for w in [*words, *_REPEAT]),
        None if odd or not plain or not uncased else frozenset(w[0] for w in others) | frozenset(_ZH),
        max(map(len, words.values()), default=1) * max(_REPEAT.values(), default=1),
        _lookup(words),
    )


def _count_words(text: str, table: _Table, ascii_text: bool) -> int:
    """len(table.prefilter.findall(text)), without the scan where a cheaper count is exact."""
    if ascii_text and table.ascii_lower is not None:
        return sum(map(table.ascii_lower.__contains__, _WORD_RUN.findall(text.lower())))
    if not ascii_text and table.other_words is not None and table.ascii_lower is not None and (
        _ASCII_CASE_ODD.isdisjoint(text)
    ):
        latin, other = table.ascii_lower, table.other_words
        n = sum(map(text.count, _ZH))
        return n + sum(1 for r in _SCRIPT_RUN.findall(text) if r in other or (r.isascii() and r.lower() in latin))
    return len(table.prefilter.findall(text))


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
    ascii_text = text.isascii()
    if ascii_text and table.ascii_words.isdisjoint(latin_words(text) if words is None else words):
        return None  # the common case, decided by a set lookup over the text's words
    if (
        not ascii_text
        and table.other_starts is not None
        and table.other_starts.isdisjoint(text)
        and _ASCII_CASE_ODD.isdisjoint(text)
        and table.ascii_lower.isdisjoint(latin_words(text) if words is None else words)  # type: ignore[union-attr]
    ):
        return None  # no number word in any script (what _count_words would count), by set lookups
    if table.lookup is not None and (ascii_text or not _CASE_ODD.search(text)):
        return _view_by_lookup(text, table.lookup, ascii_text, counted=True)
    n_words = _count_words(text, table, ascii_text)
    if not n_words:
        return None
    digits = sum(map(text.count, "0123456789")) if ascii_text else sum(map(str.isdigit, text))
    if n_words + digits < MIN_DIGITS:
        return None
    return _view_by_regex(text, table)


def _view_by_regex(text: str, table: _Table) -> DigitView | None:
    """The digit view by run_re and _convert_run: the reference that _view_by_lookup must equal."""
    runs: list[tuple[int, int, list[tuple[str, int, int]]]] = []
    for m in table.run_re.finditer(text):
        seg = m.group()
        if table.lettered and (
            not any(map(str.isalpha, seg))  # no number or repeat word in it
            # or too few digits, at most: each digit as often as a repeat word says, each word run its most
            or (sum(map(str.isdecimal, seg)) + len(_SCRIPT_RUN.findall(seg))) * table.most < MIN_DIGITS
        ):
            continue  # _convert_run would say None
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


def _view_by_lookup(text: str, lookup: _Lookup, ascii_text: bool, counted: bool = False) -> DigitView | None:
    """_view_by_regex by dict lookups over the text's runs of word characters (a few times faster), for a
    table with a _Lookup and a text without İ ı ſ K; `counted`: first the short cuts of digit_view's regex path
    (None for a text with no number word, or fewer number words and digits than MIN_DIGITS).

    Every word is then one run (of _SCRIPT_RUN) that matches it exactly when their lower cases are equal, so
    run_re, which takes the first way that matches from the left (plus before none, a repeat word before the
    run alone), is _CODE_RUN on the codes of the runs and gaps. lower() keeps a text's runs and gaps where it
    has no İ (vak_pipeline_tests/pii/test_privacy_digit_view_fast.py checks every character)."""
    parts = (_ASCII_RUN_SPLIT if ascii_text else _RUN_SPLIT).split(text.lower())  # run i is parts[2 * i + 1]
    runs = parts[1::2]
    table = lookup.codes
    code = "".join(map(table.get, parts, repeat("x")))
    if "x" in code[::2]:  # a gap not seen before
        gaps = parts[::2]
        for gap in gaps:
            if gap not in table and len(table) < _MAX_CODES:
                table[gap] = _gap_code(gap)
        codes = list(code)
        codes[::2] = [table.get(gap) or _gap_code(gap) for gap in gaps]
        code = "".join(codes)
    if counted and (n_words := code.count("n")) < MIN_DIGITS:  # _count_words: number words, Chinese digits
        if not ascii_text:
            n_words += sum(map(text.count, _ZH))
        if not n_words:
            return None
        if n_words + (sum(map(text.count, "0123456789")) if ascii_text else sum(map(str.isdigit, text))) < MIN_DIGITS:
            return None
    if not "".join(runs).isalpha() and any(map(str.isdecimal, runs)):  # a run of digits
        codes = list(code)
        for i in compress(range(1, len(parts), 2), map(str.isdecimal, runs)):
            codes[i] = "d"
        code = "".join(codes)
    found: list[tuple[int, int, str, list[int], list[int]]] = []
    bounds: list[int] = []  # bounds[2 * i]: where run i starts, bounds[2 * i + 1]: where it ends
    simple = "p" not in code and "r" not in code and "d" not in code
    for m in (_CODE_WORDS if simple else _CODE_RUN).finditer(code):
        seg = m.group()
        if "n" not in seg and "r" not in seg:
            continue  # no word: _convert_run says None
        first, last = m.start() // 2, (m.end() - 1) // 2
        if not bounds:
            bounds = list(accumulate(map(len, parts)))
        if lookup.digit is not None and (simple or seg.count("n") == last - first + 1):  # one digit a run
            if last - first + 1 >= MIN_DIGITS:
                digits = "".join(map(lookup.digit.__getitem__, runs[first : last + 1]))
                st, en = bounds[2 * first : 2 * last + 1 : 2], bounds[2 * first + 1 : 2 * last + 2 : 2]
                found.append((st[0], en[-1], digits, st, en))
            continue
        chars: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        n_digits = 0
        i = first
        if seg[0] == "p":
            chars.append("+")
            starts.append(bounds[2 * i])
            ends.append(bounds[2 * i + 2])
            i += 1
        while i <= last:
            times, a = 1, i
            if code[2 * i + 1] == "r":
                times = lookup.repeat[runs[i]]
                i += 1
            r = runs[i]
            if code[2 * i + 1] == "n":
                digits, count = lookup.number[r]
            else:
                digits = r if r.isascii() else "".join(str(int(c)) for c in r)
                count = len(digits)
            digits *= times
            n_digits += count * times
            chars.append(digits)
            starts += [bounds[2 * a]] * len(digits)
            ends += [bounds[2 * i + 1]] * len(digits)
            i += 1
        if n_digits >= MIN_DIGITS:
            found.append((bounds[2 * first], bounds[2 * last + 1], "".join(chars), starts, ends))
    if not ascii_text and _ZH_CHAR.search(text):
        for m in _ZH_RUN_RE.finditer(text):
            s, a, b = m.group(), m.start(), m.end()
            if any(c in _ZH for c in s) and not any(x < b and a < y for x, y, _, _, _ in found):
                found.append((a, b, "".join(_ZH.get(c, c) for c in s), list(range(a, b)), list(range(a + 1, b + 1))))
    if not found:
        return None
    n = len(text)
    if len(found) == 1:
        a, b, digits, st, en = found[0]
        return DigitView(
            text[:a] + digits + text[b:], (*range(a), *st, *range(b, n)), (*range(1, a + 1), *en, *range(b + 1, n + 1))
        )
    found.sort()
    out: list[str] = []
    starts = []
    ends = []
    pos = 0
    for a, b, digits, st, en in found:
        out += (text[pos:a], digits)
        starts += range(pos, a)
        starts += st
        ends += range(pos + 1, a + 1)
        ends += en
        pos = b
    out.append(text[pos:])
    starts += range(pos, n)
    ends += range(pos + 1, n + 1)
    return DigitView("".join(out), tuple(starts), tuple(ends))


def spoken_digit_words(extra_words: tuple[tuple[str, str], ...] = ()) -> tuple[dict[str, str], dict[str, int]]:
    """The number words (word -> digits) and repeat words (word -> times) of a pack, built-in table included."""
    return _table(extra_words).words, _REPEAT
