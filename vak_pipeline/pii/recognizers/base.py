"""What every recognizer returns, and the small text helpers they share (compiled once, at import)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ...locales.packfile import cue_alternation
from ...locales.registry import BUILTIN_PACKS
from ..placeholders import PLACEHOLDER_RE  # noqa: F401  (placeholders are never PII themselves, never re-detected)


@dataclass(frozen=True, slots=True)
class Match:
    """One PII candidate in a text. `norm` is the value's identity (E.164, digits, lowercase); never logged."""

    type: str
    start: int
    end: int
    score: float
    recognizer: str
    norm: str


# Words that, just before a number, mark it as a business identifier rather than a person's (PNR, UTR,
# order/ticket/booking/reference numbers, versions and model numbers), in each language of the original
# packs. The words live in their pack files (`cues.<lang>.business` with `shared_business_cues: true`:
# en-US, hi-Latn-IN, hi-IN, zh-CN) and, as before, apply in every pack.
_BUSINESS_CUES = re.compile(
    cue_alternation([w for p in BUILTIN_PACKS.values() if p.rules is not None
                     for w in p.rules.shared_business]),
    re.IGNORECASE,
)
_PERSONAL_CUES = re.compile(
    r"(?:\b(?:phone|mobile|cell|contact|call|calling|whatsapp|reach|dial|landline|aadhaar|aadhar|aadhar|card|nhs|"
    r"ssn|social\s+security|insurance|pan|id\s+card|identity|resident)\b|手机|电话|身份证|联系|आधार|फ़ोन|फोन|मोबाइल)",
    re.IGNORECASE,
)
# After a number, a business cue names it only when it follows at once, in the same clause ("4155550132
# is my order number", "8123456789 wala booking", "是订单号"): after a comma it is about something else.
_BUSINESS_AFTER = re.compile(
    r"^\s?(?:(?:is|was|for|hai|वाला|वाली|wala|wali|是|的)\s*)?(?:(?:my|mera|meri|the|that|this|मेरा)\s+)?"
    + _BUSINESS_CUES.pattern,
    re.IGNORECASE,
)


def business_context(text: str, start: int, window: int = 32, end: int | None = None) -> bool:
    """True when the closest cue before `start` names a business id (order, ticket, PNR, 订单 ...), not a
    person's number; with `end`, also when such a cue follows the number at once."""
    left = text[max(0, start - window):start]
    biz = [m.end() for m in _BUSINESS_CUES.finditer(left)]
    pers = [m.end() for m in _PERSONAL_CUES.finditer(left)]
    if biz:
        return not pers or biz[-1] > pers[-1]
    if end is not None and not pers:
        return _BUSINESS_AFTER.match(text[end:end + 40]) is not None
    return False


_LATIN_WORD = re.compile(r"[a-z]+")


def latin_words(text: str) -> frozenset[str]:
    """The lower-case Latin words of `text`, for the recognizers' keyword gates: find_pii computes them once
    per text and passes them on (no cache keyed by text: a second scan of one text is rare)."""
    return frozenset(_LATIN_WORD.findall(text.lower()))


# Non-ASCII letters that re.IGNORECASE takes for ASCII ones (İ ı as i, ſ as s, K as k): no others can match
# an ASCII character.
_ASCII_CASE_ODD = frozenset("\u0130\u0131\u017f\u212a")


class CueGate:
    """A cheap necessary test for a cue alternation (`cue_alternation(words)`, compiled with re.IGNORECASE).

    In an ASCII text the alternation can match only where the lower-case first part of one of its ASCII words
    is a substring of text.lower() (words in other scripts cannot match ASCII text), so a few substring tests
    decide most turns without a regex scan. That holds for any slice of the text too, so the test also
    guards searches in a window (has_cue). Not for other texts: `might_match` is then always true."""

    __slots__ = ("literals",)

    def __init__(self, words: Iterable[str]) -> None:
        lits: set[str] | None = set()
        for w in words:
            if not w.isascii():
                if _ASCII_CASE_ODD.intersection(w):
                    lits = None  # such a word can match ASCII text: no shortcut
                    break
                continue
            parts = w.split()
            if parts:
                lits.add(parts[0].lower())
        self.literals: tuple[str, ...] | None = None if lits is None else tuple(sorted(lits, key=len))

    def might_match(self, text: str) -> bool:
        if self.literals is None or not text.isascii():
            return True
        low = text.lower()
        return any(lit in low for lit in self.literals)


def has_cue(text: str, start: int, cue: re.Pattern[str], window: int = 40) -> bool:
    return cue.search(text, max(0, start - window), start) is not None


def digits_of(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit() and ch.isascii())


def word_bounded(text: str, start: int, end: int) -> bool:
    """The span is not glued to letters/digits on either side (so 'A12345' inside 'XA12345Y' is not taken)."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or after.isalnum())
