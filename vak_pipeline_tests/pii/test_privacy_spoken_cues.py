"""Postcode cues as faster-whisper tiny.en writes them ("lip code" for zip code, "been coded" for pin code)
still name the digits after them; the same words without a postcode-shaped number after them name nothing.
After "I live at", a house number and the words to the comma are an address even when ASR broke the
street word.

The sentences are tiny.en transcripts of espeak-ng speech (docs/locale-packs.md, "Cues as ASR writes them").
"""

from __future__ import annotations

import pytest

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.recognizers import find_pii


def _types(locale: str, text: str) -> list[tuple[str, str]]:
    return [(m.type, text[m.start:m.end]) for m in find_pii(get_pack(locale), text)]


@pytest.mark.parametrize("text,value", [
    ("Billing Lip Code 3-8-5-1-9", "3-8-5-1-9"),
    ("My leap code is zero eight zero zero four thanks", "zero eight zero zero four"),
    ("My lip coat is 1, 6, 3, 7, 3, thanks", "1, 6, 3, 7, 3"),
    ("The leap called here in 6-1-1-9-7.", "6-1-1-9-7"),
    ("Okay, so my lip is six, eight, eight, three, one.", "six, eight, eight, three, one"),
])
def test_a_misheard_zip_cue_still_names_the_zip(text, value):
    assert _types("en-US", text) == [("us_zip", value)]


@pytest.mark.parametrize("text,value", [
    ("Pin called 6-0-3-7-6-7.", "6-0-3-7-6-7"),
    ("I've been cold in eight, five, seven, zero, four, four, only.", "eight, five, seven, zero, four, four"),
    ("My build code is 4 3 3 3 0 2", "4 3 3 3 0 2"),
    ("Area bin code is 5 6 0 0 3 4", "5 6 0 0 3 4"),
])
def test_a_misheard_pin_cue_still_names_the_pin(text, value):
    assert _types("en-IN", text) == [("in_pin", value)]


@pytest.mark.parametrize("locale,text", [
    ("en-US", "I bit my lip at 10 30 this morning"),  # a time: four digits
    ("en-US", "the lip code on the bottle says 2 for 1"),
    ("en-US", "the deep code review took 45,000 lines"),  # thousands: an amount
    ("en-IN", "the build 4.2.0.118 crashed twice"),  # a version stays a business entity
    ("en-IN", "I have been calling since 2019 about order 4 5 6 7 8 9 0"),  # seven digits: no PIN
])
def test_the_same_words_without_a_postcode_after_them_name_nothing(locale, text):
    assert [t for t, _ in _types(locale, text) if t in ("us_zip", "in_pin")] == []


@pytest.mark.parametrize("text,value", [
    ("I live at 118 wood and lane, near the temple.", "118 wood and lane"),  # Woodland Lane
    ("yeah I live at 7 cedar lain, Springfield", "7 cedar lain"),
    ("my address is 42 harbour rode springfield", "42 harbour rode springfield"),
])
def test_after_i_live_at_a_house_number_and_its_words_are_an_address(text, value):
    assert _types("en-US", text) == [("address", value)]


@pytest.mark.parametrize("text", [
    "I live at 5 minutes from the station",
    "we live at 221B",
    "I live at the end of the road, number unknown",
])
def test_i_live_at_without_a_house_number_and_a_word_is_no_address(text):
    assert _types("en-US", text) == []
