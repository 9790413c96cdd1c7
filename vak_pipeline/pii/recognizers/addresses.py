"""Street addresses (house number + street, flat/house prefixes, cue + postal code; Chinese road + 号)
and UK postcodes. A bare PIN/ZIP or city is not an address: a street or a cue must be there too."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .base import Keywords, Match, latin_words, lead_words, phrase_words, shared
from .engine import Pattern, PatternRecognizer


def _words(role: str, script: str = "latin") -> tuple[str, ...]:
    """`address_words.<lang>.<role>` of the built-in packs with `shared_cues: true` (en-US, en-GB, en-IN,
    hi-Latn-IN, hi-IN, zh-CN) in one script, in file order: regex alternatives, most of them plain words."""
    return shared("address_words", role, script)


def _cues(script: str) -> list[str]:
    """The address cues of the built-in packs (`cues.<lang>.address`: "i live at", "पता", "住在") in one script,
    as regexes: a space matches any whitespace."""
    return [r"\s+".join(map(re.escape, w.split())) for w in shared("cue_words", "address", script)]


def _alt(items: Sequence[str]) -> str:
    return "(?:" + ("|".join(items) or "(?!)") + ")"


# The words of every form are data (`address_words` in the built-in pack files, docs/locale-packs.md); the
# shapes stay here: house numbers, postcodes, how many words a street name has, where the pieces go.
_STOPS = _alt(_words("not_street"))
_WORD = rf"(?!{_STOPS}\b)[A-Za-z][A-Za-z'.\-]*"
_SUFFIX = rf"{_alt(_words('street'))}\b\.?"
UK_POSTCODE = r"(?:GIR ?0AA|[A-Z]{1,2}\d[A-Z\d]? ?\d[ABD-HJLNP-UW-Z]{2})"
_POSTAL = (r"(?:(?<!\d)\d{6}(?!\d)|(?<!\d)\d{3} \d{3}(?!\d)|(?:[A-Z]{2} )?(?<!\d)\d{5}(?:-\d{4})?(?!\d)"
           rf"|\b{UK_POSTCODE}\b)")
_SEGMENT = r"(?:,\s*|\s+)[^,.\n\d]{2,30}?"
_TAIL = rf"(?:(?:{_SEGMENT}){{0,3}}?,?\s*{_POSTAL})?"

_STREET_RE = re.compile(
    rf"(?<![\w/-])\d{{1,5}}[A-Za-z]?(?:[/-]\d{{1,4}}[A-Za-z]?)?,?\s+(?:{_WORD}\s+){{0,4}}{_SUFFIX}{_TAIL}",
    re.IGNORECASE)
_UNIT_RE = re.compile(
    rf"\b{_alt(_words('unit'))}\s*(?:{_alt(_words('unit_number'))}\s*)?"
    rf"#?[A-Za-z]?-?\d{{1,5}}[A-Za-z]?(?:(?:,\s*|\s+)[^,.\n]{{2,40}}?){{1,5}}?(?:,?\s*{_POSTAL}|{_SUFFIX}{_TAIL})",
    re.IGNORECASE)
_CUE_LINKS = _alt(_words("cue_links") + _words("cue_links", "deva"))
_CUE_POSTAL_RE = re.compile(
    rf"(?:\b{_alt(_cues('latin'))}|{'|'.join(_cues('deva')) or '(?!)'})\s*{_CUE_LINKS}?"
    rf"\s*:?\s*(\S[^\n]{{3,80}}?,?\s*{_POSTAL})",
    re.IGNORECASE)
# After "I live at" / "my address is", a house number and the words up to the comma are the address
# even when ASR garbled the street word that _STREET_RE needs ("33 maples treat" for "33 Maple Street").
# Its cues are their own list (address_words.<lang>.house_cue), not every address cue: with the others
# ("deliver to", "mera pata") this looser form would take far more.
_CUE_HOUSE_RE = re.compile(
    rf"\b{_alt(_words('house_cue'))}\s+(\d{{1,5}}[A-Za-z]{{0,2}},?\s+{_WORD}"
    rf"(?:(?:\s+[A-Za-z][A-Za-z'.\-]*){{0,2}}\s+{_WORD})?)", re.IGNORECASE)
# Chinese: [province/city/district ...] road + 号 [+ building/unit/room], with a cue (住在, 地址是 ...) or,
# without one, when district-level and road-level parts are both there (朝阳区建国路88号).
_ZH_NUM = r"[0-9一二三四五六七八九十百零〇两]+"
_ZH_ROAD = _alt(_words("street", "han"))
_ZH_MARK = _alt(_words("number_mark", "han"))
_ZH_LETTER = rf"[A-Za-z]{_alt(_words('letter_building', 'han'))}"
_ZH_RE = re.compile(
    _alt([f"(?<={c})" for c in _cues("han")])
    + rf"[\u4e00-\u9fff]{{1,20}}?{_ZH_ROAD}[0-9一二三四五六七八九十百]+{_ZH_MARK}"
    rf"(?:[0-9一二三四五六七八九十]+{_alt(_words('building', 'han'))}|{_ZH_LETTER})*")
_ZH_BLDG = rf"(?:{_ZH_NUM}{_alt(_words('building', 'han'))}|{_ZH_LETTER})*"
_ZH_PROVINCE, _ZH_CITY, _ZH_DISTRICT = (_alt(_words(r, "han")) for r in ("province", "city", "district"))
_ZH_ESTATE, _ZH_ESTATE_BLDG = _alt(_words("estate", "han")), _alt(_words("estate_building", "han"))
_ZH_STRICT_RE = re.compile(
    rf"(?:[\u4e00-\u9fff]{{2,8}}?{_ZH_PROVINCE})?(?:[\u4e00-\u9fff]{{1,6}}?{_ZH_CITY})?[\u4e00-\u9fff]{{1,6}}?{_ZH_DISTRICT}"
    rf"[\u4e00-\u9fff]{{1,12}}?{_ZH_ROAD}{_ZH_NUM}{_ZH_MARK}{_ZH_BLDG}"
    rf"|[\u4e00-\u9fff]{{2,12}}?{_ZH_ESTATE}{_ZH_NUM}{_ZH_ESTATE_BLDG}{_ZH_BLDG}")
_ZH_LEAD = re.compile(
    rf"{_alt(_words('lead_owners', 'han'))}?{_alt(_words('lead_home', 'han'))}?{_alt(_words('lead', 'han'))}+"
)
# India: "sector 15", "gali number 3", "H-42, Lajpat Nagar" pieces; Devanagari house/flat forms.
_SECTOR_NUMBER = _alt(_words("sector_number"))
_IN_SECTOR_RE = re.compile(
    rf"\b(?:{_alt(_words('sector_house'))}\s*{_SECTOR_NUMBER}?\s*[A-Za-z]?-?\d{{1,5}}[A-Za-z]?,?\s+)?"
    rf"{_alt(_words('sector') + _words('sector_more'))}\s*{_SECTOR_NUMBER}?\s*-?\s*\d{{1,3}}[A-Za-z]?"
    rf"(?:,?\s+(?![0-9])[A-Za-z][A-Za-z.]*(?:\s+{_alt(_words('locality'))})?){{0,2}}"
    rf"(?:,?\s*{_POSTAL})?",
    re.IGNORECASE)
_DEVA_ADDR_RE = re.compile(
    rf"{_alt(_words('unit', 'deva'))}\s*{_alt(_words('unit_number', 'deva'))}?\s*[0-9०-९]{{1,5}}"
    rf"(?:[,\s]+[\u0900-\u097F0-9०-९]+){{0,6}}[,\s]+(?:[\u0900-\u097F]+\s+)?{_alt(_words('street', 'deva'))}"
    rf"(?:[,\s]+(?:{_alt(_words('postcode_before', 'deva'))}\s*)?[1-9][0-9]{{5}})?")
_UK_POSTCODE_RE = re.compile(rf"(?<![A-Za-z0-9]){UK_POSTCODE}(?![A-Za-z0-9])")
_UK_POSTCODE_CUE_RE = re.compile(
    rf"\b{_alt(_words('postcode_before'))}\s+(?:{_alt(_words('postcode_links'))}\s+)?({UK_POSTCODE})\b",
    re.IGNORECASE)
_ANY_DIGIT = re.compile(r"\d")
ZH_NUMERAL = re.compile(r"[一二三四五六七八九十百零〇两][号栋室楼层]")  # a Chinese address may spell its numbers



def addr_norm(s: str) -> str:
    return " ".join(re.sub(r"[,.]", " ", s.lower()).split())


def find_addresses(text: str, words: frozenset[str] | None = None, has_number: bool = False) -> Iterator[Match]:
    """Every address form below; pieces that touch ("77 Larkspur Court" + ", apartment 4B, Boise, ID
    83702") are one address. `words`: latin_words(text), when the caller has it; `has_number`: the caller
    knows the text has a digit or a Chinese numeral before a building word."""
    found = list(_find_addresses(text, latin_words(text) if words is None else words, has_number))
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


def _form(name: str, rx: re.Pattern[str], score: float, keywords: Keywords, group: int = 0) -> PatternRecognizer:
    return PatternRecognizer("address", name, (Pattern(rx, score, group),), addr_norm, keywords=keywords)


def _first_words(script: str) -> list[str]:
    """The first word of each address cue in a non-Latin script: one of them is in every text it cues."""
    return [w.split()[0] for w in shared("cue_words", "address", script)]


# The forms, each with the words it cannot match without (a street word, a unit word, a cue), in the order they
# are tried (a tie of two equal spans keeps the first's name). The Latin gates are read off the form's own words
# (`address_words`, the cues), so they cannot drift from the patterns.
_FORMS = (
    _form("street", _STREET_RE, 0.85, Keywords.of(lead_words(_words("street")))),
    _form("unit", _UNIT_RE, 0.85, Keywords.of(lead_words(_words("unit")))),
    _form("cue_postal", _CUE_POSTAL_RE, 0.8, Keywords.of(
        phrase_words(shared("cue_words", "address", "latin"), drop_last=True), _first_words("deva")), group=1),
    _form("cue_house", _CUE_HOUSE_RE, 0.7, Keywords.of(lead_words(_words("house_cue"))), group=1),
)
_ZH_KEYWORDS = Keywords.of(any_of=_cues("han"))  # _ZH_RE's lookbehind cue
_ZH_STRICT_KEYWORDS = Keywords.of(any_of=_words("district", "han") + _words("estate", "han"))
_AFTER_ZH = (
    _form("in_sector", _IN_SECTOR_RE, 0.75, Keywords.of(lead_words(_words("sector") + _words("sector_more")))),
    _form("deva_address", _DEVA_ADDR_RE, 0.8, Keywords.of(any_of=_words("unit", "deva"))),
)


def _find_addresses(text: str, words: frozenset[str], has_number: bool) -> Iterator[Match]:
    if not has_number and not _ANY_DIGIT.search(text) and not ZH_NUMERAL.search(text):
        return  # every form carries a number
    for form in _FORMS:
        yield from form(text, None, words)
    if _ZH_KEYWORDS.open(text, words):
        for m in _ZH_RE.finditer(text):
            yield Match("address", m.start(), m.end(), 0.85, "zh_address", m.group())
    if _ZH_STRICT_KEYWORDS.open(text, words):
        for m in _ZH_STRICT_RE.finditer(text):
            cue = _ZH_LEAD.match(m.group())  # "我住在北京市..." -> "北京市..."
            s = m.start() + (cue.end() if cue else 0)
            if m.end() - s >= 6:
                yield Match("address", s, m.end(), 0.8, "zh_address", text[s:m.end()])
    for form in _AFTER_ZH:
        yield from form(text, None, words)


def find_uk_postcodes(text: str) -> Iterator[Match]:
    for m in _UK_POSTCODE_RE.finditer(text):
        yield Match("uk_postcode", m.start(), m.end(), 0.7, "uk_postcode", m.group().replace(" ", "").upper())
    for m in _UK_POSTCODE_CUE_RE.finditer(text):
        if not m.group(1).isupper():
            yield Match("uk_postcode", m.start(1), m.end(1), 0.7, "uk_postcode", m.group(1).replace(" ", "").upper())
