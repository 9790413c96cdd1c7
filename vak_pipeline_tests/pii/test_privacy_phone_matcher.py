"""find_phones runs libphonenumber's PhoneNumberMatcher (VALID) with a short cut: a plainly written candidate
(digits, spaces, dots, hyphens, one bracketed group, a leading +) is turned into a number from its digits and
the region's metadata instead of the library's parse and verification. The short cut must accept exactly
what the library accepts, with the same span and number, so every case here is checked against the plain
library matcher as well as against the expected finding. Failures name the region and spans, never the text."""

from __future__ import annotations

import json
import random
from pathlib import Path

import phonenumbers
import pytest
from phonenumbers import Leniency, PhoneNumberFormat, PhoneNumberMatcher

from vak_pipeline.locales import get_pack
from vak_pipeline.locales.registry import PACKS
from vak_pipeline.pii.recognizers import find_pii
from vak_pipeline.pii.recognizers.phone import _Matcher

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
