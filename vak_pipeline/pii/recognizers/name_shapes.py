"""Person names known by their written shape rather than a list or an introduction: an initial before a
surname ("J. Smith", "R. K. Patel") and a name spelled letter by letter after a spelling cue, as ASR writes
it ("spelled s m i t h")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...locales.base import LocalePack
from ...locales.packfile import cue_alternation
from .base import Match, has_cue
from .lexicon_names import name_like, pack_names
from .names import context_words

# The cue words are data: `name_context.<lang>.spelling` (en-US).
_SPELLING = re.compile(cue_alternation(context_words("spelling")), re.IGNORECASE)
# three or more single letters apart by a space, hyphen, dot or comma: "s m i t h", "K-O-W-A-L-S-K-I"
_LETTERS = re.compile(r"(?<![\w'])[A-Za-z](?:(?:\s|\s?[-.,]\s?)[A-Za-z](?![\w'])){2,}")
# one or two capital initials with a dot, a space, then a capitalised word
_INITIAL = re.compile(r"(?<![\w.'\-])(?:[A-Z]\.\s?)?[A-Z]\.\s([A-Z][a-z]+(?:[-'][A-Z][a-z]+)?)(?!\w|\.\w)")


def find_spelled_names(text: str, pack: LocalePack) -> Iterator[Match]:
    """Spelled letters after a spelling cue, or that spell a listed name or the word just before them
    ("smith s m i t h"); "a b c" alone is no name."""
    for m in _LETTERS.finditer(text):
        word = "".join(c for c in m.group().lower() if c.isalpha())
        said = re.search(rf"(?<![\w'])({re.escape(word)})[\s,.\-]*$", text[:m.start()], re.IGNORECASE)
        if said is not None:  # the name said, then spelled: both are the name
            yield Match("person_name", said.start(1), m.end(), 0.8, "name_spelled", word)
        elif has_cue(text, m.start(), _SPELLING, window=30) or word in pack_names(pack):
            yield Match("person_name", m.start(), m.end(), 0.75, "name_spelled", word)


def find_initial_names(text: str, pack: LocalePack) -> Iterator[Match]:
    if "." not in text:
        return
    for m in _INITIAL.finditer(text):
        if name_like(pack, m.group(1).lower()):
            yield Match("person_name", m.start(), m.end(), 0.75, "name_initial", " ".join(m.group().lower().split()))
