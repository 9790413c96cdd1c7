"""Postal codes outside the UK: an Indian PIN, a Chinese 邮编, a US ZIP (or ZIP+4).

A bare five- or six-digit number is an amount, an order or an OTP far more often than a postcode, so
these need their cue, in each language of the pack: "pin code", "pincode", "पिन कोड" / "邮编",
"邮政编码" / "zip", "zip code", "postal code" (a US state before a ZIP also counts: "Austin, TX 78701").
The cue words are data: `cues.<lang>.postcode` in the pack files that list the type.
Addresses that end in a postcode are found whole by `addresses`; the longer match wins there. Each is a
declared PatternRecognizer (engine.py): the cue is part of its pattern, the value its group.
"""

from __future__ import annotations

import re

from ...locales.packfile import cue_alternation
from ...locales.registry import BUILTIN_PACKS
from .base import THOUSANDS, digits_of, shared
from .engine import Pattern, PatternRecognizer


def _cues(ptype: str) -> str:
    """The postcode cues of the built-in packs that list `ptype` (`shared_cues: true`: en-US for us_zip,
    en-IN and hi-IN for in_pin, zh-CN for cn_postcode). A space matches any whitespace in every script
    ("पिन कोड"); the files also list the forms without it ("पिनकोड", "zipcode")."""
    words = [
        w
        for p in BUILTIN_PACKS.values()
        if p.rules is not None and ptype in p.pii_types
        for w in p.rules.shared_cue_words.get("postcode", ())
    ]
    return cue_alternation(words, other_gap=r"\s+")


_GAP = r"[^\d\n]{0,24}?"  # "pin code is", "pincode hai", "邮编是", "zip code, uh,"
_SEP = r"(?:[ \-.]|, ?)?"  # ASR writes spoken digits as "5-1-1-3-1-2" or "5 1 1, 3 1 2"
_IN_CUE = re.compile(_cues("in_pin"), re.IGNORECASE)
_CN_CUE = re.compile(_cues("cn_postcode"), re.IGNORECASE)
_US_CUE = re.compile(_cues("us_zip"), re.IGNORECASE)
_IN_PIN_RE = re.compile(rf"{_IN_CUE.pattern}{_GAP}(?<!\d)([1-9](?:{_SEP}\d){{5}})(?!{_SEP}?\d)", re.IGNORECASE)
_CN_RE = re.compile(rf"{_CN_CUE.pattern}{_GAP}(?<!\d)(\d(?:{_SEP}\d){{5}})(?!{_SEP}?\d)", re.IGNORECASE)
_US_RE = re.compile(
    rf"{_US_CUE.pattern}{_GAP}(?<!\d)(\d(?:{_SEP}\d){{4}}(?:\s?-\s?\d{{4}})?)(?!{_SEP}?\d)", re.IGNORECASE
)
# the US states before a ZIP: `address_words.en.regions` in en-US
_STATES = shared("address_words", "regions")
_US_STATE_RE = re.compile(rf",\s*(?:{'|'.join(_STATES) or '(?!)'})\s+(\d{{5}}(?:-\d{{4}})?)(?!\d)")


def _code(value: str) -> str | None:
    return None if THOUSANDS.search(value) else digits_of(value)


IN_PIN = PatternRecognizer("in_pin", "pin_cue", (Pattern(_IN_PIN_RE, 0.85, 1),), _code)
CN_POSTCODE = PatternRecognizer("cn_postcode", "postcode_cue", (Pattern(_CN_RE, 0.85, 1),), digits_of)
US_ZIP = PatternRecognizer("us_zip", "zip_cue", (Pattern(_US_RE, 0.85, 1), Pattern(_US_STATE_RE, 0.85, 1)), _code)
