"""Government ids per locale: US SSN, UK NI number and NHS number, Aadhaar and PAN, China resident id.

Each is a declared PatternRecognizer (engine.py): a shape and, where one exists, a checksum; numbers right
after a business cue ("order", "ticket", "订单") are left alone unless a personal cue ("aadhaar", "nhs") is
closer or the id's own cue is before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...locales.packfile import cue_alternation
from .base import digits_of, shared_cues
from .checksums import aadhaar_ok, cn_resident_id_ok, nhs_ok, us_ssn_ok
from .engine import Pattern, PatternRecognizer, chain

# The words before each id ("ssn", "nhs", "aadhaar", "आधार") are data: `cues.<lang>.<type>` in en-US,
# en-GB, en-IN and hi-IN.
_SSN_CUE = re.compile(cue_alternation(shared_cues("us_ssn")), re.IGNORECASE)
_NINO_CUE = re.compile(cue_alternation(shared_cues("uk_nino")), re.IGNORECASE)
_NHS_CUE = re.compile(cue_alternation(shared_cues("uk_nhs")), re.IGNORECASE)
_AADHAAR_CUE = re.compile(cue_alternation(shared_cues("in_aadhaar")), re.IGNORECASE)
_PAN_CUE = re.compile(cue_alternation(shared_cues("in_pan")), re.IGNORECASE)


def _checked(ok: Callable[[str], bool], repeated: bool = True) -> Callable[[str], str | None]:
    """A validator: the value's digits when they pass `ok` (and, unless `repeated`, are not one digit
    repeated: 000 000 0000 passes the NHS check)."""
    def validate(value: str) -> str | None:
        d = digits_of(value)
        return d if ok(d) and (repeated or len(set(d)) > 1) else None
    return validate


def _compact_upper(value: str) -> str:
    return value.replace(" ", "").upper()


US_SSN = chain(
    PatternRecognizer("us_ssn", "ssn", (Pattern(re.compile(r"(?<![\d-])\d{3}([- ])\d{2}\1\d{4}(?![\d-])"), 0.85),),
                      _checked(us_ssn_ok), business=32, business_after=True),
    PatternRecognizer("us_ssn", "ssn", (Pattern(re.compile(r"(?<!\d)\d{9}(?!\d)"), 0.8),), str,
                      context=_SSN_CUE, needs="context"),  # nine bare digits: only after an SSN cue
)
UK_NINO = PatternRecognizer(
    "uk_nino", "nino",
    (Pattern(re.compile(r"(?<![A-Za-z0-9])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
                        r" ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])", re.IGNORECASE), 0.9),),
    _compact_upper, context=_NINO_CUE, needs="context_or_upper",
)
UK_NHS = PatternRecognizer(
    "uk_nhs", "nhs_mod11", (Pattern(re.compile(r"(?<![\d+])\d{3}([ -]?)\d{3}\1\d{4}(?!\d)"), 0.7),),
    _checked(nhs_ok, repeated=False), context=_NHS_CUE, context_score=0.95, business=32, business_after=True,
)
IN_AADHAAR = PatternRecognizer(
    "in_aadhaar", "verhoeff",
    (Pattern(re.compile(r"(?<![\d+])[2-9]\d{3}([ -])\d{4}\1\d{4}(?!\d)"), 0.85),  # grouped as printed
     Pattern(re.compile(r"(?<![\d+])[2-9]\d{11}(?!\d)"), 0.75)),
    _checked(aadhaar_ok), context=_AADHAAR_CUE, context_score=0.95, business=32, business_after=True,
)
IN_PAN = PatternRecognizer(
    "in_pan", "pan",
    (Pattern(re.compile(r"(?<![A-Za-z0-9])[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z](?![A-Za-z0-9])", re.IGNORECASE), 0.85),),
    str.upper, context=_PAN_CUE, needs="context_or_upper",
)
CN_RESIDENT_ID = PatternRecognizer(
    "cn_resident_id", "gb11643",
    (Pattern(re.compile(r"(?<![0-9])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[0-9Xx]"
                        r"(?![0-9A-Za-z])"), 0.95),),
    lambda v: v.upper() if cn_resident_id_ok(v) else None,
)
