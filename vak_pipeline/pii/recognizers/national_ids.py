"""Government ids per locale: US SSN, UK NI number and NHS number, Aadhaar and PAN, China resident id.

Each has a shape and, where one exists, a checksum; numbers right after a business cue ("order",
"ticket", "订单") are left alone unless a personal cue ("aadhaar", "nhs") is closer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...locales.packfile import cue_alternation
from .base import Match, business_context, digits_of, has_cue, shared_cues
from .checksums import aadhaar_ok, cn_resident_id_ok, nhs_ok, us_ssn_ok

_SSN_RE = re.compile(r"(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])")
_SSN_BARE_RE = re.compile(r"(?<!\d)\d{9}(?!\d)")
# The words before each id ("ssn", "nhs", "aadhaar", "आधार") are data: `cues.<lang>.<type>` in en-US,
# en-GB, en-IN and hi-IN.
_SSN_CUE = re.compile(cue_alternation(shared_cues("us_ssn")), re.IGNORECASE)

_NINO_RE = re.compile(
    r"(?<![A-Za-z0-9])(?!BG|GB|NK|KN|TN|NT|ZZ)"
    r"[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])", re.IGNORECASE)
_NINO_CUE = re.compile(cue_alternation(shared_cues("uk_nino")), re.IGNORECASE)

_NHS_RE = re.compile(r"(?<![\d+])(\d{3})([ -]?)(\d{3})\2(\d{4})(?!\d)")
_NHS_CUE = re.compile(cue_alternation(shared_cues("uk_nhs")), re.IGNORECASE)

_AADHAAR_RE = re.compile(r"(?<![\d+])[2-9]\d{3}([ -]?)\d{4}\1\d{4}(?!\d)")
_AADHAAR_CUE = re.compile(cue_alternation(shared_cues("in_aadhaar")), re.IGNORECASE)

_PAN_RE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z](?![A-Za-z0-9])", re.IGNORECASE)
_PAN_CUE = re.compile(cue_alternation(shared_cues("in_pan")), re.IGNORECASE)

_CN_ID_RE = re.compile(
    r"(?<![0-9])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[0-9Xx](?![0-9A-Za-z])")


def find_us_ssn(text: str) -> Iterator[Match]:
    for m in _SSN_RE.finditer(text):
        area, group, serial = m.group(1), m.group(3), m.group(4)
        if not us_ssn_ok(area + group + serial):
            continue
        if business_context(text, m.start(), end=m.end()):
            continue
        yield Match("us_ssn", m.start(), m.end(), 0.85, "ssn", area + group + serial)
    for m in _SSN_BARE_RE.finditer(text):
        if has_cue(text, m.start(), _SSN_CUE):
            yield Match("us_ssn", m.start(), m.end(), 0.8, "ssn", m.group())


def find_uk_nino(text: str) -> Iterator[Match]:
    for m in _NINO_RE.finditer(text):
        raw = m.group()
        if not raw.isupper() and not has_cue(text, m.start(), _NINO_CUE):
            continue
        yield Match("uk_nino", m.start(), m.end(), 0.9, "nino", raw.replace(" ", "").upper())


def find_uk_nhs(text: str) -> Iterator[Match]:
    for m in _NHS_RE.finditer(text):
        d = digits_of(m.group())
        if not nhs_ok(d) or len(set(d)) == 1:
            continue
        cued = has_cue(text, m.start(), _NHS_CUE)
        if not cued and business_context(text, m.start(), end=m.end()):
            continue
        yield Match("uk_nhs", m.start(), m.end(), 0.95 if cued else 0.7, "nhs_mod11", d)


def find_in_aadhaar(text: str) -> Iterator[Match]:
    for m in _AADHAAR_RE.finditer(text):
        d = digits_of(m.group())
        if not aadhaar_ok(d):
            continue
        cued = has_cue(text, m.start(), _AADHAAR_CUE)
        if not cued and business_context(text, m.start(), end=m.end()):
            continue
        grouped = bool(m.group(1))
        yield Match("in_aadhaar", m.start(), m.end(), 0.95 if cued else (0.85 if grouped else 0.75), "verhoeff", d)


def find_in_pan(text: str) -> Iterator[Match]:
    for m in _PAN_RE.finditer(text):
        raw = m.group()
        if not raw.isupper() and not has_cue(text, m.start(), _PAN_CUE):
            continue
        yield Match("in_pan", m.start(), m.end(), 0.85, "pan", raw.upper())


def find_cn_resident_id(text: str) -> Iterator[Match]:
    for m in _CN_ID_RE.finditer(text):
        if cn_resident_id_ok(m.group()):
            yield Match("cn_resident_id", m.start(), m.end(), 0.95, "gb11643", m.group().upper())
