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
from dataclasses import dataclass

import phonenumbers
from phonenumbers import Leniency, PhoneMetadata, PhoneNumber, PhoneNumberFormat, PhoneNumberMatch, PhoneNumberMatcher

from ...locales.packfile import cue_alternation
from ...locales.registry import BUILTIN_PACKS
from .base import Match, RegexGate, business_context, has_cue

_DIGIT_RUN = re.compile(r"\d(?:[\s().\-/]{0,2}\d){5,}")
# (?:\+\s?)?\d(?:[\s().\-/]{0,2}\d){5,}, written to start with a character class, which lets the regex engine
# skip ahead to a + or a digit (an optional group first makes it try every position: 2 us a text, now 1)
_CANDIDATE = re.compile(r"[+\d](?:(?<=\+)\s?\d|(?<!\+))(?:[\s().\-/]{0,2}\d){5,}")
_SPLIT = re.compile(r"[\s().\-/]+")
_GROUP = re.compile(r"\d+")


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


def _is_valid(cc: int, nsn: str) -> bool:
    """is_valid_number of (cc, nsn), nsn without a leading zero (_valid's short cut up to 14 digits; longer
    ones are first checked against the lengths, as _valid does: a card number's 15 digits in a NANP region
    would otherwise cost a walk over its ~25 regions)."""
    if len(nsn) <= 14:
        return _valid(cc, nsn)
    lengths = _lengths(cc)
    if lengths is not None and len(nsn) not in lengths:
        return False
    return phonenumbers.is_valid_number(PhoneNumber(country_code=cc, national_number=int(nsn)))


def _leading_zero_valid(cc: int, nsn: str) -> bool:
    """is_valid_number of the number parse makes of `nsn` when it starts with 0 (Italy's leading zero:
    italian_leading_zero, and number_of_leading_zeros as parse counts them, the last digit never counted).
    is_valid_number reads only the country code and national_significant_number, which is then `nsn`
    itself; its lengths are checked first, as in _valid."""
    lengths = _lengths(cc)
    if lengths is not None and len(nsn) not in lengths:
        return False
    zeros = 1
    while zeros < len(nsn) - 1 and nsn[zeros] == "0":
        zeros += 1
    return phonenumbers.is_valid_number(PhoneNumber(
        country_code=cc, national_number=int(nsn), italian_leading_zero=True,
        number_of_leading_zeros=zeros if zeros != 1 else None))


# The plainly written candidates the matcher's short cut takes (ASCII digits, spaces, dots, hyphens, one
# bracketed group such as "(617)" or "(0)", a leading +); anything else goes to the library as it is.
_PLAIN = re.compile(r"(?:\+ ?)?(?:[0-9][0-9 .\-]*)?(?:\([0-9]{1,6}\)[ .\-]?)?[0-9](?:[0-9 .\-]*[0-9])?")
_NOT_PLAIN_DIGIT = str.maketrans("", "", "+ .-()")  # a match of _PLAIN less these is its digits
_FIRST_GROUP_ONLY = re.compile(r"\(?\\1\)?")  # a national-prefix formatting rule without the prefix ("(\1)")
_DELEGATE = object()
# Neighbours that are neither a Latin letter nor a currency sign to the library: ASCII other than letters,
# $ and %; General Punctuation, Devanagari, CJK punctuation and ideographs, full-width forms but ＄.
_NEUTRAL = re.compile(
    "[\x00-\x23\x26-\x40\x5b-\x60\x7b-\x7f\u0900-\u097f\u2000-\u206f\u3000-\u303f\u4e00-\u9fff"
    "\uff01-\uff03\uff05-\uffdf]"
)
_GLUED = frozenset("$%\u00a3\u00a5\u20ac\u20b9")  # $ % £ ¥ € ₹: a number next to one is an amount


@functools.lru_cache(maxsize=1)
def _min_nsn() -> int:
    """The fewest digits a valid national number has in any region (4); 2 where a region lists no lengths."""
    lows = []
    for cc, regions in phonenumbers.COUNTRY_CODE_TO_REGION_CODE.items():
        for region in regions:
            meta = PhoneMetadata.metadata_for_region_or_calling_code(cc, region)
            gd = meta.general_desc if meta is not None else None
            if gd is None or not [n for n in gd.possible_length if n > 0]:
                return 2
            lows.append(min(n for n in gd.possible_length if n > 0))
    return min(lows, default=2)
_SHORT, _LOCAL, _INVALID_LENGTH = "short", "local", "invalid"


@dataclass(frozen=True, slots=True)
class _Region:
    """What parse() reads of one region's metadata, compiled once."""

    cc: int
    idd: re.Pattern[str] | None
    prefix: re.Pattern[str] | None  # national_prefix_for_parsing
    simple_prefix: bool  # no transform rule (a carrier-code group is checked per match)
    general: re.Pattern[str] | None
    lengths: tuple[int, ...]
    local_lengths: tuple[int, ...]
    # (leading digits or None, pattern, the national prefix must be written) per number format, in order
    formats: tuple[tuple[re.Pattern[str] | None, re.Pattern[str], bool], ...]
    # the same as one regex: the formats as alternatives in order, each "(?=leading digits)(?:pattern)()";
    # its fullmatch takes the first format whose leading digits match and whose pattern matches the whole
    # number (as the loop over `formats` does), and the empty group closing that alternative, the last group
    # matched (lastindex), says which: format_required[lastindex] is that format's "must be written"
    format_rx: re.Pattern[str]
    format_required: dict[int, bool]


@functools.lru_cache(maxsize=512)
def _region(region: str) -> _Region | None:
    meta = PhoneMetadata.metadata_for_region(region)
    if meta is None:
        return None
    gd = meta.general_desc
    formats = tuple(
        (re.compile(f.leading_digits_pattern[-1]) if f.leading_digits_pattern else None, re.compile(f.pattern),
         bool(f.national_prefix_formatting_rule) and not f.national_prefix_optional_when_formatting
         and _FIRST_GROUP_ONLY.fullmatch(f.national_prefix_formatting_rule) is None)
        for f in meta.number_format
    )
    alternatives: list[str] = []
    required: dict[int, bool] = {}
    groups = 0
    for lead, pat, req in formats:
        alternatives.append((f"(?=(?:{lead.pattern}))" if lead is not None else "") + f"(?:{pat.pattern})()")
        groups += (lead.groups if lead is not None else 0) + pat.groups + 1
        required[groups] = req
    return _Region(
        meta.country_code,
        re.compile(meta.international_prefix) if meta.international_prefix else None,
        re.compile(meta.national_prefix_for_parsing) if meta.national_prefix_for_parsing else None,
        not meta.national_prefix_transform_rule,
        re.compile(gd.national_number_pattern) if gd is not None and gd.national_number_pattern else None,
        tuple(gd.possible_length) if gd is not None else (),
        tuple(gd.possible_length_local_only) if gd is not None else (),
        formats,
        re.compile("|".join(alternatives) or "(?!)"),
        required,
    )


@functools.lru_cache(maxsize=512)
def _home_region(region: str) -> _Region | None:
    """The metadata of the main region of `region`'s country code (US for CA), whose formats parse reads."""
    r = _region(region)
    return None if r is None else _region(phonenumbers.region_code_for_country_code(r.cc))


def _length_result(nsn: str, r: _Region) -> str:
    """parse's length test of a number with its national prefix removed (only the answers it acts on)."""
    n = len(nsn)
    if n in r.local_lengths:
        return _LOCAL
    if not r.lengths or r.lengths[0] > n:
        return _SHORT if r.lengths else _INVALID_LENGTH
    if r.lengths[0] == n or r.lengths[-1] < n or n in r.lengths[1:]:
        return "ok"
    return _INVALID_LENGTH


def _strip_prefix(digits: str, r: _Region) -> tuple[str, bool] | object:
    """(digits without the national prefix, whether one was taken off) as the library strips it, or
    _DELEGATE where a carrier code or transform rule is involved."""
    if r.prefix is None or not digits:
        return digits, False
    m = r.prefix.match(digits)
    if m is None:
        return digits, False
    if not r.simple_prefix or any(g is not None for g in m.groups()) or m.end() == 0:
        return _DELEGATE
    rest = digits[m.end():]
    if r.general is not None and r.general.fullmatch(digits) and not r.general.fullmatch(rest):
        return digits, False
    return rest, True


def _plain_number(text: str, cand: str, offset: int, region: str) -> PhoneNumber | None | object:
    """The number PhoneNumberMatcher(VALID) accepts for `cand` at `offset`, None where it accepts none, for
    plainly written candidates; _DELEGATE for any other (the library decides those)."""
    if _PLAIN.fullmatch(cand) is None:
        return _DELEGATE
    if "(" in cand and "-" in cand[:cand.index("(")]:
        return _DELEGATE  # could read as a publication page ("211-227 (2003)")
    # not glued to a Latin letter, a percent or currency sign (the neighbours below; others go to the library)
    end = offset + len(cand)
    for c in (text[offset - 1] if offset > 0 and cand[0] not in "(+" else "", text[end] if end < len(text) else ""):
        if not c or _NEUTRAL.match(c):
            continue
        if c in _GLUED:
            return None
        if c.isascii() and c.isalpha():
            return None
        return _DELEGATE
    r = _region(region)
    if r is None:
        return _DELEGATE
    digits = cand.translate(_NOT_PLAIN_DIGIT)
    if len(digits) < _min_nsn():
        return None  # shorter than any national number: nothing to parse
    plus = cand[0] == "+"
    if plus:
        if len(digits) <= 2:
            return None
        cc = next((int(digits[:k]) for k in (1, 2, 3)
                   if digits[0] != "0" and int(digits[:k]) in phonenumbers.COUNTRY_CODE_TO_REGION_CODE), 0)
        if not cc:
            return _DELEGATE
        home = phonenumbers.region_code_for_country_code(cc)
        r = _region(home) if home != region else r
        if r is None or home == "001":
            return _DELEGATE
        nsn = digits[len(str(cc)):]
        if len(nsn) < 2:
            return None
        if r.prefix is not None and r.prefix.match(nsn):
            return _DELEGATE
    else:
        if r.idd is None or r.idd.match(digits) or digits.startswith(str(r.cc)):
            return _DELEGATE  # an international prefix or the country code written without +
        cc, nsn = r.cc, digits
        if len(nsn) < 2:
            return None
        got = _strip_prefix(nsn, r)
        if got is _DELEGATE:
            return _DELEGATE
        rest, taken = got  # type: ignore[misc]
        if taken and _length_result(rest, r) not in (_SHORT, _LOCAL, _INVALID_LENGTH):
            nsn = rest
    if len(nsn) < 2 or len(nsn) > 17:
        return None
    if nsn[0] == "0":  # a leading zero kept in the number (Italy's): an invalid one is no match, a valid
        return _DELEGATE if _leading_zero_valid(cc, nsn) else None  # one the library's
    if not _is_valid(cc, nsn):
        return None
    if not plus:  # written without a country code: the national prefix, where its format wants one
        home = _home_region(region)
        if home is None:
            return _DELEGATE
        rule = home.format_rx.fullmatch(nsn)
        if rule is not None and home.format_required[rule.lastindex]:  # type: ignore[index]
            if home is not r:  # (the same region: digits were stripped with its prefix above)
                got = _strip_prefix(digits, home)
                if got is _DELEGATE:
                    return _DELEGATE
            if not got[1]:  # type: ignore[index]
                return None
    return PhoneNumber(country_code=cc, national_number=int(nsn))


class _Matcher(PhoneNumberMatcher):
    """PhoneNumberMatcher (VALID) with a short cut for plainly written candidates: the library's parse and
    verification cost ~30 us a number; the short cut derives the same number from the digits and the
    region's metadata (same prefixes, lengths and format rules). Candidate search, dates, inner matches and
    every other candidate stay the library's."""

    def _parse_and_verify(self, candidate: str, offset: int) -> PhoneNumberMatch | None:
        got = _plain_number(self.text, candidate, offset, self.preferred_region)
        if got is _DELEGATE:
            return super()._parse_and_verify(candidate, offset)
        return None if got is None else PhoneNumberMatch(offset, candidate, got)


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


_GatePlan = tuple[tuple[int, str, str, "frozenset[int] | None"], ...]


@functools.lru_cache(maxsize=64)
def _gate_plan(plan: tuple[tuple[str, int, str], ...]) -> _GatePlan:
    """(country code, national prefix, the code as digits, _lengths of the code) per entry of a _region_plan."""
    return tuple((cc, prefix, str(cc), _lengths(cc)) for _, cc, prefix in plan)


@functools.lru_cache(maxsize=64)
def _gate_lengths(plan: _GatePlan) -> tuple[frozenset[int] | None, int]:
    """(the lengths of runs _could_be_valid may accept without a + (a valid length, or one with the national
    prefix or the country code before it); None when some code has no lengths, how many leading digits
    must hold no 0 for that to be so). A run of ASCII digits whose length is not among them, with no 0 in
    its first digits, is refused by every length test of _could_be_valid: it need not be called."""
    if any(lengths is None for _, _, _, lengths in plan):
        return None, 0
    out: set[int] = set()
    for _, prefix, ccs, lengths in plan:
        for n in lengths:  # type: ignore[union-attr]
            out.update((n, n + len(ccs), *((n + len(prefix),) if prefix else ())))
    return frozenset(out), 1 + max((max(len(prefix), len(ccs)) for _, prefix, ccs, _ in plan), default=0)


def _could_be_valid(digits: str, plus: bool, plan: _GatePlan) -> bool:
    if plus:
        return any(_valid(int(digits[:k]), digits[k:]) for k in (1, 2, 3)
                   if int(digits[:k]) in phonenumbers.COUNTRY_CODE_TO_REGION_CODE)
    # _valid's own length test, made before it is called, where the length is plainly len(): ASCII digits
    # without a leading zero (int() drops leading zeros, any script's)
    ascii_ = digits.isascii()
    for cc, prefix, ccs, lengths in plan:
        quick = ascii_ and lengths is not None
        if (not quick or digits[0] == "0" or len(digits) in lengths) and _valid(cc, digits):  # type: ignore[operator]
            return True
        if prefix and digits.startswith(prefix):
            rest = digits[len(prefix):]
            if (not quick or not rest or rest[0] == "0" or len(rest) in lengths) and _valid(cc, rest):  # type: ignore[operator]
                return True
        if digits.startswith(ccs):
            rest = digits[len(ccs):]
            if (not quick or not rest or rest[0] == "0" or len(rest) in lengths) and _valid(cc, rest):  # type: ignore[operator]
                return True
    return False


def _gate(text: str, plan: tuple[tuple[str, int, str], ...]) -> bool:
    gplan = _gate_plan(plan)
    need, head = _gate_lengths(gplan)
    for m in _CANDIDATE.finditer(text):
        raw = m.group()
        plus = raw[0] == "+"
        groups = _GROUP.findall(raw)  # (the digits between the separators)
        if len(groups) == 1:  # the common case: one run of digits
            g = groups[0]
            if (len(g) <= 17 and (plus or need is None or len(g) in need or "0" in g[:head] or not g.isascii())
                    and _could_be_valid(g, plus, gplan)):
                return True
            continue
        # any contiguous run of groups may be the number (a number followed by a year, say); only runs of
        # 6 to 17 digits are looked at, so their lengths are summed before any is cut out of the joined groups
        ends = list(itertools.accumulate(map(len, groups), initial=0))
        joined = "".join(groups)
        total = ends[-1]
        lengths = need if joined.isascii() else None
        k = len(groups)
        for i in range(k):
            lo = ends[i]
            if total - lo < 6:
                break  # shorter from here on
            quick = lengths is not None and not (plus and i == 0) and "0" not in joined[lo:lo + head]
            for j in range(k, i, -1):
                n = ends[j] - lo
                if n > 17 or (quick and n not in lengths):  # type: ignore[operator]
                    continue
                if n < 6:
                    break
                if _could_be_valid(joined[lo:ends[j]], plus and i == 0, gplan):
                    return True
    return False


_INTL = re.compile(r"(?<![\w+])\+\s?[1-9](?:[\s().\-/]{0,2}\d){6,16}(?!\d)")


def _plainly_valid(cand: str) -> bool:
    """True when `cand` (a match of _INTL) is plainly written and parse(cand, None) reads it as a valid number:
    the country code and national number are derived as parse derives them (as in _plain_number), and
    validity comes from the cached _is_valid. False leaves the decision to the library."""
    if _PLAIN.fullmatch(cand) is None:
        return False
    digits = "".join(c for c in cand if c.isdigit())
    cc = next((int(digits[:k]) for k in (1, 2, 3) if int(digits[:k]) in phonenumbers.COUNTRY_CODE_TO_REGION_CODE), 0)
    if not cc:
        return False
    home = phonenumbers.region_code_for_country_code(cc)
    r = _region(home)
    if r is None or home == "001":
        return False
    nsn = digits[len(str(cc)):]
    if not 2 <= len(nsn) <= 17 or nsn[0] == "0" or (r.prefix is not None and r.prefix.match(nsn)):
        return False  # too short or long to parse, Italy's leading zero, a national prefix: the library's
    return _is_valid(cc, nsn)


def _possible_international(text: str) -> Iterator[Match]:
    """Numbers written with +<country code> whose length fits that country: still a phone even when the range is
    unallocated or reserved (libphonenumber calls +44 7700 900xxx invalid; a person may still own it)."""
    if "+" not in text:
        return
    for m in _INTL.finditer(text):
        if _plainly_valid(m.group()):
            continue  # a valid number: the matcher finds it (the common case, without the library's parse)
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


_RUN_TOKEN = re.compile(r"\d|[A-Za-z]+")
_RUN_WORDY = re.compile(r"[^\d\s().\-/,]")  # in a _LOOSE_RUN match, the start of a homophone
_NOT_DIGIT = re.compile(r"\D")


def _business(text: str, start: int, end: int, memo: dict[tuple[int, int], bool]) -> bool:
    """business_context(text, start, end=end), asked once per span in one find_phones call (a cued run and
    the matcher's number are often the same span)."""
    got = memo.get((start, end))
    if got is None:
        got = memo[start, end] = business_context(text, start, end=end)
    return got


def _cued_runs(text: str, cued: bool, memo: dict[tuple[int, int], bool]) -> Iterator[Match]:
    if not cued and not _PHONE_CUE_GATE.might_match(text):
        return  # no run can have the cue before it
    for m in _LOOSE_RUN.finditer(text):
        if not (cued or has_cue(text, m.start(), _PHONE_CUE)) or _business(text, m.start(), m.end(), memo):
            continue
        run = m.group()
        if _RUN_WORDY.search(run) is None:  # digits and separators only: the digits are the norm
            norm = _NOT_DIGIT.sub("", run)
        else:
            norm = "".join(_HOMOPHONES.get(t.lower(), t) for t in _RUN_TOKEN.findall(run))
        yield Match("phone", m.start(), m.end(), 0.6, "phone_cue", norm)


def find_cued_digit_runs(text: str, cued: bool = False) -> Iterator[Match]:
    """`cued`: the previous turn asked for a number ("can I have your phone number?")."""
    return _cued_runs(text, cued, {})


def asks_for_number(text: str) -> bool:
    """Does this turn end by asking for a phone number (so the reply's digit runs are one)?"""
    return _PHONE_CUE.search(text[-80:]) is not None


def find_phones(text: str, regions: tuple[str, ...], has_run: bool = False) -> Iterator[Match]:
    """`has_run`: the caller knows the text has a run of six digits (find_pii's gate)."""
    if not has_run and not _DIGIT_RUN.search(text):
        return
    memo: dict[tuple[int, int], bool] = {}
    yield from _cued_runs(text, False, memo)
    seen: set[tuple[int, int]] = set()
    for m in _possible_international(text):
        seen.add((m.start, m.end))
        yield m
    plan = _region_plan(tuple(regions))
    if not _gate(text, plan):
        return
    for region, _, _ in plan:
        for m in _Matcher(text, region, leniency=Leniency.VALID):
            span = (m.start, m.end)
            if span in seen:
                continue
            seen.add(span)
            if not m.raw_string.startswith("+") and _business(text, m.start, m.end, memo):
                continue
            norm = phonenumbers.format_number(m.number, PhoneNumberFormat.E164)
            yield Match("phone", m.start, m.end, 0.9 if m.raw_string.startswith("+") else 0.8, "phonenumbers", norm)
