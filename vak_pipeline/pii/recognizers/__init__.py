"""PII recognizers, one module per kind of value, and `find_pii`: the per-pack scan that resolves overlaps.

`find_pii` is what the redaction stage and the validator's `pack.scan_pii` both run, so a value the
redactor replaced is exactly a value the validator would have flagged. Placeholders (<PHONE_1>) are
never detected.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from ...locales.base import LocalePack
from ...locales.registry import PACKS
from .addresses import find_addresses, find_uk_postcodes
from .base import PLACEHOLDER_RE, Match
from .cards import find_cards
from .email import find_emails, find_upi
from .iban import find_ibans
from .lexicon_names import find_lexicon_names
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

Finder = Callable[[str, "LocalePack"], Iterable[Match]]

# pii type -> (finder, needs a digit in the text)
_FINDERS: dict[str, tuple[Finder, bool]] = {
    "phone": (lambda t, p: find_phones(t, p.phone_regions), True),
    "email": (lambda t, p: find_emails(t), False),
    "payment_card": (lambda t, p: find_cards(t), True),
    "iban": (lambda t, p: find_ibans(t), True),
    "ip_address": (lambda t, p: find_ips(t), True),
    "person_name": (lambda t, p: (*find_cued_names(t), *find_lexicon_names(t, p)), False),
    "address": (lambda t, p: find_addresses(t), True),
    "us_ssn": (lambda t, p: find_us_ssn(t), True),
    "uk_nino": (lambda t, p: find_uk_nino(t), True),
    "uk_nhs": (lambda t, p: find_uk_nhs(t), True),
    "uk_postcode": (lambda t, p: find_uk_postcodes(t), True),
    "in_aadhaar": (lambda t, p: find_in_aadhaar(t), True),
    "in_pan": (lambda t, p: find_in_pan(t), True),
    "in_upi": (lambda t, p: find_upi(t), False),
    "cn_resident_id": (lambda t, p: find_cn_resident_id(t), True),
    "in_pin": (lambda t, p: find_in_pin(t), True),
    "cn_postcode": (lambda t, p: find_cn_postcode(t), True),
    "us_zip": (lambda t, p: find_us_zip(t), True),
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


def resolve_overlaps(matches: Iterable[Match]) -> list[Match]:
    """Keep the longest, then most certain, of any overlapping matches (a span that contains another
    redacts both: an email that contains a name); result sorted by start."""
    chosen: list[Match] = []
    for m in sorted(matches, key=lambda m: (-(m.end - m.start), -m.score, m.start)):
        if m.end <= m.start:
            continue
        if all(m.end <= c.start or c.end <= m.start for c in chosen):
            chosen.append(m)
    return sorted(chosen, key=lambda m: m.start)


def _run(pack: LocalePack, text: str, names: tuple[str, ...], ner: bool, numbers_only: bool = False) -> Iterator[Match]:
    """`numbers_only`: the digit view's pass, where only the number-bearing kinds can differ."""
    has_digit = _DIGIT.search(text) is not None
    for ptype in pack.pii_types:
        if numbers_only and ptype == "person_name":
            continue
        entry = _FINDERS.get(ptype)
        if entry is None or (entry[1] and not has_digit and not (ptype == "address" and _ZH_NUMERAL.search(text))):
            continue  # number kinds need a digit; a Chinese address may spell its numbers (三号楼)
        found = entry[0](text, pack)
        yield from (drop_business(found, text, pack.rules) if ptype == "phone" and pack.rules is not None
                    and pack.rules.business_cues is not None else found)
    yield from find_pack_rules(text, pack, has_digit, numbers_only)
    if "person_name" in pack.pii_types and not numbers_only:
        yield from find_given_names(text, names)
        if ner:
            yield from find_ner_names(text)


def find_pii(pack: LocalePack, text: str, names: tuple[str, ...] = (), ner: bool = False,
             persona: frozenset[str] = frozenset()) -> list[Match]:
    """Every PII value in `text` the pack recognises, non-overlapping, in order; placeholders excluded.

    `persona`: name tokens of the agent persona (see names.persona_names), which are not PII.
    """
    if not text:
        return []
    found = list(_run(pack, text, names, ner))
    view = digit_view(text, pack.number_words)
    if view is not None:  # spoken digits: scan the digit view too; written values keep their own matches
        for m in _run(pack, view.text, names, ner, numbers_only=True):
            s, e = view.to_original(m.start, m.end)
            found.append(Match(m.type, s, e, m.score, m.recognizer, m.norm))
    if persona and found:
        found = [m for m in found if m.type != "person_name" or not is_persona(text[m.start:m.end], persona)]
    if "<" in text and found:
        ph = [(p.start(), p.end()) for p in PLACEHOLDER_RE.finditer(text)]
        if ph:
            found = [m for m in found if all(m.end <= a or b <= m.start for a, b in ph)]
    return resolve_overlaps(found)
