"""PII recognizers per locale pack: what they find, what they must not (business entities), checksums."""

from __future__ import annotations

import pytest

from vak_pipeline.locales import get_pack
from vak_pipeline.pii import PiiFinding, scan_pii
from vak_pipeline.pii.recognizers import find_pii
from vak_pipeline.pii.recognizers.checksums import cn_resident_id_ok, iban_ok, luhn_ok, nhs_ok, verhoeff_ok
from vak_pipeline.pii.recognizers.spoken_digits import digit_view


def found(locale: str, text: str, names: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    return [(m.type, text[m.start:m.end]) for m in find_pii(get_pack(locale), text, names)]


# ------------------------------------------------------------------ checksums
def test_checksums_accept_valid_and_reject_one_digit_off():
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert verhoeff_ok("2363") and not verhoeff_ok("2364")  # the textbook Verhoeff example
    assert nhs_ok("9434765919") and not nhs_ok("9434765918")
    assert iban_ok("GB82WEST12345698765432") and not iban_ok("GB82WEST12345698765433")
    assert iban_ok("DE89370400440532013000")
    assert cn_resident_id_ok("11010519491231002X") and not cn_resident_id_ok("110105194912310021")


# ------------------------------------------------------------------ positives, one per recognizer
POSITIVES = [
    ("en-US", "call me at (415) 555-0132 tonight", "phone", "(415) 555-0132"),
    ("en-GB", "my mobile is 07911 123456", "phone", "07911 123456"),
    ("en-IN", "mera number 98765 43210 hai", "phone", "98765 43210"),
    ("en-IN", "alternate +91 98765 43210 please", "phone", "+91 98765 43210"),
    ("zh-CN", "我的手机号是13812345678，谢谢", "phone", "13812345678"),
    ("en-IN", "it's nine eight seven six five four three two one zero", "phone",
     "nine eight seven six five four three two one zero"),
    ("en-GB", "ring oh seven nine one one, one two three four five six", "phone",
     "oh seven nine one one, one two three four five six"),
    ("en-US", "four one five, five five five, oh one double three", "phone",
     "four one five, five five five, oh one double three"),
    ("hi-Latn-IN", "number hai nau aath saat chhe paanch chaar teen do ek shunya", "phone",
     "nau aath saat chhe paanch chaar teen do ek shunya"),
    ("zh-CN", "手机一三八一二三四五六七八，谢谢", "phone", "一三八一二三四五六七八"),
    ("en-US", "email john.carter@example.com now", "email", "john.carter@example.com"),
    ("en-IN", "it's priya dot sharma at gmail dot com sir", "email", "priya dot sharma at gmail dot com"),
    ("en-US", "card 4111 1111 1111 1111 expiring", "payment_card", "4111 1111 1111 1111"),
    ("en-GB", "IBAN GB82 WEST 1234 5698 7654 32 thanks", "iban", "GB82 WEST 1234 5698 7654 32"),
    ("en-US", "router 192.168.1.20 is down", "ip_address", "192.168.1.20"),
    ("en-US", "or 2001:db8::1 on v6", "ip_address", "2001:db8::1"),
    ("en-US", "my SSN is 123-45-6789", "us_ssn", "123-45-6789"),
    ("en-GB", "NI number AB 12 34 56 C", "uk_nino", "AB 12 34 56 C"),
    ("en-GB", "NHS number 943 476 5919", "uk_nhs", "943 476 5919"),
    ("en-GB", "postcode SW1A 1AA", "uk_postcode", "SW1A 1AA"),
    ("en-IN", "aadhaar 2345 6789 0124 hai", "in_aadhaar", "2345 6789 0124"),
    ("en-IN", "PAN ABCPE1234F please", "in_pan", "ABCPE1234F"),
    ("hi-Latn-IN", "upi rahul.v@okhdfcbank pe bhejo", "in_upi", "rahul.v@okhdfcbank"),
    ("zh-CN", "身份证11010519491231002X。", "cn_resident_id", "11010519491231002X"),
    ("en-US", "Hi, my name is John Carter and I need help", "person_name", "John Carter"),
    ("hi-Latn-IN", "mera naam Rahul Verma hai", "person_name", "Rahul Verma"),
    ("en-IN", "hello this is Priya from SunCare", "person_name", "Priya"),
    ("en-US", "I am Emily, calling about a refund", "person_name", "Emily"),
    ("en-GB", "you're speaking with Oliver today", "person_name", "Oliver"),
    ("hi-IN", "मेरा नाम प्रिया शर्मा है", "person_name", "प्रिया शर्मा"),
    ("zh-CN", "您好，我叫张伟，想查订单", "person_name", "张伟"),
    ("en-GB", "I live at 221B Baker Street, London NW1 6XE", "address", "221B Baker Street, London NW1 6XE"),
    ("en-IN", "send it to flat 12, MG Road, Bengaluru 560001 please", "address", "flat 12, MG Road, Bengaluru 560001"),
    ("zh-CN", "我住在北京市朝阳区建国路88号", "address", "北京市朝阳区建国路88号"),
]


@pytest.mark.parametrize(("locale", "text", "ptype", "value"), POSITIVES)
def test_recognizer_finds(locale, text, ptype, value):
    assert (ptype, value) in found(locale, text)


def test_descriptor_names_are_found_in_any_case_and_by_part():
    assert found("en-IN", "thanks priya, and sharma ji", ("Priya Sharma",)) == [
        ("person_name", "priya"), ("person_name", "sharma")]


# ------------------------------------------------------------------ negatives: checksums and business entities
NEGATIVES = [
    ("en-US", "card 4111 1111 1111 1112 expiring"),  # Luhn fails
    ("en-IN", "aadhaar 2345 6789 0125 hai"),  # Verhoeff fails
    ("en-GB", "NHS number 943 476 5918"),  # mod 11 fails
    ("en-GB", "IBAN GB82 WEST 1234 5698 7654 33"),  # mod 97 fails
    ("zh-CN", "身份证110105194912310021。"),  # ISO 7064 fails
    ("en-US", "my SSN is 666-45-6789"),  # never issued
    ("en-US", "call 555 0132"),  # too short to be valid
]
BUSINESS = [
    ("en-IN", "your order 123456789012 ships today"),
    ("en-IN", "order 9876543210 is delayed"),
    ("hi-Latn-IN", "Charge ₹500 hoga, customer ID SC-4471."),
    ("en-US", "slot on 2026-09-17 at 10:30 am, total $45.99"),
    ("en-GB", "ticket TK-99812 raised 17/09/2026 for £120"),
    ("en-IN", "invoice INV-2026-00042, tracking number 9123456789012345"),
    ("zh-CN", "订单号123456789012，金额500元，2026-09-17下单。"),
    ("en-US", "upgrade to version 1.2.3.4 first"),
    ("en-US", "I am calling about my order"),
    ("en-US", "I bought 3 shirts at the store"),
    ("hi-Latn-IN", "Ek minute, do din me aa jayega, paanch sau rupaye"),
    ("en-US", "it's <PHONE_1> and <EMAIL_2>, my name is <PERSON_1>"),  # placeholders are never PII
]


@pytest.mark.parametrize(("locale", "text"), NEGATIVES + BUSINESS)
def test_nothing_found(locale, text):
    assert found(locale, text) == []


def test_packs_enable_only_their_types():
    assert found("en-IN", "my SSN is 123-45-6789") == []  # not an en-IN type
    assert found("en-US", "PAN ABCPE1234F") == []


def test_findings_never_overlap():
    text = "email priya.sharma@example.com or my name is Priya Sharma"
    ms = find_pii(get_pack("en-IN"), text, ("Priya Sharma",))
    assert all(a.end <= b.start for a, b in zip(ms, ms[1:], strict=False))
    assert ms[0].type == "email"  # the email contains a name; the longer span wins


def test_spoken_digit_view_maps_back_to_the_words():
    text = "call plus nine one 98765 four three two one zero now"
    view = digit_view(text)
    assert view is not None and "+919876543210" in view.text
    i = view.text.index("+919876543210")
    s, e = view.to_original(i, i + len("+919876543210"))
    assert text[s:e] == "plus nine one 98765 four three two one zero"
    assert digit_view("ek minute, do din") is None


def test_scan_pii_reports_type_and_range_only():
    out = scan_pii(get_pack("en-US"), "mail me at a.b@example.com")
    assert out == [PiiFinding(type="email", start=11, end=26, score=out[0].score, recognizer="email")]
    assert not hasattr(out[0], "value")
