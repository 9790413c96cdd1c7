"""PII recognizers, one module per kind of value, and `find_pii`: the per-pack scan that resolves overlaps.

`find_pii` is what the redaction stage and the validator's `pack.scan_pii` both run, so a value the
redactor replaced is exactly a value the validator would have flagged. Placeholders (<PHONE_1>) are
never detected.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Mapping

from ...locales.base import LocalePack
from ...locales.registry import PACKS
from .addresses import ZH_NUMERAL, find_addresses, find_uk_postcodes
from .base import PLACEHOLDER_RE, Match, latin_words
from .cards import PAYMENT_CARD
from .email import find_emails, find_upi
from .engine import Recognizer, check_pack, scan
from .iban import find_ibans
from .lexicon_names import find_lexicon_names
from .name_places import drop_street_names
from .name_shapes import find_initial_names, find_spelled_names
from .names import (
    find_cued_names,
    find_given_names,
    find_ner_names,
    hyphen_joined,
    is_persona,
    persona_names,
)
from .national_ids import CN_RESIDENT_ID, IN_AADHAAR, IN_PAN, UK_NHS, UK_NINO, US_SSN
from .network import find_ips
from .phone import find_phones
from .postcodes import CN_POSTCODE, IN_PIN, US_ZIP
from .signoffs import find_signoff_names
from .spoken_digits import digit_view

__all__ = ["PLACEHOLDER_PREFIX", "RECOGNIZERS", "Match", "find_pii", "persona_names", "resolve_overlaps"]


# Every built-in recognizer, one per type, with the type its placeholders carry (payment_card: <CARD_1>); a pack
# runs those its `pii_types` name, in that order. The gates are necessary conditions: each finder's own patterns
# need that much (a phone six digits in a run, a card 13, Aadhaar 12, SSN 9, NHS 10, a China id 17, an NI number
# 6, a PAN 4).
RECOGNIZERS: dict[str, Recognizer] = {r.type: r for r in (
    Recognizer("phone", lambda t, p, w: find_phones(t, p.phone_regions, has_run=True), "PHONE", min_run=6,
               pack_business=True),
    Recognizer("email", lambda t, p, w: find_emails(t), "EMAIL"),
    Recognizer("payment_card", PAYMENT_CARD, "CARD", min_run=13),
    Recognizer("iban", lambda t, p, w: find_ibans(t), "IBAN", needs_digit=True, needs_capital=True),
    Recognizer("ip_address", lambda t, p, w: find_ips(t), "IP", needs_digit=True, any_of=(".", ":")),
    Recognizer("person_name", lambda t, p, w: drop_street_names(hyphen_joined((
        *find_cued_names(t, w), *find_lexicon_names(t, p, w), *find_spelled_names(t, p), *find_initial_names(t, p),
        *find_signoff_names(t, p)), t), t, p),
               "PERSON", digit_view=False),
    Recognizer("address", lambda t, p, w: find_addresses(t, w, has_number=True), "ADDRESS", needs_digit=True,
               spelt=ZH_NUMERAL),
    Recognizer("us_ssn", US_SSN, "SSN", min_run=9),
    Recognizer("uk_nino", UK_NINO, "NINO", min_run=6),
    Recognizer("uk_nhs", UK_NHS, "NHS", min_run=10),
    Recognizer("uk_postcode", lambda t, p, w: find_uk_postcodes(t), "POSTCODE", needs_digit=True),
    Recognizer("in_aadhaar", IN_AADHAAR, "AADHAAR", min_run=12),
    Recognizer("in_pan", IN_PAN, "PAN", min_run=4),
    Recognizer("in_upi", lambda t, p, w: find_upi(t), "UPI"),
    Recognizer("cn_resident_id", CN_RESIDENT_ID, "CN_ID", min_run=17),
    Recognizer("in_pin", IN_PIN, "PIN", needs_digit=True),
    Recognizer("cn_postcode", CN_POSTCODE, "CN_POSTCODE", needs_digit=True),
    Recognizer("us_zip", US_ZIP, "ZIP", needs_digit=True),
)}
# A pack file names the types it enables; a type its file does not declare must be one of the table above. This
# table is the one list of built-in types, so every loaded pack is checked here, where the table is known (the
# pack loader, a layer below, cannot), and `find_pii` checks a pack registered later the first time it sees it.
_CHECKED: dict[int, LocalePack] = {}


def _checked(pack: LocalePack) -> None:
    if id(pack) not in _CHECKED:
        check_pack(pack, RECOGNIZERS)
        _CHECKED[id(pack)] = pack  # held, so the id is never another pack's


for _pack in PACKS.values():
    _checked(_pack)
UNSURE_NUMBER = "unsure_number"  # the redaction stage's safety net (asked.find_unsure_runs): digits of no known type


class _Placeholders(Mapping[str, str]):
    """PII type -> the type its placeholders carry, read where it is declared: a built-in recognizer's
    `placeholder`, else the `placeholder` a registered pack file gives the type it declares (nl_bsn -> BSN;
    the built-in names win). Read live, so a pack directory registered after import (`register_pack_dir`)
    is placeholdered as its file says, not as its type name upper-cased."""

    def _table(self) -> dict[str, str]:
        table = {t: r.placeholder for t, r in RECOGNIZERS.items()}
        table[UNSURE_NUMBER] = "NUMBER"
        for pack in PACKS.values():
            if pack.rules is not None:
                for t, ph in pack.rules.placeholders.items():
                    table.setdefault(t, ph)
        return table

    def __getitem__(self, pii_type: str) -> str:
        rec = RECOGNIZERS.get(pii_type)
        return rec.placeholder if rec is not None else self._table()[pii_type]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


PLACEHOLDER_PREFIX: Mapping[str, str] = _Placeholders()
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
    out = scan(RECOGNIZERS, pack, text, words, numbers_only)
    if "person_name" in pack.pii_types and not numbers_only:
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
    _checked(pack)  # never scan for nothing and say nothing
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
