"""Phone numbers via libphonenumber's public API: PhoneNumberMatcher (Leniency.VALID) in the pack's regions.

VALID rejects digit strings that merely look like numbers ("order 123456789012"). Regions sharing a
country code (US, CA) run once. Two rules add what the matcher leaves: a number written with
+<country code> whose length fits that country (possible, not valid: +44 7700 900xxx), and, after a phone
cue, a garbled ASR run of 7+ digits.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

import phonenumbers
from phonenumbers import Leniency, PhoneNumberFormat, PhoneNumberMatcher

from ...locales.packfile import cue_alternation
from .base import SHARED_RULES, Match, business_context, has_cue, shared_cues

_DIGIT_RUN = re.compile(r"\d(?:[\s().\-/]{0,2}\d){5,}")


@functools.lru_cache(maxsize=64)
def _regions(regions: tuple[str, ...]) -> tuple[str, ...]:
    """One region per distinct country code, in the pack's order (US for US+CA)."""
    seen: dict[int, str] = {}
    for r in regions or ("US",):
        cc = phonenumbers.country_code_for_region(r)
        if cc and cc not in seen:
            seen[cc] = r
    return tuple(seen.values())


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
_PHONE_CUE = re.compile(cue_alternation(shared_cues("phone")), re.IGNORECASE)
# The homophones ASR writes for a digit ("to", "for", "oh") are data: `misheard_digits` in en-US.
_HOMOPHONES = {w: d for r in SHARED_RULES for w, d in r.shared_misheard_digits}
_LOOSE_RUN = re.compile(
    rf"\d(?:(?:[\s().\-/,]{{0,2}}|\s(?:{'|'.join(map(re.escape, _HOMOPHONES))})\s)\d){{6,}}", re.IGNORECASE
)


_RUN_TOKEN = re.compile(r"\d|[A-Za-z]+")
_RUN_WORDY = re.compile(r"[^\d\s().\-/,]")  # in a _LOOSE_RUN match, the start of a homophone
_NOT_DIGIT = re.compile(r"\D")


def find_cued_digit_runs(text: str, cued: bool = False) -> Iterator[Match]:
    """`cued`: the previous turn asked for a number ("can I have your phone number?")."""
    for m in _LOOSE_RUN.finditer(text):
        if not (cued or has_cue(text, m.start(), _PHONE_CUE)) or business_context(text, m.start(), end=m.end()):
            continue
        run = m.group()
        if _RUN_WORDY.search(run) is None:  # digits and separators only: the digits are the norm
            norm = _NOT_DIGIT.sub("", run)
        else:
            norm = "".join(_HOMOPHONES.get(t.lower(), t) for t in _RUN_TOKEN.findall(run))
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
    for region in _regions(tuple(regions)):
        for m in PhoneNumberMatcher(text, region, leniency=Leniency.VALID):
            span = (m.start, m.end)
            if span in seen:
                continue
            seen.add(span)
            if not m.raw_string.startswith("+") and business_context(text, m.start, end=m.end):
                continue
            norm = phonenumbers.format_number(m.number, PhoneNumberFormat.E164)
            yield Match("phone", m.start, m.end, 0.9 if m.raw_string.startswith("+") else 0.8, "phonenumbers", norm)
