"""Addresses in Chinese (district/road/building/room) and Indian forms (flat/house/sector/gali/colony,
Devanagari); the whole address is one span. Assertions compare (type, start, end) only."""

from __future__ import annotations

import pytest

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.recognizers import find_pii


def addresses(locale: str, text: str) -> list[tuple[int, int]]:
    return [(m.start, m.end) for m in find_pii(get_pack(locale), text) if m.type == "address"]


def at(text: str, value: str) -> tuple[int, int]:
    i = text.index(value)
    return i, i + len(value)


FOUND = [
    pytest.param(
        "zh-CN",
        "我住在北京市朝阳区建国路88号3栋1201室，邮编100022",
        "北京市朝阳区建国路88号3栋1201室",
        id="zh-cue-building-room",
    ),
    pytest.param(
        "zh-CN",
        "寄到上海市浦东新区张江路一百号五号楼三零二室",
        "上海市浦东新区张江路一百号五号楼三零二室",
        id="zh-chinese-numerals",
    ),
    pytest.param(
        "zh-CN",
        "放在成都市武侯区科华北路65号2栋3单元1104室门口",
        "成都市武侯区科华北路65号2栋3单元1104室",
        id="zh-no-cue-district-road",
    ),
    pytest.param("zh-CN", "地址是阳光花园12栋2单元502室", "阳光花园12栋2单元502室", id="zh-estate"),
    pytest.param(
        "en-IN",
        "flat 302, b wing, sai krupa apartments, andheri east, mumbai 400069",
        "flat 302, b wing, sai krupa apartments, andheri east, mumbai 400069",
        id="in-flat-apartments-pin",
    ),
    pytest.param(
        "en-IN",
        "it's house no 45 sector 15 gurgaon 122001",
        "house no 45 sector 15 gurgaon 122001",
        id="in-house-sector",
    ),
    pytest.param(
        "hi-Latn-IN",
        "ghar ka pata flat 712, Krishna Heights, Salt Lake hai",
        "flat 712, Krishna Heights",
        id="in-heights",
    ),
    pytest.param(
        "hi-IN",
        "मकान नंबर 12, गली नंबर 3, लक्ष्मी नगर पर भेज दीजिए",
        "मकान नंबर 12, गली नंबर 3, लक्ष्मी नगर",
        id="deva-house-gali-nagar",
    ),
    pytest.param(
        "en-US",
        "I'm at 77 Larkspur Court, apartment 4B, Boise, ID 83702.",
        "77 Larkspur Court, apartment 4B, Boise, ID 83702",
        id="us-pieces-merged",
    ),
]


@pytest.mark.parametrize(("locale", "text", "value"), FOUND)
def test_the_address_is_found_whole(locale, text, value):
    s, e = at(text, value)
    got = addresses(locale, text)
    assert any(a <= s and e <= b for a, b in got), got


KEPT = [
    pytest.param("zh-CN", "订单号20240501已经发货，三号到", id="zh-date-not-address"),
    pytest.param("en-IN", "sector wise sales were 12 percent up", id="sector-word"),
    pytest.param("en-US", "we have 3 streets of houses in the plan", id="number-and-street-word"),
]


@pytest.mark.parametrize(("locale", "text"), KEPT)
def test_numbers_near_address_words_are_not_addresses(locale, text):
    assert addresses(locale, text) == []
