"""Street addresses (house number + street, flat/house prefixes, cue + postal code; Chinese road + 号)
and UK postcodes. A bare PIN/ZIP or city is not an address: a street or a cue must be there too."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import Match, latin_words

_STOPS = (r"(?:a|an|the|and|or|at|on|in|to|of|for|from|my|is|was|by|with|it|this|that|your|our|order|orders|items?|"
          r"rs|inr|rupees|dollars|pounds|minutes?|hours?|days?|times?|am|pm)")
_WORD = rf"(?!{_STOPS}\b)[A-Za-z][A-Za-z'.\-]*"
_SUFFIX = (r"(?:street|st|road|rd|lane|ln|avenue|ave|drive|dr|close|way|place|pl|court|ct|boulevard|blvd|crescent|"
           r"terrace|gardens|marg|nagar|colony|highway|hwy|square|sq|parkway|circle|mews|row|grove|hill|park|"
           r"vihar|enclave|apartments?|society|layout|mohalla|chowk|bazaar|bazar|puram|extension|heights|residency|towers?|"
           r"complex|plaza|villas?|niwas|sadan|bhavan|bhawan)\b\.?")
UK_POSTCODE = r"(?:GIR ?0AA|[A-Z]{1,2}\d[A-Z\d]? ?\d[ABD-HJLNP-UW-Z]{2})"
_POSTAL = (r"(?:(?<!\d)\d{6}(?!\d)|(?<!\d)\d{3} \d{3}(?!\d)|(?:[A-Z]{2} )?(?<!\d)\d{5}(?:-\d{4})?(?!\d)"
           rf"|\b{UK_POSTCODE}\b)")
_SEGMENT = r"(?:,\s*|\s+)[^,.\n\d]{2,30}?"
_TAIL = rf"(?:(?:{_SEGMENT}){{0,3}}?,?\s*{_POSTAL})?"

_STREET_RE = re.compile(
    rf"(?<![\w/-])\d{{1,5}}[A-Za-z]?(?:[/-]\d{{1,4}}[A-Za-z]?)?,?\s+(?:{_WORD}\s+){{0,4}}{_SUFFIX}{_TAIL}",
    re.IGNORECASE)
_UNIT_RE = re.compile(
    rf"\b(?:flat|house|apt|apartment|plot|door|unit|makaan|makan|ghar|h\.?\s?no\.?|house\s+no\.?|flat\s+no\.?)\s*"
    rf"(?:no\.?\s*|number\s*|nambar\s*|num\s*)?"
    rf"#?[A-Za-z]?-?\d{{1,5}}[A-Za-z]?(?:(?:,\s*|\s+)[^,.\n]{{2,40}}?){{1,5}}?(?:,?\s*{_POSTAL}|{_SUFFIX}{_TAIL})",
    re.IGNORECASE)
_CUE_POSTAL_RE = re.compile(
    rf"(?:\b(?:i\s+live\s+at|live\s+at|address\s+is|address\s*:|address\s+hai|mera\s+address|mera\s+pata|"
    rf"deliver\s+(?:it\s+)?to|ship\s+(?:it\s+)?to|staying\s+at)|पता|रहता\s+हूँ|रहती\s+हूँ)\s*(?:hai|है|is)?\s*:?\s*"
    rf"(\S[^\n]{{3,80}}?,?\s*{_POSTAL})",
    re.IGNORECASE)
# After "I live at" / "my address is", a house number and the words up to the comma are the address
# even when ASR garbled the street word that _STREET_RE needs ("33 maples treat" for "33 Maple Street").
_CUE_HOUSE_RE = re.compile(
    rf"\b(?:live\s+at|address\s+is)\s+(\d{{1,5}}[A-Za-z]{{0,2}},?\s+{_WORD}"
    rf"(?:(?:\s+[A-Za-z][A-Za-z'.\-]*){{0,2}}\s+{_WORD})?)", re.IGNORECASE)
_ZH_RE = re.compile(
    r"(?:(?<=住在)|(?<=住址是)|(?<=地址是)|(?<=地址：)|(?<=地址:)|(?<=送到)|(?<=寄到)|(?<=家在)|(?<=住址：)|(?<=收货地址是)|(?<=收货地址)|(?<=地址在))"
    r"[\u4e00-\u9fff]{1,20}?(?:路|街|大道|巷|弄|胡同|道)[0-9一二三四五六七八九十百]+号"
    r"(?:[0-9一二三四五六七八九十]+(?:号楼|栋|幢|座|单元|室|楼|层|号|户)|[A-Za-z](?:座|栋))*")
# Chinese: [province/city/district ...] road + 号 [+ building/unit/room], with a cue (住在, 地址是 ...) or,
# without one, when district-level and road-level parts are both there (朝阳区建国路88号).
_ZH_NUM = r"[0-9一二三四五六七八九十百零〇两]+"
_ZH_BLDG = rf"(?:{_ZH_NUM}(?:号楼|栋|幢|座|单元|楼|层|室|号|户)|[A-Za-z](?:座|栋))*"
_ZH_STRICT_RE = re.compile(
    r"(?:[\u4e00-\u9fff]{2,8}?(?:省|自治区))?(?:[\u4e00-\u9fff]{1,6}?市)?[\u4e00-\u9fff]{1,6}?(?:区|县|镇|乡)"
    rf"[\u4e00-\u9fff]{{1,12}}?(?:路|街|大道|大街|巷|弄|胡同|道){_ZH_NUM}号{_ZH_BLDG}"
    rf"|[\u4e00-\u9fff]{{2,12}}?(?:小区|花园|公寓|大厦|新村|苑){_ZH_NUM}(?:号楼|栋|幢|座){_ZH_BLDG}")
_ZH_LEAD = re.compile(r"(?:[我你他她]的?)?(?:家)?(?:住在|住址是|地址是|地址在|收货地址是?|寄到|送到|家在|在|是|住)+")
_ZH_STRICT_GATE = re.compile(r"[区县镇乡][^，。]{1,14}?[路街巷弄道]|小区|花园|公寓|大厦|新村|苑")
# India: "sector 15", "gali number 3", "H-42, Lajpat Nagar" pieces; Devanagari house/flat forms.
_IN_SECTOR_RE = re.compile(
    r"\b(?:(?:house|flat|plot|h|makaan|makan)\s*(?:no\.?|number)?\s*[A-Za-z]?-?\d{1,5}[A-Za-z]?,?\s+)?"
    r"(?:sector|sec|phase|block|gali|lane)\s*(?:no\.?|number)?\s*-?\s*\d{1,3}[A-Za-z]?"
    r"(?:,?\s+(?![0-9])[A-Za-z][A-Za-z.]*(?:\s+(?:east|west|north|south|extension|nagar|colony|vihar))?){0,2}"
    rf"(?:,?\s*{_POSTAL})?",
    re.IGNORECASE)
_DEVA_ADDR_RE = re.compile(
    r"(?:मकान|फ्लैट|फ़्लैट|हाउस|प्लॉट|घर)\s*(?:नंबर|नम्बर|नं\.?|संख्या)?\s*[0-9०-९]{1,5}"
    r"(?:[,\s]+[\u0900-\u097F0-9०-९]+){0,6}[,\s]+(?:[\u0900-\u097F]+\s+)?(?:नगर|कॉलोनी|कालोनी|विहार|मार्ग|सेक्टर\s*[0-9]+|"
    r"गली\s*(?:नंबर|नं\.?)?\s*[0-9]+|मोहल्ला|रोड|चौक)(?:[,\s]+(?:पिन\s*कोड\s*)?[1-9][0-9]{5})?")
_DEVA_GATE = re.compile(r"मकान|फ्लैट|फ़्लैट|हाउस|प्लॉट|घर")
_UK_POSTCODE_RE = re.compile(rf"(?<![A-Za-z0-9]){UK_POSTCODE}(?![A-Za-z0-9])")
_UK_POSTCODE_CUE_RE = re.compile(rf"\bpost\s?code\s+(?:is\s+)?({UK_POSTCODE})\b", re.IGNORECASE)
# keyword gates: one set intersection over the text's words instead of a regex scan per form
_STREET_WORDS = frozenset(re.findall(r"[a-z]+", _SUFFIX.split("\\b")[0])) | {"apartment", "tower", "villa"}
_UNIT_WORDS = frozenset("flat house apt apartment plot door unit makaan makan ghar h hno".split())
_CUE_WORDS = frozenset("live address pata deliver ship staying".split())
_SECTOR_WORDS = frozenset("sector sec phase block gali".split())
_CUE_GATE_NONLATIN = re.compile(r"पता|रहत")
_ZH_GATE = re.compile(r"住|地址|送到|寄到|家在")
_ANY_DIGIT = re.compile(r"\d")
_ZH_NUMERAL = re.compile(r"[一二三四五六七八九十百零〇两][号栋室楼层]")


def addr_norm(s: str) -> str:
    return " ".join(re.sub(r"[,.]", " ", s.lower()).split())


def find_addresses(text: str, words: frozenset[str] | None = None, has_number: bool = False) -> Iterator[Match]:
    """Every address form below; pieces that touch ("77 Larkspur Court" + ", apartment 4B, Boise, ID
    83702") are one address. `words`: latin_words(text), when the caller has it; `has_number`: the caller
    knows the text has a digit or a Chinese numeral before a building word."""
    found = list(_find_addresses(text, words, has_number))
    if len(found) < 2:
        yield from found
        return
    found.sort(key=lambda m: (m.start, -m.end))
    merged: list[Match] = []
    for m in found:
        last = merged[-1] if merged else None
        if last is not None and m.start <= last.end + 2 and text[last.end:m.start].strip(", ") == "":
            if m.end > last.end:
                merged[-1] = Match("address", last.start, m.end, max(last.score, m.score), last.recognizer,
                                   addr_norm(text[last.start:m.end]))
            continue
        merged.append(m)
    yield from merged


def _find_addresses(text: str, words: frozenset[str] | None, has_number: bool) -> Iterator[Match]:
    if not has_number and not _ANY_DIGIT.search(text) and not _ZH_NUMERAL.search(text):
        return  # every form carries a number
    if words is None:
        words = latin_words(text)
    ascii_text = text.isascii()
    if not _STREET_WORDS.isdisjoint(words):
        for m in _STREET_RE.finditer(text):
            yield Match("address", m.start(), m.end(), 0.85, "street", addr_norm(m.group()))
    if not _UNIT_WORDS.isdisjoint(words):
        for m in _UNIT_RE.finditer(text):
            yield Match("address", m.start(), m.end(), 0.85, "unit", addr_norm(m.group()))
    if not _CUE_WORDS.isdisjoint(words) or (not ascii_text and _CUE_GATE_NONLATIN.search(text)):
        for m in _CUE_POSTAL_RE.finditer(text):
            yield Match("address", m.start(1), m.end(1), 0.8, "cue_postal", addr_norm(m.group(1)))
        for m in _CUE_HOUSE_RE.finditer(text):
            yield Match("address", m.start(1), m.end(1), 0.7, "cue_house", addr_norm(m.group(1)))
    if ascii_text:
        if not _SECTOR_WORDS.isdisjoint(words):
            for m in _IN_SECTOR_RE.finditer(text):
                yield Match("address", m.start(), m.end(), 0.75, "in_sector", addr_norm(m.group()))
        return
    if _ZH_GATE.search(text):
        for m in _ZH_RE.finditer(text):
            yield Match("address", m.start(), m.end(), 0.85, "zh_address", m.group())
    if _ZH_STRICT_GATE.search(text):
        for m in _ZH_STRICT_RE.finditer(text):
            cue = _ZH_LEAD.match(m.group())  # "我住在北京市..." -> "北京市..."
            s = m.start() + (cue.end() if cue else 0)
            if m.end() - s >= 6:
                yield Match("address", s, m.end(), 0.8, "zh_address", text[s:m.end()])
    if not _SECTOR_WORDS.isdisjoint(words):
        for m in _IN_SECTOR_RE.finditer(text):
            yield Match("address", m.start(), m.end(), 0.75, "in_sector", addr_norm(m.group()))
    if _DEVA_GATE.search(text):
        for m in _DEVA_ADDR_RE.finditer(text):
            yield Match("address", m.start(), m.end(), 0.8, "deva_address", addr_norm(m.group()))


def find_uk_postcodes(text: str) -> Iterator[Match]:
    for m in _UK_POSTCODE_RE.finditer(text):
        yield Match("uk_postcode", m.start(), m.end(), 0.7, "uk_postcode", m.group().replace(" ", "").upper())
    for m in _UK_POSTCODE_CUE_RE.finditer(text):
        if not m.group(1).isupper():
            yield Match("uk_postcode", m.start(1), m.end(1), 0.7, "uk_postcode", m.group(1).replace(" ", "").upper())
