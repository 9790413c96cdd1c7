"""What every recognizer returns, and the small text helpers they share (compiled once, at import)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
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


# The built-in packs' files. Their `shared_*` lists (the cue, name, address, question and e-mail words of the
# original packs, whose files say `shared_cues: true`) apply in every pack, as when they were Python lists.
SHARED_RULES = tuple(p.rules for p in BUILTIN_PACKS.values() if p.rules is not None)
DEVA_CHAR = re.compile(r"[\u0900-\u097F]")
HAN_CHAR = re.compile(r"[\u4e00-\u9fff]")


def shared(table: str, key: str, script: str | None = None) -> tuple[str, ...]:
    """`<table>.<lang>.<key>` of the built-in packs in file order (`table`: "cue_words", "name_context",
    "address_words", "question_words", "email_words"); with `script` only its words: "deva" (Devanagari),
    "han" or "latin" (neither)."""
    words = tuple(w for r in SHARED_RULES for w in getattr(r, f"shared_{table}").get(key, ()))
    if script is None:
        return words
    if script == "latin":
        return tuple(w for w in words if not DEVA_CHAR.search(w) and not HAN_CHAR.search(w))
    rx = DEVA_CHAR if script == "deva" else HAN_CHAR
    return tuple(w for w in words if rx.search(w))


def shared_cues(kind: str) -> tuple[str, ...]:
    """`cues.<lang>.<kind>` of the built-in packs with `shared_cues: true`, in file order."""
    return shared("cue_words", kind)


def context_words(role: str, script: str = "latin") -> tuple[str, ...]:
    """`name_context.<lang>.<role>` words of the built-in packs with `shared_cues: true`, in one script."""
    return shared("name_context", role, script)


# Letters and words of the scripts the name rules read, and the words never in a name in Devanagari text
LATIN_LETTER = r"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]"  # with diacritics: "Niccolò", "Áurea", "Świstek"
DEVA_TOKEN = r"[\u0900-\u097F]+(?:['\u2019][\u0900-\u097F]+)*"  # "डी’कोस्टा" is one word
DEVA_STOP = frozenset(context_words("stop", "deva") + context_words("common_words", "deva"))  # "मैं भी, ..."
ZH_SURNAMES = frozenset(context_words("surnames", "han"))  # the common single-character surnames (a fact list)
# "45,000" (or "3,72,220") is an amount written with thousands separators, not digits said one by one
THOUSANDS = re.compile(r"\d,\d{3}(?!\d)")


def literal_alt(words: Iterable[str]) -> str:
    """Words as regex alternatives in their order, each matched as written; one that never matches if none."""
    return "|".join(map(re.escape, words)) or "(?!)"


def one_of(regexes: Sequence[str]) -> str:
    """Regexes as one regex item, tried in order (a single one stays as it is); one that never matches if none."""
    return regexes[0] if len(regexes) == 1 else "(?:" + ("|".join(regexes) or "(?!)") + ")"


def phrase_alt(phrases: Iterable[str]) -> str:
    """Words or phrases as one regex item in their order, a space matching any whitespace."""
    return one_of([r"\s+".join(re.escape(part) for part in w.split()) for w in phrases])


# Words that, just before a number, mark it as a business identifier rather than a person's (PNR, UTR,
# order/ticket/booking/reference numbers, versions and model numbers), in each language of the original
# packs. The words live in their pack files (`cues.<lang>.business` with `shared_business_cues: true`:
# en-US, hi-Latn-IN, hi-IN, zh-CN) and, as before, apply in every pack.
_BUSINESS_CUES = re.compile(cue_alternation([w for r in SHARED_RULES for w in r.shared_business]), re.IGNORECASE)


# Words that mark a number as a person's for several types at once (phone, card, aadhaar, nhs, 身份证 ...):
# closer to the number than a business cue, they outweigh it. Data: `cues.<lang>.personal` (en-US, en-GB,
# en-IN, hi-IN, zh-CN).
_PERSONAL_CUES = re.compile(cue_alternation(shared_cues("personal")), re.IGNORECASE)
# After a number, a business cue names it only when it follows at once, in the same clause ("4155550132
# is my order number", "8123456789 wala booking", "是订单号"): after a comma it is about something else.
# The words allowed between are data: `cues.<lang>.business_links` ("is", "wala", "是") and
# `business_determiners` ("my", "mera").
_BUSINESS_AFTER = re.compile(
    rf"^\s?(?:(?:{literal_alt(shared_cues('business_links'))})\s*)?"
    rf"(?:(?:{literal_alt(shared_cues('business_determiners'))})\s+)?"
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
        return _BUSINESS_AFTER.match(text[end:end + 40]) is not None  # (^: the slice's start)
    return False


_LATIN_WORD = re.compile(r"[a-z]+")


def latin_words(text: str) -> frozenset[str]:
    """The lower-case Latin words of `text`, for the recognizers' keyword gates: find_pii computes them once
    per text and passes them on (no cache keyed by text: a second scan of one text is rare)."""
    return frozenset(_LATIN_WORD.findall(text.lower()))


# Letters re.IGNORECASE takes for ASCII ones while lower() does not give them (İ ı ſ K): a word-set gate over
# latin_words is exact only in a text without one.
ODD_CASE_RE = re.compile("[\u0130\u0131\u017f\u212a]")


@dataclass(frozen=True, slots=True)
class Keywords:
    """A keyword gate, declared as data and checked once per text: the text holds one of the words `one`,
    every word of one of the sets `all_of` (both against its latin_words: a set lookup, not a regex scan),
    or one of the substrings `any_of` (non-Latin cues: 住在, पता). Exact for the case-blind patterns it
    guards except in a text with İ ı ſ K (lower() does not give their ASCII twins), where it stays open."""

    one: frozenset[str] = frozenset()
    all_of: tuple[frozenset[str], ...] = ()
    any_of: tuple[str, ...] = ()

    @classmethod
    def of(cls, word_sets: Iterable[frozenset[str]] = (), any_of: Iterable[str] = ()) -> Keywords:
        sets = tuple(dict.fromkeys(word_sets))
        return cls(frozenset(w for s in sets if len(s) == 1 for w in s),
                   tuple(s for s in sets if len(s) > 1), tuple(dict.fromkeys(any_of)))

    def open(self, text: str, words: frozenset[str]) -> bool:
        if not self.one.isdisjoint(words) or any(s <= words for s in self.all_of) or any(
                map(text.__contains__, self.any_of)):
            return True
        return bool(self.one or self.all_of) and not text.isascii() and ODD_CASE_RE.search(text) is not None


def phrase_words(phrases: Iterable[str], drop_last: bool = False) -> list[frozenset[str]]:
    """Each phrase's words, for `Keywords.all_of`; `drop_last`: without a last word that the value may run
    on from ("live at" + "at1 Elm Street" needs only "live"). A one-word phrase keeps its word."""
    out = []
    for p in phrases:
        ws = _LATIN_WORD.findall(p.lower())
        out.append(frozenset(ws[:-1] if drop_last and len(ws) > 1 else ws))
    return out


def lead_words(items: Iterable[str]) -> list[frozenset[str]]:
    """The word a text holds where one of these regex items begins a match: the item's first word as each
    spelling of its optional dots and spaces writes it ("h\\.?\\s?no" -> "h", "hno"), for `Keywords.one`."""
    out = []
    for item in items:
        spellings = [""]
        for tok in re.findall(r"\\[.s][?+*]?|.", item):
            alts = {"\\.?": [".", ""], "\\s?": [" ", ""], "\\s*": [" ", ""], "\\s+": [" "], "\\.": ["."]}
            spellings = [sp + a for sp in spellings for a in alts.get(tok, [tok])]
        out.extend(frozenset(_LATIN_WORD.findall(sp.lower())[:1]) for sp in spellings)
    return out


def has_cue(text: str, start: int, cue: re.Pattern[str], window: int = 40) -> bool:
    """Does `cue` occur in the `window` characters before `start`?"""
    return cue.search(text, max(0, start - window), start) is not None


def digits_of(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit() and ch.isascii())


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
            if nxt and nxt.group(1).lower() in particles and nxt.group(1)[0].isupper():  # "Robert de La Fontaine"
                nxt = token_re.match(text, nxt.end())
                if nxt and nxt.group(1)[0].isupper() and nxt.group(1).lower() not in stop:
                    end, pos, n = nxt.end(1), nxt.end(), n + 1  # (the capitalised particle is the surname's)
                    continue
                break
            if nxt and nxt.group(1)[0].isupper() and nxt.group(1).lower() not in stop:
                pos = m.end()
                continue
            break
        if (capitalised and not tok[0].isupper()) or tok.lower() in stop or len(tok) < 2:
            break
        start = m.start(1) if start is None else start
        end, pos, n = m.end(1), m.end(), n + 1
    return (start, end) if start is not None and end is not None else None
