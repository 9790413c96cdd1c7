"""Person names known by their written shape rather than a list or an introduction: an initial before a
surname ("J. Smith", "R. K. Patel", "L. de Lange", ASR's "c smith") and a name spelled letter by letter
next to a spelling cue, as ASR writes it ("spelled s m i t h", "w a b l e for the surname")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...locales.base import LocalePack
from ...locales.packfile import cue_alternation
from .base import LATIN_LETTER, Match, context_words, has_cue, literal_alt
from .lexicon_names import NAMED_MAX_ZIPF, english_zipf, name_like, named, pack_names, rare_word, surnames

# The cue words are data: `name_context.<lang>.spelling` (en-US).
_SPELLING = re.compile(cue_alternation(context_words("spelling")), re.IGNORECASE)
# three or more single letters apart by a space, hyphen, dot or comma: "s m i t h", "K-O-W-A-L-S-K-I"
_LETTERS = re.compile(rf"(?<![\w'])[A-Za-z](?:(?:\s|\s?[-.,]\s?){LATIN_LETTER}(?![\w'])){{2,}}")
# Surname particles between an initial and a capitalised surname ("L. de Lange"): `name_context.en.particles`.
_PARTICLE = literal_alt(context_words("particles"))
# one or two capital initials with a dot, a space, then a capitalised word (the cases are checked below: an
# initial may carry a diacritic, "É. Payet")
_INITIAL = re.compile(
    rf"(?<![\w.'\-])(?:({LATIN_LETTER})\.\s?)?({LATIN_LETTER})\.\s((?:(?:{_PARTICLE})\s)?({LATIN_LETTER}+(?:[-']{LATIN_LETTER}+)?))"
    r"(?!\w|\.\w)")
# ASR writes an initial as a lone lower-case letter: "sent to c smith", "told by m van maaren" (not inside
# spelled letters: "s m i t h" holds no initial)
_ASR_INITIAL = re.compile(
    rf"(?<![\w'.\-])(?<!\b[A-Za-z]\s)([a-z])\s((?:(?:{_PARTICLE})\s)?({LATIN_LETTER}{{3,}}))(?![\w'])")
# "a" and "i" are words too: as initials only after a word that takes a person ("for a carroll", "by a khurana")
_WORD_INITIALS = frozenset("ai")
_TAKES_PERSON = frozenset(context_words("before") + context_words("not_before") + context_words("place_before")) - {
    "a", "an", "the", "my", "your", "our", "this", "that", "these", "those", "i", "im"}
_PREV_WORD = re.compile(r"([a-z']+)\s+$")
# ... and before a surname rare in English (NAMED_MAX_ZIPF): "by a khurana" (Zipf 2.1), not "for a heard" (5.3)
# or "to a tailor" (3.6), words the name lists hold too


def find_spelled_names(text: str, pack: LocalePack) -> Iterator[Match]:
    """Spelled letters after a spelling cue, or that spell a listed name or the word just before them
    ("smith s m i t h"); "a b c" alone is no name."""
    for m in _LETTERS.finditer(text):
        word = "".join(c for c in m.group().lower() if c.isalpha())
        said = _said_before(text, m.start(), word)
        between = text[said[1] : m.start()] if said is not None else ""
        if said is not None and not between.strip():  # said, then spelled at once: one mention ("miller m i l l e r")
            yield Match("person_name", said[0], m.end(), 0.8, "name_spelled", word)
            continue
        # said a few words earlier ("Pal, P-A-L", "Baker - that's B-A-K-E-R"): two mentions, the second needs a
        # spelling cue or a listed name unless only punctuation is between them
        if not ((said is not None and not between.strip(" \t,.-")) or has_cue(text, m.start(), _SPELLING, window=30)
                or word in pack_names(pack) or _SPELLING.search(text, m.end(), m.end() + 30)):  # "w a b l e for ..."
            continue
        if said is not None:
            yield Match("person_name", said[0], said[1], 0.8, "name_spelled", word)
        yield Match("person_name", m.start(), m.end(), 0.75, "name_spelled", word)


# how far before its spelling a name said apart from it ("Surname's Baker - that's B-A-K-E-R") may be
_SAID_WINDOW = 30


def _said_before(text: str, end: int, word: str) -> tuple[int, int] | None:
    """The span of the last whole-word `word` (any case) in the `_SAID_WINDOW` characters before `end`."""
    rx = re.compile(rf"(?<![\w']){re.escape(word)}(?![\w'])", re.IGNORECASE)
    spans = [m.span() for m in rx.finditer(text, max(0, end - _SAID_WINDOW), end)]
    return spans[-1] if spans else None


def find_initial_names(text: str, pack: LocalePack) -> Iterator[Match]:
    if "." in text:
        for m in _INITIAL.finditer(text):
            surname, low = m.group(4), m.group(4).lower()
            if (all(g is None or g.isupper() for g in m.group(1, 2)) and surname[0].isupper()
                    and not surname[1:].isupper() and (name_like(pack, low) or named(pack, low) or rare_word(low))):
                norm = " ".join(m.group().lower().split())
                yield Match("person_name", m.start(), m.end(), 0.75, "name_initial", norm)
    if text.islower():  # ASR: a lone letter before a listed surname that is no ordinary word
        for m in _ASR_INITIAL.finditer(text):
            surname = m.group(3)
            if m.group(1) in _WORD_INITIALS:
                prev = _PREV_WORD.search(text, 0, m.start())
                if (prev is None or prev.group(1) not in _TAKES_PERSON or not named(pack, surname)
                        or english_zipf(surname) >= NAMED_MAX_ZIPF):
                    continue
            elif not (surname in surnames(pack) or named(pack, surname)):  # (not "c you": a name somewhere)
                continue
            yield Match("person_name", m.start(), m.end(), 0.7, "name_initial", " ".join(m.group().split()))
