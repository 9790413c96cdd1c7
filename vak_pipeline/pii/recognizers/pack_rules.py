"""Recognizers a pack file declares (locales/packfile.py): national ids checked by their python-stdnum
validator, postcodes, address patterns, name cues, and the pack's business cues that keep order and
invoice numbers ("factuur", "Bestellnummer", "pedido") out of the phone and id finders.

The built-in English/Hindi/Chinese recognizers stay in their own modules; these run for every pack
whose file declares such rules, so a new language needs a file, not code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ...locales.base import LocalePack
from ...locales.packfile import IntroRule, PackRules
from .base import SHARED_RULES as _OWN
from .base import Match, business_context, digits_of, has_cue, take_name
from .lexicon_names import frequent_words, given_names, name_like, pack_names
from .phone import find_cued_digit_runs

_TOK = re.compile(r"\s*([^\W\d_][\w'\-]*)", re.UNICODE)
_TOK_BEFORE = re.compile(r"(?<![\w'\-])([^\W\d_][\w'\-]*)\s*$")
# Words that end a name after a cue (capitalised sentence words, fillers) and particles inside one ("van",
# "de"): `name_context.<lang>.stop` and `.particles` of the shipped packs without shared_cues (the European
# ones), which apply in all of them, as when they were one Python list; a user's pack adds its own.
_NAME_STOP = frozenset().union(*(r.name_stop for r in _OWN))
_PARTICLES = frozenset().union(*(r.name_particles for r in _OWN))


def pack_business(text: str, start: int, end: int, rules: PackRules) -> bool:
    """The built-in business test, or the pack's own business cue closest before the number (no
    personal cue of the pack in between)."""
    if business_context(text, start, end=end):
        return True
    if rules.business_cues is None:
        return False
    left = text[max(0, start - 40) : start]
    biz = [m.end() for m in rules.business_cues.finditer(left)]
    if not biz:
        return False
    personal = [m.end() for rx in (rules.phone_cues, rules.personal_cues) if rx is not None for m in rx.finditer(left)]
    personal += [m.end() for r in rules.ids if r.cues is not None for m in r.cues.finditer(left)]
    return not personal or biz[-1] > personal[-1]


def drop_business(matches: Iterable[Match], text: str, rules: PackRules) -> Iterator[Match]:
    """Phone matches whose closest cue names a business number in the pack's language are not PII."""
    for m in matches:
        if m.type == "phone" and rules.business_cues is not None and pack_business(text, m.start, m.end, rules):
            continue
        yield m


def find_pack_ids(text: str, rules: PackRules) -> Iterator[Match]:
    for r in rules.ids:
        for m in r.pattern.finditer(text):
            raw = m.group()
            compact = re.sub(r"[\s.\-]", "", raw)
            if not r.is_valid(compact):
                continue
            cued = r.cues is not None and has_cue(text, m.start(), r.cues, window=48)
            if r.cue_required and not cued:
                continue
            if not cued and pack_business(text, m.start(), m.end(), rules):
                continue
            yield Match(r.type, m.start(), m.end(), 0.95 if cued else 0.85, r.validator, compact.upper())


def find_cued_phones(text: str, rules: PackRules) -> Iterator[Match]:
    """After the pack's phone cue ("telefoonnummer", "Handynummer", "portable"), a run of 7+ digits is a
    person's number even when libphonenumber calls its range unallocated: it is still readable as one."""
    if rules.phone_cues is None or rules.phone_cues.search(text) is None:
        return
    for m in find_cued_digit_runs(text, cued=True):
        if has_cue(text, m.start, rules.phone_cues, window=40) and not pack_business(text, m.start, m.end, rules):
            yield m


def find_pack_postcodes(text: str, rules: PackRules) -> Iterator[Match]:
    for r in rules.postcodes:
        if r.cue_required and (r.cues is None or r.cues.search(text) is None):
            continue
        for m in r.pattern.finditer(text):
            if r.cue_required and not has_cue(text, m.start(1), r.cues, window=32):
                continue
            yield Match(r.type, m.start(1), m.end(1), 0.85, "postcode_pattern", digits_of(m.group(1)) or m.group(1))


def find_pack_addresses(text: str, rules: PackRules) -> Iterator[Match]:
    """The pack's address patterns; a pattern with a group (after its {cue}) gives the group as the value,
    unless a business cue of the pack is inside it."""
    for r in rules.addresses:
        for m in r.pattern.finditer(text):
            g = 1 if r.pattern.groups and m.group(1) is not None else 0
            if g and rules.business_cues is not None and rules.business_cues.search(m.group(1)):
                continue  # an order or invoice number after the cue, not a postcode
            cued = g == 1 or (r.cues is not None and has_cue(text, m.start(), r.cues, window=32))
            yield Match(
                "address",
                m.start(g),
                m.end(g),
                0.9 if cued else 0.8,
                "address_pattern",
                " ".join(m.group(g).lower().split()),
            )


def _name_before(
    text: str, pos: int, stop: frozenset[str], particles: frozenset[str], capitalised: bool = True
) -> tuple[int, int] | None:
    """Up to four words that end just before `pos` (only spaces between): "Stefan Krüger" am Apparat; None
    when a stop word comes just before them."""
    start = end = None
    n = 0
    while n < 4:
        m = _TOK_BEFORE.search(text, 0, pos)
        if not m:
            break
        tok = m.group(1)
        if start is not None and tok in particles:
            prev = _TOK_BEFORE.search(text, 0, m.start())
            if prev and prev.group(1)[0].isupper() and prev.group(1).lower() not in stop:
                pos = m.start()
                continue
            break
        if tok.lower() in stop and start is not None:
            return None  # an article or pronoun before it: a noun phrase ("Der Techniker am Apparat")
        if (capitalised and not tok[0].isupper()) or tok.lower() in stop or len(tok) < 2:
            break
        end = m.end(1) if end is None else end
        start, pos, n = m.start(1), m.start(), n + 1
    return (start, end) if start is not None and end is not None else None


def _name_match(
    text: str, span: tuple[int, int] | None, rule: IntroRule, pack: LocalePack, lower: bool = False
) -> Match | None:
    if span is None:
        return None
    s, e = span
    words = text[s:e].lower().split()
    # one word: only a listed first name ("ich bin Kunde" is not one: Kunde is a surname, and a noun), and never
    # in lower case, where a listed name is often a word too ("c'est clair")
    if rule.full_name and len(words) < 2 and (lower or words[0] not in given_names(pack)):
        return None
    if not _plausible(words, pack):
        return None
    return Match("person_name", s, e, 0.85, "name_cue", " ".join(words))


_GAP = re.compile(r"[\s,:]*")  # between a cue and its name: "Ansprechpartner: ...", "Mi mujer, Aránzazu"
_TITLE_TOK = re.compile(r"([^\W\d_][\w\-]*)\.?[\s,]*")


def _skip_titles(text: str, pos: int, titles: frozenset[str]) -> int:
    """`pos` past the punctuation after a cue and any academic titles ("Herr Dr. Krebs", "Sra. Dra. Gil")."""
    pos = _GAP.match(text, pos).end()
    while titles and (m := _TITLE_TOK.match(text, pos)) is not None and m.group(1).lower() in titles:
        pos = m.end()
    return pos


def _plausible(words: list[str], pack: LocalePack) -> bool:
    """A cued span is a name only if one of its words may be one: "läuft auf Rechnung", "C'est Free Mobile"
    hold only ordinary words of the pack's languages."""
    return any(name_like(pack, w) for w in words if w not in _PARTICLES)


def _lower_name_after(
    text: str, pos: int, stop: frozenset[str], particles: frozenset[str], pack: LocalePack
) -> tuple[int, int] | None:
    """In lower-case (ASR) text capitals say nothing: up to three words that may be names (a listed name word,
    or a word no frequent-word list knows) and are no frequent word of the pack's languages, one of them listed
    ("soy baldomero baeza le llamo" -> "baldomero baeza")."""
    start = end = None
    n = listed = 0
    common = frequent_words(pack)
    names = pack_names(pack)
    while n < 3:
        m = _TOK.match(text, pos)
        if not m:
            break
        tok = m.group(1)
        if start is not None and tok in particles:
            nxt = _TOK.match(text, m.end())
            if nxt and _lower_name_word(nxt.group(1), stop, common, pack):
                pos = m.end()
                continue
            break
        if not _lower_name_word(tok, stop, common, pack):
            break
        listed += tok in names
        start = m.start(1) if start is None else start
        end, pos, n = m.end(1), m.end(), n + 1
    return (start, end) if start is not None and end is not None and listed else None


def _lower_name_word(tok: str, stop: frozenset[str], common: frozenset[str], pack: LocalePack) -> bool:
    return (
        len(tok) > 1
        and tok not in stop
        and tok not in common
        and ("'" not in tok or tok in pack_names(pack))
        and name_like(pack, tok)
    )


def find_pack_names(text: str, pack: LocalePack) -> Iterator[Match]:
    """Names after the pack's name cues ("mijn naam is", "ich heiße", "me llamo": one to four capitalised
    words, past a title: "Herr Dr. Krebs"), and around its self-introductions (`name_intros`: "ich bin ...",
    "... am Apparat"). In lower-case text (ASR) the same cues take the words that may be names instead."""
    rules: PackRules = pack.rules
    if rules.name_cues is None and not rules.intros:
        return
    stop = _NAME_STOP | rules.name_stop if rules.name_stop - _NAME_STOP else _NAME_STOP
    particles = _PARTICLES | rules.name_particles if rules.name_particles - _PARTICLES else _PARTICLES
    lower = text.islower()

    def after(pos: int, capitalised: bool = True) -> tuple[int, int] | None:
        pos = _skip_titles(text, pos, rules.name_titles)
        if lower:
            return _lower_name_after(text, pos, stop, particles, pack)
        return take_name(text, pos, _TOK, stop, particles, capitalised, max_words=4)  # particles: "de Vries"

    if rules.name_cues is not None:
        for cue in rules.name_cues.finditer(text):
            span = after(cue.end())
            if span is not None:
                s, e = span
                words = text[s:e].lower().split()
                if _plausible(words, pack):
                    yield Match("person_name", s, e, 0.85, "name_cue", " ".join(words))
    for rule in rules.intros:
        if rule.before_re is not None:
            for cue in rule.before_re.finditer(text):
                span = after(cue.end(), rule.capitalised)
                if span is not None and (rule.after_re is None or rule.after_re.match(text, span[1])):
                    found = _name_match(text, span, rule, pack, lower)
                    if found is not None:
                        yield found
        elif rule.after_find is not None:
            for cue in rule.after_find.finditer(text):
                span = _name_before(text, cue.start(), stop, particles, rule.capitalised)
                found = _name_match(text, span, rule, pack, lower)
                if found is not None:
                    yield found


def find_pack_rules(text: str, pack: LocalePack, has_digit: bool, numbers_only: bool) -> Iterator[Match]:
    """Everything the pack file declares, for the types the pack enables."""
    rules: PackRules | None = pack.rules
    if rules is None:
        return
    if has_digit:
        if "phone" in pack.pii_types:
            yield from find_cued_phones(text, rules)
        yield from find_pack_ids(text, rules)
        yield from find_pack_postcodes(text, rules)
        if "address" in pack.pii_types:
            yield from find_pack_addresses(text, rules)
    if not numbers_only and "person_name" in pack.pii_types:
        yield from find_pack_names(text, pack)
