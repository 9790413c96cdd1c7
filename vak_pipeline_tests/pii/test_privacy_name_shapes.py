# ruff: noqa: RUF001  (full-width punctuation is the data)
"""Person names an independent check found missed: after a field label ("Name: ...", "the account holder is
...", 持卡人是), spelled letter by letter in ASR text, an initial before a surname, a Chinese full name after a
verb or preposition with no title or cue, an agent introducing herself in Devanagari. Each is found with its
span; the look-alikes beside each (letters that spell nothing, an initial before an ordinary word, 高兴)
are not. Failures name spans, never values."""

from __future__ import annotations

import pytest

from vak_pipeline_tests.pii.scoring import names as _names
from vak_pipeline_tests.pii.scoring import span as _span

FOUND = [
    # after a field label
    ("en-US", "Name: John Smith", "John Smith"),
    ("en-US", "full name: priya sharma, date of birth next", "priya sharma"),
    ("en-US", "the account holder is wesley okafor", "wesley okafor"),
    ("zh-CN", "持卡人是贺婉清", "贺婉清"),
    ("zh-CN", "账户持有人是李娜，对吗", "李娜"),
    ("zh-CN", "户主是张伟", "张伟"),
    # spelled letter by letter
    ("en-US", "my surname is s m i t h", "s m i t h"),
    ("en-US", "it's spelled k o w a l s k i", "k o w a l s k i"),
    ("en-GB", "that's smith s m i t h", "smith s m i t h"),
    ("en-US", "last name spelled H-A-R-G-R-E-A-V-E-S", "H-A-R-G-R-E-A-V-E-S"),
    # an initial and a surname
    ("en-US", "please ask J. Smith to call back", "J. Smith"),
    ("en-GB", "Dear A. Johnson, thank you", "A. Johnson"),
    ("en-IN", "the form was signed by R. K. Patel yesterday", "R. K. Patel"),
    # a Chinese full name after a verb or preposition
    ("zh-CN", "我把包裹交给了贺婉清", "贺婉清"),
    ("zh-CN", "你和张伟联系一下", "张伟"),
    ("zh-CN", "我找刘洋", "刘洋"),
    # an agent introducing herself in Devanagari
    ("hi-IN", "नमस्ते, मैं एक्सिस बैंक से प्रिया बोल रही हूँ", "प्रिया"),
    ("hi-IN", "नमस्ते, मैं अंजलि, एचडीएफसी बैंक से", "अंजलि"),
    ("hi-IN", "मैं प्रिया शर्मा बोल रही हूं", "प्रिया शर्मा"),
]


@pytest.mark.parametrize(("locale", "text", "name"), FOUND)
def test_the_name_is_found_with_its_span(locale: str, text: str, name: str) -> None:
    assert _span(text, name) in _names(locale, text)


NOT_NAMES = [
    ("en-US", "press a b c to continue"),
    ("en-US", "the letters are x y z"),
    ("en-US", "the U.S. Army base"),
    ("en-US", "choose option B. Then press send"),
    ("zh-CN", "我很高兴的"),
    ("zh-CN", "给我打电话"),
    ("zh-CN", "和朋友一起去"),
    ("hi-IN", "मैं कस्टमर केयर से आपसे बात कर रही हूँ"),
]


@pytest.mark.parametrize(("locale", "text"), NOT_NAMES)
def test_look_alikes_are_no_name(locale: str, text: str) -> None:
    assert _names(locale, text) == []
