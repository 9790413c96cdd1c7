"""The recognizers as declared objects, and the one engine that evaluates them (Presidio's shape: patterns,
context words, a validator; nothing clever).

A `Recognizer` is one kind of PII: what finds it and its gates, declared as data (the digits its longest
digit run must hold, a substring one of which must be there, a capital). A `PatternRecognizer` is the
common finder: regex patterns with scores, a validator that gives the value's identity or refuses it,
context words (a cue before the value) that raise its score or that it requires, and the business test
(an order or ticket number is not a person's). `scan` runs a pack's recognizers over one text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...locales.packfile import PackFileError
from .base import Keywords, Match, business_context, has_cue
from .pack_rules import drop_business, find_pack_rules

if TYPE_CHECKING:  # the packs choose recognizers; only the type is needed here
    from ...locales.base import LocalePack

# A finder gets the text, the pack and the text's latin_words (computed once per text by find_pii).
Finder = Callable[[str, "LocalePack", frozenset[str]], Iterable[Match]]


@dataclass(frozen=True, slots=True)
class Pattern:
    """One regex of a PatternRecognizer and the score of its matches (`group`: the value's group)."""

    regex: re.Pattern[str]
    score: float
    group: int = 0


@dataclass(frozen=True, slots=True)
class PatternRecognizer:
    """Patterns + validator + context words + the business test, as one finder.

    `validate(value)` gives the norm (the value's identity) or None to refuse the match. `context`: cue
    words within 40 characters before the value; with `context_score` a cued match scores that; `needs`
    says when a cue is required: "context" always, "context_or_upper" unless the value is in capitals.
    `business`: the business test's window before the value (0: no test), skipped for a cued match;
    `business_after`: a business cue right after the value counts too."""

    type: str
    name: str
    patterns: tuple[Pattern, ...]
    validate: Callable[[str], str | None]
    context: re.Pattern[str] | None = None
    context_score: float | None = None
    needs: str = ""
    business: int = 0
    business_after: bool = False
    keywords: Keywords | None = None

    def __call__(self, text: str, pack: LocalePack | None = None,
                 words: frozenset[str] = frozenset()) -> Iterator[Match]:
        if self.keywords is not None and not self.keywords.open(text, words):
            return
        for p in self.patterns:
            for m in p.regex.finditer(text):
                s, e = m.span(p.group)
                norm = self.validate(m.group(p.group))
                if norm is None:
                    continue
                cued = self.context is not None and has_cue(text, s, self.context)
                if (self.needs == "context" and not cued) or (
                        self.needs == "context_or_upper" and not cued and not m.group(p.group).isupper()):
                    continue
                if self.business and not cued and business_context(
                        text, s, self.business, e if self.business_after else None):
                    continue
                score = self.context_score if cued and self.context_score is not None else p.score
                yield Match(self.type, s, e, score, self.name, norm)


def chain(*finders: Finder) -> Finder:
    """One finder of several (a type with two rules: formatted SSNs, and bare ones after a cue)."""
    return lambda text, pack, words: [m for f in finders for m in f(text, pack, words)]


@dataclass(frozen=True, slots=True)
class Recognizer:
    """One PII type: its finder and the gates that skip it on a text that cannot hold it.

    `min_run`: digits in the text's longest digit run (0: none needed); `needs_digit`: a digit anywhere;
    `any_of`: one of these substrings; `needs_capital`: a capital letter; `spelt`: a text without a digit
    is scanned only where this matches (三号楼); `digit_view`: also scanned on the digit view of spoken
    digits; `pack_business`: the pack file's business cues drop its matches; `placeholder`: the type its
    placeholders carry (`<CARD_1>`), declared here once for redaction, synth and the checks."""

    type: str
    find: Finder
    placeholder: str = ""
    min_run: int = 0
    needs_digit: bool = False
    any_of: tuple[str, ...] = ()
    needs_capital: bool = False
    spelt: re.Pattern[str] | None = None
    digit_view: bool = True
    pack_business: bool = False

    def may_hold(self, text: str, has_digit: bool, run: int) -> bool:
        if not has_digit and (self.needs_digit or self.min_run):
            return self.spelt is not None and not text.isascii() and self.spelt.search(text) is not None
        return (run >= self.min_run and (not self.any_of or any(map(text.__contains__, self.any_of)))
                and (not self.needs_capital or text != text.lower()))


# A run of digits as the number finders see one: digits with at most two of these characters between them.
_RUN = re.compile(r"\d(?:[\s().\-/]{0,2}\d)*")
_DIGIT = re.compile(r"\d")


def longest_run(text: str) -> int:
    """Digits in the longest digit run of `text` (0 without a digit)."""
    return max((sum(map(str.isdigit, r)) for r in _RUN.findall(text)), default=0)


def unknown_type(pack: LocalePack, pii_type: str, recognizers: dict[str, Recognizer]) -> PackFileError:
    """The error for a pack that enables a type no recognizer finds and its file does not declare."""
    rules = pack.rules
    known = rules is not None and rules.file
    where = f"{rules.file}:{dict(rules.type_lines).get(pii_type, 1)}" if known else pack.source
    k = pack.pii_types.index(pii_type) if pii_type in pack.pii_types else 0
    return PackFileError(
        f"{where}: pii_types[{k}]: {pii_type!r} has no recognizer; fix: use one of {', '.join(sorted(recognizers))} "
        "or declare it under national_ids or postcodes"
    )


def check_pack(pack: LocalePack, recognizers: dict[str, Recognizer]) -> None:
    """PackFileError when the pack enables a type that is neither a built-in recognizer nor declared in its file."""
    for t in pack.pii_types:
        if t not in recognizers and (pack.rules is None or t not in pack.rules.placeholders):
            raise unknown_type(pack, t, recognizers)


def scan(recognizers: dict[str, Recognizer], pack: LocalePack, text: str, words: frozenset[str],
         numbers_only: bool = False) -> list[Match]:
    """Every match of the pack's recognizers (in the order of its types: it breaks ties between equal
    overlapping matches) and of its pack file's rules. `numbers_only`: the digit view's pass."""
    has_digit = _DIGIT.search(text) is not None
    run = longest_run(text) if has_digit else 0
    business = pack.rules is not None and pack.rules.business_cues is not None
    out: list[Match] = []
    for t in pack.pii_types:
        r = recognizers.get(t)
        if r is None or (numbers_only and not r.digit_view) or not r.may_hold(text, has_digit, run):
            continue
        found = r.find(text, pack, words)
        out.extend(drop_business(found, text, pack.rules) if r.pack_business and business else found)  # type: ignore[arg-type]
    rules = pack.rules
    if rules is not None and (rules.ids or rules.postcodes or rules.addresses or rules.phone_cues is not None
                              or rules.name_cues is not None):
        out.extend(find_pack_rules(text, pack, has_digit, numbers_only))
    return out
