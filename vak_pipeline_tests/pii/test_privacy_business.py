"""Business numbers are kept in every language of a pack (PNR, UTR, order/ticket/booking/reference
numbers, versions, model numbers), while a person's number next to them is still redacted."""

from __future__ import annotations

import pytest

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.recognizers import find_pii


def types(locale: str, text: str) -> list[str]:
    return [m.type for m in find_pii(get_pack(locale), text)]


KEPT = [
    pytest.param("en-US", "the firmware 4.2.0.118 keeps crashing", id="firmware-not-ip"),
    pytest.param("zh-CN", "固件版本4.2.0.118有问题", id="zh-firmware-not-ip"),
    pytest.param("hi-IN", "सॉफ्टवेयर वर्जन 5.1.0.22 है", id="deva-version-not-ip"),
    pytest.param("en-US", "order id 415-555-0132 hasn't arrived", id="dashed-order-not-phone"),
    pytest.param("en-US", "415-555-0132 is my order number", id="order-cue-after"),
    pytest.param("en-US", "my confirmation code is 613-514-8203 for the order", id="confirmation-code"),
    pytest.param("hi-Latn-IN", "mera PNR 8123456789 hai", id="pnr-hinglish-not-phone"),
    pytest.param("hi-IN", "मेरा पीएनआर नंबर 8123456789 है", id="pnr-devanagari-not-phone"),
    pytest.param("hi-Latn-IN", "UTR 412345678901 wala payment abhi tak nahi aaya", id="utr-not-aadhaar"),
    pytest.param("hi-IN", "यूटीआर 234567890124 वाला भुगतान नहीं मिला", id="utr-devanagari"),
    pytest.param("hi-IN", "बुकिंग नंबर 9876543210 है", id="booking-devanagari"),
    pytest.param("zh-CN", "订单号20240501123456789已经发货", id="zh-order"),
    pytest.param("zh-CN", "运单号13812345678查不到", id="zh-waybill-not-phone"),
    pytest.param("en-IN", "ticket 9876543210 was closed without a fix", id="ticket-not-phone"),
    pytest.param("en-US", "model X420-17 and serial SN-88213-B", id="model-serial"),
]


@pytest.mark.parametrize(("locale", "text"), KEPT)
def test_business_numbers_stay(locale, text):
    assert types(locale, text) == []


def test_a_phone_after_a_business_number_is_still_a_phone():
    text = "order 4521-8812-09, and call me on 98765 43210"
    assert types("en-IN", text) == ["phone"]


def test_a_personal_cue_closer_than_the_business_cue_wins():
    assert types("en-IN", "for the booking my mobile is 98765 43210") == ["phone"]


def test_a_business_cue_in_the_next_clause_does_not_hide_an_ip():
    assert types("en-US", "my server is 10.20.30.40, your order ships today") == ["ip_address"]
