"""Phone numbers via libphonenumber (PhoneNumberMatcher, Leniency.VALID) in the pack's regions.

VALID rejects digit strings that merely look like numbers ("order 123456789012"); a cheap prefilter
skips the matcher entirely unless the text has a run of six or more digits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import phonenumbers
from phonenumbers import Leniency, PhoneNumberFormat, PhoneNumberMatcher

from .base import Match, business_context

_DIGIT_RUN = re.compile(r"\d(?:[\s().\-/]{0,2}\d){5,}")


def find_phones(text: str, regions: tuple[str, ...]) -> Iterator[Match]:
    if not _DIGIT_RUN.search(text):
        return
    seen: set[tuple[int, int]] = set()
    for region in regions or ("US",):
        for m in PhoneNumberMatcher(text, region, leniency=Leniency.VALID):
            span = (m.start, m.end)
            if span in seen:
                continue
            seen.add(span)
            if not m.raw_string.startswith("+") and business_context(text, m.start):
                continue
            norm = phonenumbers.format_number(m.number, PhoneNumberFormat.E164)
            yield Match("phone", m.start, m.end, 0.9 if m.raw_string.startswith("+") else 0.8, "phonenumbers", norm)
