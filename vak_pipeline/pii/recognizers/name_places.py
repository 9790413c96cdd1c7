"""A name beside a street word names the street, not a person: "rue Victor Hugo", "calle Mayor", "Jefferson
Street", "Lajpat Nagar". The street words are the packs' own address data (`address.street_words`, and the
built-in packs' `address_words.street`), so a new language's streets need no code."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from ...locales.base import LocalePack
from .base import Match, shared
from .lexicon_names import english_zipf, pack_names

# the built-in packs' street words that are plain words ("road", "nagar"); "dr" is a title before a name
_SHARED = frozenset(w for w in shared("address_words", "street") if re.fullmatch(r"[a-z]+", w) and w != "dr")
_PREV = re.compile(r"([^\W\d_][\w.]*)[ \t]+$")
_NEXT = re.compile(r"[ \t]+([^\W\d_]+)")
LOWER_STREET_MAX_ZIPF = 4.0  # in lower-case text only a street word that is no frequent English word counts


@functools.lru_cache(maxsize=4096)
def _plain_street(word: str) -> bool:
    return english_zipf(word) < LOWER_STREET_MAX_ZIPF


def _street_after(text: str, end: int, words: frozenset[str], names: frozenset[str], lower: bool) -> bool:
    m = _NEXT.match(text, end)
    if m is None:
        return False
    w = m.group(1)
    key = w.lower()
    if key not in words or key in names:  # "Damon Hill": a listed name, not a street word here
        return False
    return w[0].isupper() if not lower else _plain_street(key)


def _street_last(text: str, m: Match, words: frozenset[str], lower: bool) -> bool:
    """The name's own last word is a street word: "Jefferson Street", "Gandhi Nagar"; not on a signature's line,
    which holds only the writer's name ("Best,\nAmy Hill")."""
    if m.recognizer == "name_signoff":
        return False
    head, _, last = text[m.start : m.end].rpartition(" ")
    key = last.lower()
    return bool(head) and key in words and (last[0].isupper() if not lower else _plain_street(key))


def _street_before(text: str, start: int, own: frozenset[str], particles: frozenset[str]) -> bool:
    """The pack's own street word opens the name, maybe through its particles: "rue Victor Hugo", "avenida de
    Blasco Ibáñez", "calle de la Reina"."""
    for _ in range(3):
        prev = _PREV.search(text, 0, start)
        if prev is None:
            return False
        word = prev.group(1).lower().rstrip(".")
        if word in own:
            return True
        if word not in particles:
            return False
        start = prev.start(1)
    return False


def drop_street_names(matches: Iterable[Match], text: str, pack: LocalePack) -> Iterator[Match]:
    """Person names that a street word follows ("Victoria Road"), or that the pack's own street word opens
    ("rue Victor Hugo", "calle Mayor"): the languages where the street word comes first."""
    own = pack.rules.street_words if pack.rules is not None else frozenset()
    words = _SHARED | own
    names = pack_names(pack)
    particles = pack.rules.name_particles if pack.rules is not None else frozenset()
    lower = text.islower()
    for m in matches:
        if m.type == "person_name":
            if _street_before(text, m.start, own, particles):
                continue
            if _street_after(text, m.end, words, names, lower) or _street_last(text, m, words, lower):
                continue
        yield m
