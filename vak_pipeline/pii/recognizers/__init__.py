"""PII recognizers, one module per kind of value, and `find_pii`: the per-pack scan that resolves overlaps.

`find_pii` is what the redaction stage and the validator's `pack.scan_pii` both run, so a value the
redactor replaced is exactly a value the validator would have flagged. Placeholders (<PHONE_1>) are
never detected.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...locales.base import LocalePack
from ...locales.registry import PACKS
from .addresses import find_addresses, find_uk_postcodes
from .base import PLACEHOLDER_RE, Match, latin_words
from .cards import find_cards
from .email import find_emails, find_upi
from .iban import find_ibans
from .lexicon_names import find_lexicon_names
from .name_shapes import find_initial_names, find_spelled_names
from .names import find_cued_names, find_given_names, find_ner_names, is_persona, persona_names
from .national_ids import find_cn_resident_id, find_in_aadhaar, find_in_pan, find_uk_nhs, find_uk_nino, find_us_ssn
from .network import find_ips
from .pack_rules import drop_business, find_pack_rules
from .phone import find_phones
from .postcodes import find_cn_postcode, find_in_pin, find_us_zip
from .spoken_digits import digit_view

if TYPE_CHECKING:  # the packs choose recognizers (locales sits above this package); only the type is needed
    from ...locales.base import LocalePack

__all__ = ["PLACEHOLDER_PREFIX", "Match", "find_pii", "persona_names", "resolve_overlaps"]

# A finder gets the text, the pack and the text's latin_words (computed once per text in find_pii).
Finder = Callable[[str, "LocalePack", frozenset[str]], Iterable[Match]]

# pii type -> (finder, needs a digit in the text)
_FINDERS: dict[str, tuple[Finder, bool]] = {
    "phone": (lambda t, p, w: find_phones(t, p.phone_regions, has_run=True), True),  # (_run checks the run)
    "email": (lambda t, p, w: find_emails(t, w), False),
    "payment_card": (lambda t, p, w: find_cards(t), True),
    "iban": (lambda t, p, w: find_ibans(t), True),
    "ip_address": (lambda t, p, w: find_ips(t), True),
    "person_name": (lambda t, p, w: (*find_cued_names(t, w), *find_lexicon_names(t, p, w), *find_spelled_names(t, p),
                                     *find_initial_names(t, p)), False),
    "address": (lambda t, p, w: find_addresses(t, w, has_number=True), True),  # (_run checks the number)
    "us_ssn": (lambda t, p, w: find_us_ssn(t), True),
    "uk_nino": (lambda t, p, w: find_uk_nino(t), True),
    "uk_nhs": (lambda t, p, w: find_uk_nhs(t), True),
    "uk_postcode": (lambda t, p, w: find_uk_postcodes(t), True),
    "in_aadhaar": (lambda t, p, w: find_in_aadhaar(t), True),
    "in_pan": (lambda t, p, w: find_in_pan(t), True),
    "in_upi": (lambda t, p, w: find_upi(t), False),
    "cn_resident_id": (lambda t, p, w: find_cn_resident_id(t), True),
    "in_pin": (lambda t, p, w: find_in_pin(t), True),
    "cn_postcode": (lambda t, p, w: find_cn_postcode(t), True),
    "us_zip": (lambda t, p, w: find_us_zip(t), True),
}
_PLACEHOLDER_NAMES = {
    "phone": "PHONE", "email": "EMAIL", "payment_card": "CARD", "iban": "IBAN", "ip_address": "IP",
    "person_name": "PERSON", "address": "ADDRESS", "us_ssn": "SSN", "uk_nino": "NINO", "uk_nhs": "NHS",
    "uk_postcode": "POSTCODE", "in_aadhaar": "AADHAAR", "in_pan": "PAN", "in_upi": "UPI", "cn_resident_id": "CN_ID",
    "in_pin": "PIN", "cn_postcode": "CN_POSTCODE", "us_zip": "ZIP",
    "unsure_number": "NUMBER",  # the redaction stage's safety net (asked.find_unsure_runs): digits of no known type
}
for _pack in PACKS.values():  # types a pack file declares (nl_bsn -> BSN); the built-in names win
    if _pack.rules is not None:
        for _t, _ph in _pack.rules.placeholders.items():
            _PLACEHOLDER_NAMES.setdefault(_t, _ph)
PLACEHOLDER_PREFIX = _PLACEHOLDER_NAMES
_DIGIT = re.compile(r"\d")
_ZH_NUMERAL = re.compile(r"[一二三四五六七八九十百零〇两][号栋室楼层]")
# A run of digits as the number finders see one: digits with at most two of these characters between them.
_RUN = re.compile(r"\d(?:[\s().\-/]{0,2}\d)*")

# Types whose every match holds a run (as _RUN counts it) of at least this many digits: phone 6 (find_phones'
# own gate, _DIGIT_RUN), payment card 13, Aadhaar 12, SSN 9, NHS 10, China id 17 (+ check character),
# NI number 6, PAN 4. Their finders are not called on a text without such a run.
_MIN_RUN = {"phone": 6, "payment_card": 13, "in_aadhaar": 12, "us_ssn": 9, "uk_nhs": 10, "cn_resident_id": 17,
            "uk_nino": 6, "in_pan": 4}
_NEEDS_DOT_OR_COLON = frozenset({"ip_address"})  # a v4 address: a dot and 4 digits in a run; a v6 one: 2 colons
_NEEDS_UPPER = frozenset({"iban"})  # its pattern starts with two capitals (case-sensitive)


def _max_run(text: str) -> int:
    """Digits in the longest digit run of `text` (0 without a digit). (A run holds \\d characters and
    separators, none of which is a digit to str.isdigit, so the sum counts the \\d characters.)"""
    best = 0
    for r in _RUN.findall(text):
        n = len(r) if r.isdigit() else sum(map(str.isdigit, r))
        if n > best:
            best = n
    return best


# What _run checks before a finder, besides the shortest digit run: nothing, a dot and 4 digits or 2 colons
# (_NEEDS_DOT_OR_COLON), a capital (_NEEDS_UPPER), or, in a text without a digit, a spelt Chinese number.
_CHECK_NONE, _CHECK_DOT_OR_COLON, _CHECK_UPPER, _CHECK_ZH_NUMERAL = 0, 1, 2, 3
Step = tuple[str, Finder, int, int]  # (type, finder, shortest digit run, check)


@dataclass(frozen=True, slots=True)
class _Plan:
    """What a pack runs, decided once per pack: the steps (type, finder, shortest digit run, check) in the
    order of the pack's types (the order breaks ties between equal overlapping matches) for a text with and
    without a digit, in the first pass and in the digit view's (no names there), and whether the pack file's
    rules have anything to find. A text without a digit skips the number kinds outright."""

    with_digit: tuple[Step, ...]
    with_digit_numbers: tuple[Step, ...]
    without_digit: tuple[Step, ...]
    without_digit_numbers: tuple[Step, ...]
    names: bool
    rules: bool


_PLANS: dict[int, tuple[LocalePack, _Plan]] = {}


def _business_filtered(finder: Finder) -> Finder:
    """The phone finder of a pack whose file has business cues: its matches that such a cue names are dropped."""
    return lambda t, p, w: drop_business(finder(t, p, w), t, p.rules)


def _plan(pack: LocalePack) -> _Plan:
    got = _PLANS.get(id(pack))
    if got is not None and got[0] is pack:
        return got[1]
    r = pack.rules
    business = r is not None and r.business_cues is not None
    with_digit: list[Step] = []
    without_digit: list[Step] = []
    for t in pack.pii_types:
        if t not in _FINDERS:
            continue
        finder, needs_digit = _FINDERS[t]
        if t == "phone" and business:
            finder = _business_filtered(finder)
        check = _CHECK_DOT_OR_COLON if t in _NEEDS_DOT_OR_COLON else _CHECK_UPPER if t in _NEEDS_UPPER else _CHECK_NONE
        with_digit.append((t, finder, _MIN_RUN.get(t, 0), check))
        if not needs_digit:
            without_digit.append((t, finder, 0, _CHECK_NONE))
        elif t == "address":  # a Chinese address may spell its numbers (三号楼)
            without_digit.append((t, finder, 0, _CHECK_ZH_NUMERAL))
    plan = _Plan(
        tuple(with_digit),
        tuple(s for s in with_digit if s[0] != "person_name"),
        tuple(without_digit),
        tuple(s for s in without_digit if s[0] != "person_name"),
        "person_name" in pack.pii_types,
        r is not None and bool(r.ids or r.postcodes or r.addresses or r.phone_cues is not None
                               or r.name_cues is not None),
    )
    if len(_PLANS) > 256:  # packs made on the fly (tests, user files): keep the table small
        _PLANS.clear()
    _PLANS[id(pack)] = (pack, plan)  # the pack is kept with its plan, so its id is not reused
    return plan


def _LONGEST_FIRST(m: Match) -> tuple[int, float, int]:  # noqa: N802 - a sort key
    return (m.start - m.end, -m.score, m.start)


_START = operator.attrgetter("start")


def resolve_overlaps(matches: Iterable[Match]) -> list[Match]:
    """Keep the longest, then most certain, of any overlapping matches (a span that contains another
    redacts both: an email that contains a name); result sorted by start."""
    ms = matches if isinstance(matches, list) else list(matches)
    if len(ms) < 2:
        return [m for m in ms if m.end > m.start]
    chosen: list[Match] = []
    for m in sorted(ms, key=_LONGEST_FIRST):
        if m.end <= m.start:
            continue
        for c in chosen:
            if m.start < c.end and c.start < m.end:
                break
        else:
            chosen.append(m)
    chosen.sort(key=_START)
    return chosen


def _run(pack: LocalePack, text: str, words: frozenset[str], names: tuple[str, ...], ner: bool,
         numbers_only: bool = False) -> list[Match]:
    """`words`: latin_words(text). `numbers_only`: the digit view's pass, where only the number-bearing kinds
    can differ."""
    plan = _plan(pack)
    has_digit = _DIGIT.search(text) is not None
    out: list[Match] = []
    if has_digit:
        run = _max_run(text)
        for _, finder, min_run, check in plan.with_digit_numbers if numbers_only else plan.with_digit:
            if run < min_run or (check and (
                (check == _CHECK_DOT_OR_COLON and (run < 4 or "." not in text) and text.count(":") < 2)
                or (check == _CHECK_UPPER and text == text.lower())  # no capital A-Z (lower() would change it)
            )):
                continue
            out.extend(finder(text, pack, words))
    else:
        for _, finder, _, check in plan.without_digit_numbers if numbers_only else plan.without_digit:
            if check and (text.isascii() or not _ZH_NUMERAL.search(text)):
                continue
            out.extend(finder(text, pack, words))
    if plan.rules:
        out.extend(find_pack_rules(text, pack, has_digit, numbers_only))
    if plan.names and not numbers_only:
        if names:
            out.extend(find_given_names(text, names))
        if ner:
            out.extend(find_ner_names(text))
    return out


def find_pii(pack: LocalePack, text: str, names: tuple[str, ...] = (), ner: bool = False,
             persona: frozenset[str] = frozenset()) -> list[Match]:
    """Every PII value in `text` the pack recognises, non-overlapping, in order; placeholders excluded.

    `persona`: name tokens of the agent persona (see names.persona_names), which are not PII.
    """
    if not text:
        return []
    words = latin_words(text)
    found = _run(pack, text, words, names, ner)
    view = digit_view(text, pack.number_words, words)
    if view is not None:  # spoken digits: scan the digit view too; written values keep their own matches
        for m in _run(pack, view.text, latin_words(view.text), names, ner, numbers_only=True):
            s, e = view.to_original(m.start, m.end)
            found.append(Match(m.type, s, e, m.score, m.recognizer, m.norm))
    if persona and found:
        found = [m for m in found if m.type != "person_name" or not is_persona(text[m.start:m.end], persona)]
    if "<" in text and found:
        ph = [(p.start(), p.end()) for p in PLACEHOLDER_RE.finditer(text)]
        if ph:
            found = [m for m in found if all(m.end <= a or b <= m.start for a, b in ph)]
    return resolve_overlaps(found)
