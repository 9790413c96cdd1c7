"""Street addresses (house number + street, flat/house prefixes, cue + postal code; Chinese road + 号)
and UK postcodes. A bare PIN/ZIP or city is not an address: a street or a cue must be there too."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import Match

_STOPS = (r"(?:a|an|the|and|or|at|on|in|to|of|for|from|my|is|was|by|with|it|this|that|your|our|order|orders|items?|"
          r"rs|inr|rupees|dollars|pounds|minutes?|hours?|days?|times?|am|pm)")
_WORD = rf"(?!{_STOPS}\b)[A-Za-z][A-Za-z'.\-]*"
_SUFFIX = (r"(?:street|st|road|rd|lane|ln|avenue|ave|drive|dr|close|way|place|pl|court|ct|boulevard|blvd|crescent|"
           r"terrace|gardens|marg|nagar|colony|highway|hwy|square|sq|parkway|circle|mews|row|grove|hill|park)\b\.?")
UK_POSTCODE = r"(?:GIR ?0AA|[A-Z]{1,2}\d[A-Z\d]? ?\d[ABD-HJLNP-UW-Z]{2})"
_POSTAL = (r"(?:(?<!\d)\d{6}(?!\d)|(?<!\d)\d{3} \d{3}(?!\d)|(?:[A-Z]{2} )?(?<!\d)\d{5}(?:-\d{4})?(?!\d)"
           rf"|\b{UK_POSTCODE}\b)")
_SEGMENT = r"(?:,\s*|\s+)[^,.\n\d]{2,30}?"
_TAIL = rf"(?:(?:{_SEGMENT}){{0,3}}?,?\s*{_POSTAL})?"

_STREET_RE = re.compile(
    rf"(?<![\w/-])\d{{1,5}}[A-Za-z]?(?:[/-]\d{{1,4}}[A-Za-z]?)?,?\s+(?:{_WORD}\s+){{0,4}}{_SUFFIX}{_TAIL}",
    re.IGNORECASE)
_UNIT_RE = re.compile(
    rf"\b(?:flat|house|apt|apartment|plot|door|unit|h\.?\s?no\.?|house\s+no\.?|flat\s+no\.?)\s*(?:no\.?\s*)?"
    rf"#?[A-Za-z]?-?\d{{1,5}}[A-Za-z]?(?:(?:,\s*|\s+)[^,.\n]{{2,40}}?){{1,5}}?(?:,?\s*{_POSTAL}|{_SUFFIX})",
    re.IGNORECASE)
_CUE_POSTAL_RE = re.compile(
    rf"(?:\b(?:i\s+live\s+at|live\s+at|address\s+is|address\s*:|address\s+hai|mera\s+address|mera\s+pata|"
    rf"deliver\s+(?:it\s+)?to|ship\s+(?:it\s+)?to|staying\s+at)|पता|रहता\s+हूँ|रहती\s+हूँ)\s*(?:hai|है|is)?\s*:?\s*"
    rf"(\S[^\n]{{3,80}}?,?\s*{_POSTAL})",
    re.IGNORECASE)
_ZH_RE = re.compile(
    r"(?:(?<=住在)|(?<=住址是)|(?<=地址是)|(?<=地址：)|(?<=地址:)|(?<=送到)|(?<=寄到)|(?<=家在)|(?<=住址：))"
    r"[\u4e00-\u9fff]{1,20}?(?:路|街|大道|巷|弄|胡同|道)[0-9一二三四五六七八九十百]+号"
    r"(?:[0-9一二三四五六七八九十]+(?:号楼|栋|单元|室|楼|层|号))*")
_UK_POSTCODE_RE = re.compile(rf"(?<![A-Za-z0-9]){UK_POSTCODE}(?![A-Za-z0-9])")
_UK_POSTCODE_CUE_RE = re.compile(rf"\bpost\s?code\s+(?:is\s+)?({UK_POSTCODE})\b", re.IGNORECASE)
_STREET_GATE = re.compile(rf"\b{_SUFFIX}", re.IGNORECASE)
_UNIT_GATE = re.compile(r"\b(?:flat|house|apt|apartment|plot|door|unit|h\.?\s?no)\b", re.IGNORECASE)
_CUE_GATE = re.compile(r"\b(?:live|address|pata|deliver|ship|staying)\b|पता|रहत", re.IGNORECASE)
_ZH_GATE = re.compile(r"住|地址|送到|寄到|家在")
_ANY_DIGIT = re.compile(r"\d")


def addr_norm(s: str) -> str:
    return " ".join(re.sub(r"[,.]", " ", s.lower()).split())


def find_addresses(text: str) -> Iterator[Match]:
    if not _ANY_DIGIT.search(text):  # every address form here carries a house, flat or postal number
        return
    street = _STREET_GATE.search(text) is not None
    if street:
        for m in _STREET_RE.finditer(text):
            yield Match("address", m.start(), m.end(), 0.85, "street", addr_norm(m.group()))
    if _UNIT_GATE.search(text):
        for m in _UNIT_RE.finditer(text):
            yield Match("address", m.start(), m.end(), 0.85, "unit", addr_norm(m.group()))
    if _CUE_GATE.search(text):
        for m in _CUE_POSTAL_RE.finditer(text):
            yield Match("address", m.start(1), m.end(1), 0.8, "cue_postal", addr_norm(m.group(1)))
    if _ZH_GATE.search(text):
        for m in _ZH_RE.finditer(text):
            yield Match("address", m.start(), m.end(), 0.85, "zh_address", m.group())


def find_uk_postcodes(text: str) -> Iterator[Match]:
    for m in _UK_POSTCODE_RE.finditer(text):
        yield Match("uk_postcode", m.start(), m.end(), 0.7, "uk_postcode", m.group().replace(" ", "").upper())
    for m in _UK_POSTCODE_CUE_RE.finditer(text):
        if not m.group(1).isupper():
            yield Match("uk_postcode", m.start(1), m.end(1), 0.7, "uk_postcode", m.group(1).replace(" ", "").upper())
