"""PII in identifiers: file names, folder names, speaker ids, record ids (short, lower-case, no sentences).

The text recognizers (`scan_pii`) find numbers and e-mail addresses in a file name as anywhere, but their
person-name rules need capitals or a cue ("my name is"), which `devika-raghunathan` or `cust-rahul` never
have. So identifiers get a second, token-level check: a letter token of 3+ characters is a person's name
when the name lexicon (names-dataset, `name_table`) lists it as a first or last name and no word list
calls it an ordinary word; a token no word list knows (`raghunathan`, `quarrington`) that sits next to a
name or another PII hit is taken as the rest of that name (call recorders write "<number>_<first>-<last>").
A run of 9 or more digits is a number of no known type (`Lori_7400123456`: a national number without its
trunk prefix) and is replaced like one. A lone unknown token is a name only when the lexicon's rare-name table
lists it (`raghunathan.wav`: a name of many countries that no word list knows, `name_table._rare_names`);
any other (`hinglish`, `aidb`) stays, and so do words (`order.wav`, `support.wav`, `billing-march.wav`).
Letters are read through their accents (`César`, `Wójcik`), one character for one, so ranges still hold.

`strict=True` is the policy for names the pipeline makes or passes on as identifiers (file and folder names,
conversation and record ids, speaker ids), not for free text: much higher recall, because an identifier has no
context and an over-cleaned token only costs readability. A token that any names-dataset country ranks in its
top 10,000 is a name unless it is ordinary identifier vocabulary derived from wordfreq
(`name_table._identifier_names`: `kurz`, `klein`, `long`, `fox`, `venkataraman` are names; `order`, `billing`,
`march`, `support`, `call` are not); such a vocabulary word that is a name somewhere, or a two-letter name (`li`,
`ng`), is a name when it sits beside one (`joao-sales`, `wei-li`). A token of 4+ letters with no vowel is never a
name: it is the pipeline's own tag (`kdwqbnzt`, `spk-<10 consonants>`).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from ..locales.base import LocalePack
from .scan import PiiFinding, scan_pii

_TOKEN = re.compile(r"[A-Za-z]+")
_GLUE = re.compile(r"^[\s._+\-]*$")  # what may separate two tokens of one name in an identifier
NAME_TYPE = "person_name"
TOP_RANK, FIRST_ZIPF, LAST_ZIPF = 500, 4.0, 3.0
ENGLISH_NAME_ZIPF = 3.5  # a top name in the English word list below this is a name in an identifier
_DIGITS = re.compile(r"(?<!\d)\d{9,}(?!\d)")  # 9+ digits in a row: a phone or account number, whatever type
DIGITS_TYPE = "unsure_number"
LATIN_COUNTRIES = frozenset({"US", "GB", "IN"})
# the lexicon countries whose lists an identifier's name words come from (the lexicon also holds the European
# packs' countries, for their prose: there "kurz", "klein" are names; in an identifier they are words)
IDENTIFIER_COUNTRIES = frozenset({"US", "GB", "IN", "CN", "TW", "HK"})


class _Vocabulary:
    """Name words and ordinary words. A name word is a US/GB/IN top-500 name, a US/GB/IN first name rarer
    than Zipf 4 in English, or another lexicon name rarer than Zipf 3 (the surname and romanised Chinese
    tables are noisy: "billing", "english", "tools"); never a word the word lists call ordinary. Decided per
    word when first asked (and remembered): deciding all 47,000 lexicon words up front cost every process
    that redacts about two seconds."""

    def __init__(self) -> None:
        from .name_table import lexicon
        from .recognizers.lexicon_names import NON_NAME

        self.lex = lexicon()
        self.non_name = NON_NAME
        self.ordinary = frozenset(self.lex.common | self.lex.english | NON_NAME)

    @functools.cache  # noqa: B019 - one instance per process (_vocabulary), never freed anyway
    def _listed_name(self, t: str) -> bool:
        """A first or last name of the lexicon that counts as a name in an identifier."""
        import wordfreq

        lex = self.lex
        if t not in lex.first and t not in lex.last:
            return False
        first = {c: r for c, r in (lex.first.get(t) or {}).items() if c in IDENTIFIER_COUNTRIES}
        last = {c: r for c, r in (lex.last.get(t) or {}).items() if c in IDENTIFIER_COUNTRIES}
        latin = [r for c, r in (*first.items(), *last.items()) if c in LATIN_COUNTRIES]
        if len(t) >= 3 and t in lex.english and t not in lex.common and t not in self.non_name and latin \
                and min(latin) <= TOP_RANK and wordfreq.zipf_frequency(t, "en") < ENGLISH_NAME_ZIPF:
            return True  # "lori", "kirsten": in the 40k-word list, but a top name rarer than a common word
        if len(t) < 3 or t in self.ordinary:
            return False
        if latin and min(latin) <= TOP_RANK:
            return True
        # the romanised Chinese lists are noisy ("tools", "parts"): only rare words count from them
        is_first = any(c in LATIN_COUNTRIES for c in first)
        return bool(first or last) and wordfreq.zipf_frequency(t, "en") < (FIRST_ZIPF if is_first else LAST_ZIPF)

    def is_name(self, t: str) -> bool:
        return self._listed_name(t) or (t in self.lex.rare and t not in self.ordinary)

    def is_ordinary(self, t: str) -> bool:
        return t in self.ordinary and not self._listed_name(t)


@functools.lru_cache(maxsize=1)
def _vocabulary() -> _Vocabulary:
    return _Vocabulary()


@functools.lru_cache(maxsize=1)
def _strict_vocabulary() -> tuple[frozenset[str], frozenset[str]]:
    """(names, vocabulary words that are names somewhere) of the strict policy (module docstring)."""
    from .name_table import lexicon

    lex = lexicon()
    return lex.ident, lex.ident_words


_VOWEL = re.compile(r"[aeiouy]")


def identifier_pii(pack: LocalePack, text: str, names: tuple[str, ...] = (),
                   persona: frozenset[str] = frozenset(), strict: bool = False) -> list[PiiFinding]:
    """PII in an identifier (type and character range, never the value), non-overlapping, in order.
    `names`: names the uploader declared; `persona`: the agent persona's name tokens (not PII); `strict`: the
    high-recall policy of ids and file names (module docstring)."""
    if not text:
        return []
    text = _fold(text)  # `César`, `vicente.césar@example.org` are read through their accents
    # a lower-case text is judged by the token check below, not by the prose rules ("billing" is no name)
    found = [f for f in scan_pii(pack, text, names, persona)
             if f.type != NAME_TYPE or text[f.start:f.end] != text[f.start:f.end].lower()]
    found += [PiiFinding(type=DIGITS_TYPE, start=m.start(), end=m.end(), recognizer="identifier_digits")
              for m in _DIGITS.finditer(text) if not _covered(found, m.start(), m.end())]
    vocab = _vocabulary()
    tokens = [(m.start(), m.end(), m.group().lower()) for m in _TOKEN.finditer(text)]
    hit = [len(w) >= 3 and vocab.is_name(w) and w not in persona and not _covered(found, s, e)
           for s, e, w in tokens]
    unknown = [len(w) >= 3 and not vocab.is_ordinary(w) and not vocab.is_name(w) and w not in persona
               for _, _, w in tokens]
    weak = [False] * len(tokens)  # joins a name beside it, never a number or an e-mail
    if strict:
        strict_names, vocabulary_names = _strict_vocabulary()
        for i, (s, e, w) in enumerate(tokens):
            if w in persona or _covered(found, s, e) or (len(w) >= 4 and not _VOWEL.search(w)):
                unknown[i] = False
                continue
            if w in strict_names and len(w) >= 3:
                hit[i] = True
            elif w in vocabulary_names or w in strict_names:
                weak[i], unknown[i] = True, False
    changed = True
    while changed:  # an unknown token beside a name or another hit is part of it
        changed = False
        for i, (s, e, _) in enumerate(tokens):
            if hit[i] or not unknown[i] or _covered(found, s, e):
                continue
            if _beside(text, tokens, hit, found, i):
                hit[i] = changed = True
    names_found = [f for f in found if f.type == NAME_TYPE]
    held = list(hit)  # a vocabulary word joins a name beside it, not another word that joined one (`call-one`)
    for i, (s, e, _) in enumerate(tokens):
        if weak[i] and not hit[i] and not _covered(found, s, e) and _beside(text, tokens, held, names_found, i):
            hit[i] = True
    found += [PiiFinding(type=NAME_TYPE, start=s, end=e, recognizer="identifier_names")
              for (s, e, _), h in zip(tokens, hit, strict=True) if h]
    found.sort(key=lambda f: (f.start, f.end))
    out: list[PiiFinding] = []
    for f in found:
        if out and f.start < out[-1].end:
            continue
        out.append(f)
    return out


def _fold(text: str) -> str:
    """`text` with each letter that has an ASCII base replaced by it, one character for one (offsets hold)."""
    if text.isascii():
        return text
    out = []
    for c in text:
        base = "".join(x for x in unicodedata.normalize("NFKD", c) if not unicodedata.combining(x))
        out.append(base if len(base) == 1 and base.isascii() else c)
    return "".join(out)


def _covered(found: list[PiiFinding], s: int, e: int) -> bool:
    return any(f.start < e and s < f.end for f in found)


def _beside(text: str, tokens: list[tuple[int, int, str]], hit: list[bool], found: list[PiiFinding],
            i: int) -> bool:
    s, e, _ = tokens[i]
    if i > 0 and hit[i - 1] and _GLUE.match(text[tokens[i - 1][1]:s]):
        return True
    if i + 1 < len(tokens) and hit[i + 1] and _GLUE.match(text[e:tokens[i + 1][0]]):
        return True
    return any((_GLUE.match(text[f.end:s]) and f.end <= s) or (f.start >= e and _GLUE.match(text[e:f.start]))
               for f in found if f.recognizer != "identifier_names")
