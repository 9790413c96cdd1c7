"""Common cases, decided as the full scan decides them: cased text whose listed words are only lower case or
open a sentence holds no name; capitalised names inside a sentence are found; spoken digits in other
scripts get a digit view; +country-code numbers are phones whether valid or only possible."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.recognizers import find_pii, spoken_digits
from vak_pipeline_tests.pii.scoring import names as _names

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


def _rows() -> list[tuple[str, str]]:
    out = []
    for name in ("pii_labelled.jsonl", "pii_heldout.jsonl"):
        with open(DATA / name, encoding="utf-8") as fh:
            out += [(r["locale"], r["text"]) for r in map(json.loads, filter(str.strip, fh))]
    return out


def _variants(text: str) -> list[str]:
    """The text, title-cased, with a capitalised name put mid-sentence, and with letters whose lower case
    does not align (İ, the Kelvin sign K) and an apostrophe."""
    return [text, text.title(), text + " I asked Priya about it", text.replace("k", "\u212a"),
            "\u0130 " + text, text.replace(" ", " O'Brien ", 1), text.capitalize() + " Thanks, Rahul."]


@pytest.mark.parametrize(("locale", "text"), [
    ("en-US", "Email me at john.johnson@gmail.com please, about invoice INV-279-5040."),
    ("en-GB", "Best number is 07724 781538, ta."),
    ("en-IN", "The technician will come at 9:00 pm on 8 September 2026."),
    ("hi-Latn-IN", "Kal 12:00 ka slot book kar doon? 25/3/2026 ko aayega."),
])
def test_listed_words_in_lower_case_or_opening_a_sentence_are_no_name_in_cased_text(locale: str, text: str):
    assert _names(locale, text) == []


@pytest.mark.parametrize(("locale", "text", "name"), [
    ("en-US", "Could you send the form to Jessica Carter by Friday?", "Jessica Carter"),
    ("en-US", "I spoke to Deepa yesterday about the refund.", "Deepa"),
    ("en-GB", "Best to ask Oliver, he handled the claim.", "Oliver"),
    ("en-US", "Yesterday I tried to speak to Okonkwo about my bill.", "Okonkwo"),
    ("en-IN", "Thanks, Priya. The technician will come at 9:00 pm.", "Priya"),
])
def test_names_the_short_cut_must_leave_to_the_scan_are_still_found(locale: str, text: str, name: str):
    s = text.index(name)
    assert (s, s + len(name)) in _names(locale, text)


def test_spoken_digits_in_other_scripts_still_get_a_digit_view():
    for locale, text in [("hi-IN", "मेरा नंबर नौ आठ सात छह पांच चार तीन दो एक शून्य है"),
                         ("zh-CN", "我的电话是一三八一二三四五六七八"),
                         ("en-GB", "it's £20, my number is oh seven seven two four seven eight one five three eight")]:
        assert spoken_digits.digit_view(text, get_pack(locale).number_words) is not None, locale
    for locale, text in [("hi-IN", "ठीक है, मैं कल फ़ोन करूँगा।"), ("zh-CN", "好的，我明天再打电话。"),
                         ("en-GB", "it cost £20 at the shop")]:
        assert spoken_digits.digit_view(text, get_pack(locale).number_words) is None, locale


@pytest.mark.parametrize(("locale", "text", "value", "score"), [
    ("en-GB", "Best number is +44 7410 671066, ta.", "+44 7410 671066", 0.9),  # valid: the matcher's
    ("en-GB", "ring +44 7700 900123 after six", "+44 7700 900123", 0.7),  # reserved range: still a phone
    ("en-US", "my cell is +1 415 408 8367.", "+1 415 408 8367", 0.9),
])
def test_international_numbers_are_found_whether_valid_or_only_possible(locale, text, value, score):
    s = text.index(value)
    got = [(m.start, m.end, m.score) for m in find_pii(get_pack(locale), text) if m.type == "phone"]
    assert got == [(s, s + len(value), score)]
