"""Phone numbers via libphonenumber (PhoneNumberMatcher, Leniency.VALID) in the pack's regions.

VALID rejects digit strings that merely look like numbers ("order 123456789012"). The matcher is
slow (~50 us a text), so a cheap gate runs first: digit-run candidates are checked with
`is_valid_number` on a cached (country code, national number) pair, and the matcher only runs on texts
where some candidate could be a valid number. Regions sharing a country code (US, CA) run once.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator

import phonenumbers
from phonenumbers import Leniency, PhoneNumber, PhoneNumberFormat, PhoneNumberMatcher

from ...locales.packfile import cue_alternation
from ...locales.registry import BUILTIN_PACKS
from .base import Match, RegexGate, business_context, has_cue

_DIGIT_RUN = re.compile(r"\d(?:[\s().\-/]{0,2}\d){5,}")
_CANDIDATE = re.compile(r"(?:\+\s?)?\d(?:[\s().\-/]{0,2}\d){5,}")
_SPLIT = re.compile(r"[\s().\-/]+")


@functools.lru_cache(maxsize=1024)
def _lengths(cc: int) -> frozenset[int] | None:
    """Lengths a valid national number of country code `cc` can have: is_valid_number checks the number
    against the general description of its region, whose possible lengths these are (None: unknown, or some
    region lists none)."""
    out: set[int] = set()
    for region in phonenumbers.COUNTRY_CODE_TO_REGION_CODE.get(cc, ()):
        meta = phonenumbers.PhoneMetadata.metadata_for_region_or_calling_code(cc, region)
        if meta is None or meta.general_desc is None or not meta.general_desc.possible_length:
            return None
        out.update(meta.general_desc.possible_length)
    return frozenset(out) or None


@functools.lru_cache(maxsize=65536)
def _valid(cc: int, national: str) -> bool:
    if not national or len(national) > 14:
        return False
    lengths = _lengths(cc)
    if lengths is not None and len(str(int(national))) not in lengths:
        return False  # what is_valid_number would say, without its pattern scans
    return phonenumbers.is_valid_number(PhoneNumber(country_code=cc, national_number=int(national)))


@functools.lru_cache(maxsize=64)
def _region_plan(regions: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    """(region, country code, national prefix) per distinct country code, in the pack's order."""
    seen: dict[int, tuple[str, int, str]] = {}
    for r in regions or ("US",):
        cc = phonenumbers.country_code_for_region(r)
        meta = phonenumbers.PhoneMetadata.metadata_for_region(r)
        if cc and cc not in seen:
            seen[cc] = (r, cc, (meta.national_prefix or "") if meta else "")
    return tuple(seen.values())


def _could_be_valid(digits: str, plus: bool, plan: tuple[tuple[str, int, str], ...]) -> bool:
    if plus:
        return any(_valid(int(digits[:k]), digits[k:]) for k in (1, 2, 3)
                   if int(digits[:k]) in phonenumbers.COUNTRY_CODE_TO_REGION_CODE)
    for _, cc, prefix in plan:
        if _valid(cc, digits):
            return True
        if prefix and digits.startswith(prefix) and _valid(cc, digits[len(prefix):]):
            return True
        ccs = str(cc)
        if digits.startswith(ccs) and _valid(cc, digits[len(ccs):]):
            return True
    return False


def _gate(text: str, plan: tuple[tuple[str, int, str], ...]) -> bool:
    for m in _CANDIDATE.finditer(text):
        raw = m.group()
        plus = raw.startswith("+")
        groups = [g for g in _SPLIT.split(raw.lstrip("+ ")) if g]
        if len(groups) == 1:  # the common case: one run of digits
            if 6 <= len(groups[0]) <= 17 and _could_be_valid(groups[0], plus, plan):
                return True
            continue
        # any contiguous run of groups may be the number (a number followed by a year, say); only runs of
        # 6 to 17 digits are looked at, so their lengths are summed before any is joined
        ends = list(itertools.accumulate(map(len, groups), initial=0))
        for i in range(len(groups)):
            for j in range(len(groups), i, -1):
                if 6 <= ends[j] - ends[i] <= 17 and _could_be_valid("".join(groups[i:j]), plus and i == 0, plan):
                    return True
    return False


_INTL = re.compile(r"(?<![\w+])\+\s?[1-9](?:[\s().\-/]{0,2}\d){6,16}(?!\d)")


def _possible_international(text: str) -> Iterator[Match]:
    """Numbers written with +<country code> whose length fits that country: still a phone even when the range is
    unallocated or reserved (libphonenumber calls +44 7700 900xxx invalid; a person may still own it)."""
    if "+" not in text:
        return
    for m in _INTL.finditer(text):
        try:
            num = phonenumbers.parse(m.group(), None)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_possible_number(num) and not phonenumbers.is_valid_number(num):
            yield Match("phone", m.start(), m.end(), 0.7, "phonenumbers",
                        phonenumbers.format_number(num, PhoneNumberFormat.E164))


# ASR text garbles spoken numbers ("nine eight seven six five four three two one zero" -> "876-543 to 1.0"):
# after a phone cue, a run of 7+ digits (homophones of two/four/zero between digits allowed) is still a
# person's number even when no region calls it valid, so it is redacted rather than left mostly readable.
# The cue words are data: `cues.<lang>.phone` of the built-in packs with `shared_cues: true` (en-US, hi-IN,
# zh-CN); as before, they apply in every pack.
_PHONE_CUE = re.compile(
    cue_alternation([w for p in BUILTIN_PACKS.values() if p.rules is not None
                     for w in p.rules.shared_cue_words.get("phone", ())]),
    re.IGNORECASE,
)
_PHONE_CUE_GATE = RegexGate(_PHONE_CUE)
# The homophones ASR writes for a digit ("to", "for", "oh") are data: `misheard_digits` in en-US.
_HOMOPHONES = {w: d for p in BUILTIN_PACKS.values() if p.rules is not None for w, d in p.rules.shared_misheard_digits}
_LOOSE_RUN = re.compile(
    rf"\d(?:(?:[\s().\-/,]{{0,2}}|\s(?:{'|'.join(map(re.escape, _HOMOPHONES))})\s)\d){{6,}}", re.IGNORECASE
)


def find_cued_digit_runs(text: str, cued: bool = False) -> Iterator[Match]:
    """`cued`: the previous turn asked for a number ("can I have your phone number?")."""
    if not cued and not _PHONE_CUE_GATE.might_match(text):
        return  # no run can have the cue before it
    for m in _LOOSE_RUN.finditer(text):
        if not (cued or has_cue(text, m.start(), _PHONE_CUE)) or business_context(text, m.start(), end=m.end()):
            continue
        norm = "".join(_HOMOPHONES.get(t.lower(), t) for t in re.findall(r"\d|[A-Za-z]+", m.group()))
        yield Match("phone", m.start(), m.end(), 0.6, "phone_cue", norm)


def asks_for_number(text: str) -> bool:
    """Does this turn end by asking for a phone number (so the reply's digit runs are one)?"""
    return _PHONE_CUE.search(text[-80:]) is not None


def find_phones(text: str, regions: tuple[str, ...], has_run: bool = False) -> Iterator[Match]:
    """`has_run`: the caller knows the text has a run of six digits (find_pii's gate)."""
    if not has_run and not _DIGIT_RUN.search(text):
        return
    yield from find_cued_digit_runs(text)
    seen: set[tuple[int, int]] = set()
    for m in _possible_international(text):
        seen.add((m.start, m.end))
        yield m
    plan = _region_plan(tuple(regions))
    if not _gate(text, plan):
        return
    for region, _, _ in plan:
        for m in PhoneNumberMatcher(text, region, leniency=Leniency.VALID):
            span = (m.start, m.end)
            if span in seen:
                continue
            seen.add(span)
            if not m.raw_string.startswith("+") and business_context(text, m.start, end=m.end):
                continue
            norm = phonenumbers.format_number(m.number, PhoneNumberFormat.E164)
            yield Match("phone", m.start, m.end, 0.9 if m.raw_string.startswith("+") else 0.8, "phonenumbers", norm)
