"""Postal codes in every pack, with their cue in each language; bare numbers of the same shape stay.
Assertions compare (type, start, end) only."""

from __future__ import annotations

import pytest

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.recognizers import find_pii


def found(locale: str, text: str) -> list[tuple[str, int, int]]:
    return [(m.type, m.start, m.end) for m in find_pii(get_pack(locale), text)]


def at(ptype: str, text: str, value: str) -> tuple[str, int, int]:
    i = text.index(value)
    return ptype, i, i + len(value)


FOUND = [
    pytest.param("en-IN", "my pin code is 560034, bangalore", "in_pin", "560034", id="in-pin-code"),
    pytest.param("hi-Latn-IN", "mera pincode hai 110092", "in_pin", "110092", id="in-pincode-hinglish"),
    pytest.param("hi-IN", "मेरा पिन कोड 110092 है", "in_pin", "110092", id="in-pin-devanagari"),
    pytest.param("en-IN", "The pin code is 5-1-1-3-1-2", "in_pin", "5-1-1-3-1-2", id="in-pin-asr-dashes"),
    pytest.param(
        "en-IN",
        "pin code is five six zero zero three four",
        "in_pin",
        "five six zero zero three four",
        id="in-pin-spoken",
    ),
    pytest.param("zh-CN", "邮编是100022，别写错了", "cn_postcode", "100022", id="cn-youbian"),
    pytest.param("zh-CN", "邮政编码310012。", "cn_postcode", "310012", id="cn-youzheng-bianma"),
    pytest.param("en-US", "my zip is 78701, same as billing", "us_zip", "78701", id="us-zip"),
    pytest.param("en-US", "zip code 94110-1234 please", "us_zip", "94110-1234", id="us-zip-plus-four"),
    pytest.param("en-US", "zip code nine four one one oh", "us_zip", "nine four one one oh", id="us-zip-spoken"),
    pytest.param("en-GB", "postcode SW1A 1AA", "uk_postcode", "SW1A 1AA", id="uk-postcode"),
]


@pytest.mark.parametrize(("locale", "text", "ptype", "value"), FOUND)
def test_a_postcode_after_its_cue_is_found(locale, text, ptype, value):
    assert at(ptype, text, value) in found(locale, text)


KEPT = [
    pytest.param("en-IN", "the refund of 560034 paise is pending", id="in-six-digits-no-cue"),
    pytest.param("en-US", "it was 78701 points on the leaderboard", id="us-five-digits-no-cue"),
    pytest.param("zh-CN", "订单金额100022元", id="cn-amount"),
    pytest.param("en-IN", "your otp is 482913, do not share it", id="otp"),
]


@pytest.mark.parametrize(("locale", "text"), KEPT)
def test_the_same_digits_without_a_postcode_cue_stay(locale, text):
    assert [t for t, _, _ in found(locale, text) if t in ("in_pin", "cn_postcode", "us_zip")] == []


def test_a_postcode_inside_an_address_is_part_of_the_address():
    text = "1200 Oak Avenue, Austin, TX 78701-1234"
    assert found("en-US", text) == [("address", 0, len(text))]
