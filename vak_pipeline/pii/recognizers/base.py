"""What every recognizer returns, and the small text helpers they share (compiled once, at import)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from re import _constants as _sre
from re._parser import parse as _sre_parse

from ...locales.packfile import LATIN_TWINS, cue_alternation, trie_of
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


def shared_cues(kind: str) -> list[str]:
    """`cues.<lang>.<kind>` of the built-in packs with `shared_cues: true`, in file order."""
    return [w for p in BUILTIN_PACKS.values() if p.rules is not None for w in p.rules.shared_cue_words.get(kind, ())]


# Words that mark a number as a person's for several types at once (phone, card, aadhaar, nhs, 身份证 ...):
# closer to the number than a business cue, they outweigh it. Data: `cues.<lang>.personal` (en-US, en-GB,
# en-IN, hi-IN, zh-CN).
_PERSONAL_CUES = re.compile(cue_alternation(shared_cues("personal")), re.IGNORECASE)
# After a number, a business cue names it only when it follows at once, in the same clause ("4155550132
# is my order number", "8123456789 wala booking", "是订单号"): after a comma it is about something else.
# The words allowed between are data: `cues.<lang>.business_links` ("is", "wala", "是") and
# `business_determiners` ("my", "mera").
_BUSINESS_AFTER = re.compile(
    r"^\s?(?:(?:" + "|".join(map(re.escape, shared_cues("business_links"))) + r")\s*)?"
    r"(?:(?:" + "|".join(map(re.escape, shared_cues("business_determiners"))) + r")\s+)?"
    + _BUSINESS_CUES.pattern,
    re.IGNORECASE,
)


def business_context(text: str, start: int, window: int = 32, end: int | None = None) -> bool:
    """True when the closest cue before `start` names a business id (order, ticket, PNR, 订单 ...), not a
    person's number; with `end`, also when such a cue follows the number at once."""
    left = text[max(0, start - window):start]
    if left.isascii():  # the Latin cues alone, on the lower case (see ascii_twin)
        low = left.lower()
        p = _BUSINESS_GATE.start_pos(left)
        biz = [m.end() for m in _BUSINESS_LOW.finditer(low, p)] if p >= 0 else []
        q = _PERSONAL_GATE.start_pos(left)
        pers = [m.end() for m in _PERSONAL_LOW.finditer(low, q)] if q >= 0 else []
    else:
        p = _BUSINESS_GATE.start_pos(left)  # the cue scans are slow (many words, any case): a gate first
        biz = [m.end() for m in _BUSINESS_CUES.finditer(left, p)] if p >= 0 else []
        q = _PERSONAL_GATE.start_pos(left)
        pers = [m.end() for m in _PERSONAL_CUES.finditer(left, q)] if q >= 0 else []
    if biz:
        return not pers or biz[-1] > pers[-1]
    if end is not None and not pers:
        after = text[end:end + 40]  # a match holds a business cue
        return _BUSINESS_GATE.start_pos(after) >= 0 and _BUSINESS_AFTER.match(after) is not None
    return False


_LATIN_WORD = re.compile(r"[a-z]+")


def latin_words(text: str) -> frozenset[str]:
    """The lower-case Latin words of `text`, for the recognizers' keyword gates: find_pii computes them once
    per text and passes them on (no cache keyed by text: a second scan of one text is rare)."""
    return frozenset(_LATIN_WORD.findall(text.lower()))


# Non-ASCII letters that re.IGNORECASE takes for ASCII ones (İ ı as i, ſ as s, K as k): no other character
# can match an ASCII one.
_ASCII_CASE_ODD = frozenset("\u0130\u0131\u017f\u212a")
_LATIN_OR_ODD = re.compile("[A-Za-z\u0130\u0131\u017f\u212a]")
# Those letters (lower() keeps ı and ſ, makes İ two characters): in a text without one, what a
# case-insensitive Latin pattern matches is in the lower case, at a word of latin_words where it is a word.
ODD_CASE_RE = re.compile("[\u0130\u0131\u017f\u212a]")


def _literal_prefixes(items: list) -> tuple[set[str], bool]:
    """(strings one of which every match of this parsed regex sequence starts with, whether every match is
    exactly one of them)."""
    out = {""}
    for op, av in items:
        if op is _sre.AT:  # ^, $, word boundaries: zero width
            continue
        if op is _sre.LITERAL:
            out = {p + chr(av) for p in out}
            continue
        if op is _sre.SUBPATTERN and not av[1] and not av[2]:  # a group without inline flags
            alts, whole = _literal_prefixes(av[3])
        elif op is _sre.BRANCH:
            parts = [_literal_prefixes(a) for a in av[1]]
            alts, whole = set().union(*(x for x, _ in parts)), all(w for _, w in parts)
        elif op is _sre.IN and av and all(o is _sre.LITERAL for o, _ in av):  # [abc]: one of these characters
            alts, whole = {chr(c) for _, c in av}, True
        else:
            return out, False
        out = {p + a for p in out for a in alts}
        if not whole:
            return out, False
    return out, True


# Up to this many prefixes a substring test per prefix is cheaper than one regex search.
_FEW_PREFIXES = 8


def trie_pattern(words: tuple[str, ...]) -> str:
    """A regex matching exactly the given strings, with common prefixes factored out ("c(?:ase|laim|ust)").

    sre tries the alternatives of a group one by one at each position; nested by first character it tries
    one branch per character instead of one per word: 2-3x faster on the 56 business-cue prefixes. Which
    string matches at a position may differ from a flat alternation, but not whether one does, nor the
    leftmost position where one does (all a gate asks)."""
    if not words:
        return "(?!)"
    return trie_of(sorted({tuple(map(re.escape, w)) for w in words}))


class RegexGate:
    """A cheap necessary test for a regex scan: every match starts with one of the pattern's literal
    prefixes (read from the parsed pattern: "my" for the cue "my name is", each word of a cue alternation).

    ASCII text: one of the ASCII prefixes must be a substring of text.lower() (re.IGNORECASE or not; a
    prefix in another script cannot match ASCII text). Other text: one of the other-script prefixes must
    occur as it is, when those have no case, and a Latin letter must be there for a Latin prefix. The test
    holds for any slice of the text too, so it also guards searches in a window (has_cue). Where the pattern
    gives no such prefixes (a match may start with a digit class or a look-behind), `might_match` is always
    true.
    """

    __slots__ = ("ascii", "other", "other_ok", "_lits", "_letter_first", "_many")

    def __init__(self, rx: re.Pattern[str]) -> None:
        prefixes, _ = _literal_prefixes(list(_sre_parse(rx.pattern, rx.flags)))
        self.ascii: tuple[str, ...] | None = None
        self.other: tuple[str, ...] = ()
        self.other_ok = False
        self._lits: re.Pattern[str] | None = None
        self._letter_first = False
        self._many = False
        if "" in prefixes or any(_ASCII_CASE_ODD.intersection(p) for p in prefixes):
            return
        self.ascii = tuple(sorted({p.lower() for p in prefixes if p.isascii()}, key=len))
        self.other = tuple(sorted(p for p in prefixes if not p.isascii()))
        # other text: ASCII prefixes are ruled out by the absence of Latin letters only if each has one
        self.other_ok = all(p == p.lower() == p.upper() for p in self.other) and all(
            _LATIN_OR_ODD.search(p) for p in self.ascii)
        self._letter_first = self.other_ok and all(_LATIN_OR_ODD.match(p) for p in self.ascii)
        # many prefixes: one alternation over the lower case, shaped as a trie (see trie_pattern)
        self._lits = re.compile(trie_pattern(self.ascii))
        self._many = len(self.ascii) > _FEW_PREFIXES

    def in_lower(self, low: str) -> bool:
        """might_match for an ASCII text, given its lower case."""
        if self.ascii is None:
            return True
        if self._many:
            return self._lits.search(low) is not None  # type: ignore[union-attr]
        return any(map(low.__contains__, self.ascii))

    def might_match(self, text: str) -> bool:
        if self.ascii is None:
            return True
        if text.isascii():
            return self.in_lower(text.lower())
        if not self.other_ok:
            return True
        if any(map(text.__contains__, self.other)):
            return True
        if not self.ascii:
            return False
        if ODD_CASE_RE.search(text) is not None:  # İ ı ſ K match ASCII letters but lower() does not give them
            return True
        # without those, a case-insensitive match of an ASCII prefix is that prefix in the lower case
        return self.in_lower(text.lower())

    def start_pos(self, text: str) -> int:
        """-1 when the pattern cannot match `text`, else a position no match starts before (on ASCII text
        the first occurrence of a prefix; elsewhere 0): a search may begin there (look-behinds and word
        boundaries still see the characters before it)."""
        if self._lits is None:
            return 0
        if text.isascii():
            m = self._lits.search(text.lower())
            return -1 if m is None else m.start()
        if not self._letter_first:  # (a Latin prefix may start before a letter)
            return 0 if self.might_match(text) else -1
        found = [i for i in map(text.find, self.other) if i >= 0]
        if self.ascii:
            letter = _LATIN_OR_ODD.search(text)
            if letter is not None:
                found.append(letter.start())
        return min(found, default=-1)


_GATES: dict[int, tuple[re.Pattern[str], RegexGate]] = {}


def gate_of(rx: re.Pattern[str]) -> RegexGate:
    """The RegexGate of a compiled pattern, built once per pattern."""
    got = _GATES.get(id(rx))
    if got is None or got[0] is not rx:
        if len(_GATES) > 1024:  # patterns of packs made on the fly: keep the table small
            _GATES.clear()
        got = _GATES[id(rx)] = (rx, RegexGate(rx))  # the pattern is kept, so its id is not reused
    return got[1]


_TWINS: dict[int, tuple[re.Pattern[str], re.Pattern[str] | None]] = {}


def ascii_twin(rx: re.Pattern[str]) -> re.Pattern[str] | None:
    """For a case-insensitive pattern made by cue_alternation: its Latin cues alone, in lower case, compiled
    without flags. On ASCII text, `twin.search(text.lower(), pos, endpos)` finds what
    `rx.search(text, pos, endpos)` finds, at the same positions (lower() keeps an ASCII text's length and its
    word boundaries; no other-script cue can match it; no ASCII character folds to another only under
    re.IGNORECASE). None for any other pattern."""
    got = _TWINS.get(id(rx))
    if got is None or got[0] is not rx:
        twin = LATIN_TWINS.get(rx.pattern)
        ok = twin is not None and rx.flags & re.IGNORECASE and not rx.flags & (re.ASCII | re.VERBOSE)
        if len(_TWINS) > 1024:  # patterns of packs made on the fly: keep the table small
            _TWINS.clear()
        got = _TWINS[id(rx)] = (rx, re.compile(twin) if ok else None)  # type: ignore[arg-type]
    return got[1]


_BUSINESS_GATE = RegexGate(_BUSINESS_CUES)
_PERSONAL_GATE = RegexGate(_PERSONAL_CUES)
_BUSINESS_LOW, _PERSONAL_LOW = ascii_twin(_BUSINESS_CUES), ascii_twin(_PERSONAL_CUES)
assert _BUSINESS_LOW is not None and _PERSONAL_LOW is not None


def has_cue(text: str, start: int, cue: re.Pattern[str], window: int = 40) -> bool:
    lo = max(0, start - window)
    pos = gate_of(cue).start_pos(text[lo:start])
    if pos < 0:
        return False
    if text.isascii():  # (the whole text: a word boundary at the window's start looks before it)
        twin = ascii_twin(cue)
        if twin is not None:
            return twin.search(text.lower(), lo + pos, start) is not None
    return cue.search(text, lo + pos, start) is not None


def digits_of(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit() and ch.isascii())


def word_bounded(text: str, start: int, end: int) -> bool:
    """The span is not glued to letters/digits on either side (so 'A12345' inside 'XA12345Y' is not taken)."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or after.isalnum())


def take_name(text: str, pos: int, token_re: re.Pattern[str], stop: frozenset[str],
              particles: frozenset[str] = frozenset(), capitalised: bool = True,
              max_words: int = 4) -> tuple[int, int] | None:
    """The span of the name that starts at `pos` (after a cue): up to `max_words` words of `token_re`
    (its group 1), ended by a stop word, a word of one letter or, with `capitalised`, a lower-case word;
    a particle ("van", "de") counts only between a word and a capitalised one. None if no word is taken."""
    start = end = None
    n = 0
    while n < max_words:
        m = token_re.match(text, pos)
        if not m:
            break
        tok = m.group(1)
        if start is not None and tok in particles:  # "Sanne de Vries", "Ludwig van Beethoven"
            nxt = token_re.match(text, m.end())
            if nxt and nxt.group(1)[0].isupper() and nxt.group(1).lower() not in stop:
                pos = m.end()
                continue
            break
        if (capitalised and not tok[0].isupper()) or tok.lower() in stop or len(tok) < 2:
            break
        start = m.start(1) if start is None else start
        end, pos, n = m.end(1), m.end(), n + 1
    return (start, end) if start is not None and end is not None else None
