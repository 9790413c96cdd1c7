"""find_phones runs libphonenumber's PhoneNumberMatcher (VALID) through its public API: plainly written
phones are found with their E.164 number; order ids, amounts, versions, dates and glued digits are not."""

from __future__ import annotations

import pytest

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.recognizers import find_pii

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
    assert [m for m in find_pii(pack, text) if m.type == "phone" and m.recognizer == "phonenumbers"] == []


def test_spoken_digits_reach_the_matcher_through_the_digit_view() -> None:
    text = "my number is six one seven, four six six, nine one zero seven"
    phones = [m for m in find_pii(get_pack("en-US"), text) if m.type == "phone"]
    assert [m.norm for m in phones] == ["+16174669107"]
    assert (phones[0].start, phones[0].end) == (text.index("six"), len(text))
