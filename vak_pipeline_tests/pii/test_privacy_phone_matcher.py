"""find_phones runs libphonenumber's PhoneNumberMatcher (VALID) with a short cut: a plainly written candidate
(digits, spaces, dots, hyphens, one bracketed group, a leading +) is turned into a number from its digits and
the region's metadata instead of the library's parse and verification. The short cut must accept exactly
what the library accepts, with the same span and number, so every case here is checked against the plain
library matcher as well as against the expected finding. Failures name the region and spans, never the text."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import phonenumbers
import pytest
from phonenumbers import Leniency, PhoneNumberFormat, PhoneNumberMatcher

from vak_pipeline.locales import get_pack
from vak_pipeline.locales.registry import PACKS
from vak_pipeline.pii.recognizers import find_pii
from vak_pipeline.pii.recognizers.phone import _CANDIDATE, _gate, _Matcher, _region, _region_plan, _valid

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
REGIONS = sorted({r for p in PACKS.values() for r in p.phone_regions})


def _found(matcher: type[PhoneNumberMatcher], text: str, region: str) -> list[tuple[int, int, str]]:
    return [(m.start, m.end, phonenumbers.format_number(m.number, PhoneNumberFormat.E164))
            for m in matcher(text, region, leniency=Leniency.VALID)]


def _same_as_library(text: str, region: str) -> list[tuple[int, int, str]]:
    ours = _found(_Matcher, text, region)
    lib = _found(PhoneNumberMatcher, text, region)
    assert ours == lib, f"{region}: short cut {[(s, e) for s, e, _ in ours]} != library {[(s, e) for s, e, _ in lib]}"
    return ours


# (locale, sentence, the phone's text, its E.164 number); the phone is found by find_pii
PHONES = [
    ("en-US", "you can reach me at (617) 847-9257 after six", "(617) 847-9257", "+16178479257"),
    ("en-US", "call 617-466-9107 or email me", "617-466-9107", "+16174669107"),
    ("en-US", "my cell is +1 415 408 8367.", "+1 415 408 8367", "+14154088367"),
    ("en-US", "it's +1 (206) 926-6903, thanks", "+1 (206) 926-6903", "+12069266903"),
    ("en-US", "the number is 512.609.9296", "512.609.9296", "+15126099296"),
    ("en-GB", "ring me on 07724 781538 tomorrow", "07724 781538", "+447724781538"),
    ("en-GB", "office line +44 (0) 20 7946 0018", "+44 (0) 20 7946 0018", "+442079460018"),
    ("en-GB", "landline 020 7725 3833 please", "020 7725 3833", "+442077253833"),
    ("en-IN", "mera number +91-8234666390 hai", "+91-8234666390", "+918234666390"),
    ("en-IN", "whatsapp pe 83529 04694 bhej do", "83529 04694", "+918352904694"),
    ("zh-CN", "我的手机号是13947148658，谢谢", "13947148658", "+8613947148658"),
    ("de-DE", "Sie erreichen mich unter 030 12345678.", "030 12345678", "+493012345678"),
]


@pytest.mark.parametrize(("locale", "text", "value", "e164"), PHONES)
def test_a_plainly_written_phone_is_found_with_its_number(locale: str, text: str, value: str, e164: str) -> None:
    pack = get_pack(locale)
    for region in pack.phone_regions:
        _same_as_library(text, region)
    phones = [m for m in find_pii(pack, text) if m.type == "phone"]
    start = text.index(value)
    assert [(m.start, m.end, m.norm) for m in phones] == [(start, start + len(value), e164)]


# Digits that are not a phone: order ids, amounts, versions, dates, times, a number glued to letters
NOT_PHONES = [
    ("en-US", "order 4155-550-13 shipped, total $4155550132"),
    ("en-US", "version 10.2.14 of the app, build 2024-05-01"),
    ("en-US", "the meeting is on 12/05/2023 at 14:30"),
    ("en-US", "ticket AB4155550132X is closed"),
    ("en-US", "that costs 4155550132% more"),
    ("en-GB", "invoice 2026 for 45.00 pounds, ref 82-279"),
    ("en-IN", "amount ₹8234666390 credited"),
    ("zh-CN", "订单金额是15元，共3件"),
]


@pytest.mark.parametrize(("locale", "text"), NOT_PHONES)
def test_digits_that_are_not_a_phone_stay(locale: str, text: str) -> None:
    pack = get_pack(locale)
    for region in pack.phone_regions:
        assert _same_as_library(text, region) == [], region
    assert [m for m in find_pii(pack, text) if m.type == "phone" and m.recognizer == "phonenumbers"] == []


def test_spoken_digits_reach_the_matcher_through_the_digit_view() -> None:
    text = "my number is six one seven, four six six, nine one zero seven"
    phones = [m for m in find_pii(get_pack("en-US"), text) if m.type == "phone"]
    assert [m.norm for m in phones] == ["+16174669107"]
    assert (phones[0].start, phones[0].end) == (text.index("six"), len(text))


def test_the_short_cut_agrees_with_the_library_on_the_bench_utterances() -> None:
    for name in ("pii_labelled.jsonl", "pii_heldout.jsonl"):
        with open(DATA / name, encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                for region in get_pack(row["locale"]).phone_regions:
                    _same_as_library(row["text"], region)


def _shapes(rnd: random.Random) -> str:
    """A number in one of the shapes people write (example numbers of many regions, national and
    international, digits changed), or random digits with separators and prefixes."""
    if rnd.random() < 0.5:
        kind = rnd.choice([phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE,
                           phonenumbers.PhoneNumberType.TOLL_FREE])
        num = phonenumbers.example_number_for_type(rnd.choice([*REGIONS, "IT", "AU", "BR", "MX", "JP"]), kind)
        if num is not None:
            s = phonenumbers.format_number(num, rnd.choice([PhoneNumberFormat.E164, PhoneNumberFormat.INTERNATIONAL,
                                                            PhoneNumberFormat.NATIONAL]))
            return "".join(rnd.choice("0123456789") if c.isdigit() and rnd.random() < 0.3 else c for c in s)
    out = ""
    for _ in range(rnd.randint(1, 14)):
        sep = rnd.choice([" ", "-", ".", "", "/", ") ", "x"]) if rnd.random() < 0.2 else ""
        out += rnd.choice("0123456789") + sep
    if rnd.random() < 0.3:
        out = rnd.choice(["+", "+ ", "00", "011", "0", "1", "91", "(", "+0", "+999"]) + out
    return out


def test_the_short_cut_agrees_with_the_library_on_generated_numbers() -> None:
    rnd = random.Random(7)
    before = ["call ", "", "A", "$", "order ", "₹", "手机", "nr. ", "(", "é"]
    after = [" thanks", "", ".", ",", "x", "b", "%", " ext 12", ", 2 kids", " / 2024", "号", ":30", "€"]
    for _ in range(600):
        text = rnd.choice(before) + _shapes(rnd) + rnd.choice(after)
        if rnd.random() < 0.3:
            text += " or " + _shapes(rnd)
        for region in REGIONS:
            _same_as_library(text, region)


# Regions whose numbers keep a leading zero after the national prefix (Italy's), where the short cut answers
# for invalid numbers itself and leaves valid ones to the library
LEADING_ZERO_REGIONS = ["IT", "SM", "VA", "GA", "BJ"]


def test_numbers_with_a_leading_zero_and_long_digit_runs_agree_with_the_library() -> None:
    rnd = random.Random(11)
    texts = ["the card number is 3419 067230 57168 expiring 09/28", "ref 0000 0000 and 000000",
             "chiamami allo 06 6982 0000 o al 0039 06 6982", "numero 347 123 4567, fisso 0543 123456"]
    for _ in range(300):
        zeros = "0" * rnd.choice([1, 1, 1, 2, 3])
        digits = zeros + "".join(rnd.choice("0123456789") for _ in range(rnd.randint(1, 16)))
        if rnd.random() < 0.5:  # with the national prefix or a country code before it
            digits = rnd.choice(["0", "1", "+39 ", "+39 0", "+1 ", "+44 ", "+241 ", "+229 "]) + digits
        text = rnd.choice(["call ", "", "nr. "]) + digits + rnd.choice(["", " thanks", "."])
        texts.append(text)
        texts.append(text.replace("0", "0 ", 1))
    for _ in range(100):  # 15 to 19 digits: card and account numbers, longer than _valid looks at
        texts.append("acct " + " ".join("".join(rnd.choice("0123456789") for _ in range(rnd.randint(3, 6)))
                                         for _ in range(4)))
    for text in texts:
        for region in [*REGIONS, *LEADING_ZERO_REGIONS]:
            _same_as_library(text, region)


def test_the_format_rule_regex_takes_the_first_format_that_fits_as_the_format_loop_does() -> None:
    """_Region.format_rx stands for a loop over the number formats in order (leading digits, then the whole
    pattern); for every region and many national numbers the format it picks must be the loop's."""
    rnd = random.Random(3)
    regions = sorted(r for r in phonenumbers.SUPPORTED_REGIONS)
    checked = 0
    for region in regions:
        r = _region(region)
        assert r is not None
        numbers = {"".join(rnd.choice("0123456789") for _ in range(rnd.randint(2, 17))) for _ in range(150)}
        for kind in (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE,
                     phonenumbers.PhoneNumberType.TOLL_FREE, phonenumbers.PhoneNumberType.PREMIUM_RATE):
            ex = phonenumbers.example_number_for_type(region, kind)
            if ex is not None:  # the example numbers and their neighbours reach the formats' later entries
                nsn = phonenumbers.national_significant_number(ex)
                numbers.update({nsn, nsn[:-1], nsn + "0"})
                numbers.update("".join(rnd.choice("0123456789") if rnd.random() < 0.2 else c for c in nsn)
                               for _ in range(20))
        for nsn in numbers:
            loop = next((i for i, (lead, pat, _) in enumerate(r.formats)
                         if (lead is None or lead.match(nsn)) and pat.fullmatch(nsn)), None)
            m = r.format_rx.fullmatch(nsn)
            assert (None if m is None else r.format_required[m.lastindex]) == (
                None if loop is None else r.formats[loop][2]), f"{region}: format {loop}, {len(nsn)} digits"
            if loop is not None:  # the same format, not only the same answer
                assert m is not None and sorted(r.format_required).index(m.lastindex) == loop, region
                checked += 1
    assert checked > 1000


_OLD_SPLIT = re.compile(r"[\s().\-/]+")
_OLD_CANDIDATE = re.compile(r"(?:\+\s?)?\d(?:[\s().\-/]{0,2}\d){5,}")


def _gate_by_every_run(text: str, plan: tuple[tuple[str, int, str], ...]) -> bool:
    """The gate without its short cuts: every contiguous run of 6 to 17 digits, each tried with _valid as it
    is, with the national prefix and with the country code taken off (or any country code after a +)."""
    def could(d: str, plus: bool) -> bool:
        if plus:
            return any(_valid(int(d[:k]), d[k:]) for k in (1, 2, 3)
                       if int(d[:k]) in phonenumbers.COUNTRY_CODE_TO_REGION_CODE)
        return any(_valid(cc, d) or (bool(prefix) and d.startswith(prefix) and _valid(cc, d[len(prefix):]))
                   or (d.startswith(str(cc)) and _valid(cc, d[len(str(cc)):])) for _, cc, prefix in plan)

    for m in _OLD_CANDIDATE.finditer(text):
        raw = m.group()
        groups = [g for g in _OLD_SPLIT.split(raw.lstrip("+ ")) if g]
        for i in range(len(groups)):
            for j in range(i + 1, len(groups) + 1):
                d = "".join(groups[i:j])
                if 6 <= len(d) <= 17 and could(d, raw.startswith("+") and i == 0):
                    return True
    return False


def test_the_gate_answers_as_trying_every_run_of_digits_would() -> None:
    rnd = random.Random(5)
    plans = sorted({_region_plan(tuple(p.phone_regions)) for p in PACKS.values()})
    plans += [_region_plan(r) for r in (("IT",), ("RU",), ("HU",), ("DE", "IT", "HU", "RU"))]
    texts = [row for name in ("pii_labelled.jsonl", "pii_heldout.jsonl")
             for row in (json.loads(line)["text"] for line in open(DATA / name, encoding="utf-8"))]
    for _ in range(1500):
        parts = [_shapes(rnd) for _ in range(rnd.randint(1, 3))]
        sep = rnd.choice([" ", " / ", "-", ".", " and ", "\u00a0"])
        text = sep.join(parts)
        if rnd.random() < 0.1:  # digits of other scripts
            text = text.translate(str.maketrans("0123456789", rnd.choice(["٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९"])))
        texts.append(text)
    for region, cc, prefix in {e for plan in plans for e in plan}:
        # zeros before a valid number (after the national prefix or the country code): int() drops them, so
        # the run's length misleads
        numbers = [phonenumbers.national_significant_number(phonenumbers.example_number(region))]
        # and valid numbers of other lengths: the leading digits of a format, filled up at random
        for f in phonenumbers.PhoneMetadata.metadata_for_region(region).number_format:
            for lead in f.leading_digits_pattern:
                if lead.isdigit():
                    fill = (lead + "".join(rnd.choice("0123456789") for _ in range(n - len(lead)))
                            for n in range(len(lead), 15) for _ in range(20))
                    numbers += [x for x in fill if _valid(cc, x)][:3]
        for nsn in numbers:
            for zeros in ("", "0", "00", "000", "0 0", "00-"):
                for head in ("", prefix, str(cc), "1", "12 "):
                    texts += [head + zeros + nsn, f"{head}{zeros}{nsn[:3]} {nsn[3:]}"]
    seen = {True: 0, False: 0}
    for text in texts:
        assert [m.span() for m in _CANDIDATE.finditer(text)] == [m.span() for m in _OLD_CANDIDATE.finditer(text)]
        for plan in plans:
            want = _gate_by_every_run(text, plan)
            assert _gate(text, plan) == want, f"{plan[0][0]}: gate differs on a text of {len(text)} chars"
            seen[want] += 1
    assert min(seen.values()) > 1000  # both answers are well tried
