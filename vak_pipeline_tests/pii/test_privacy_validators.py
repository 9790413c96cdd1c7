"""National ids, IBAN and cards are checked by python-stdnum (issue 17): valid numbers pass, one digit off
fails, and the stricter library rules are used where they are safe for redaction."""

from __future__ import annotations

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.recognizers import find_pii
from vak_pipeline.pii.recognizers.checksums import (
    aadhaar_ok,
    cn_resident_id_ok,
    iban_ok,
    luhn_ok,
    nhs_ok,
    us_ssn_ok,
    verhoeff_ok,
)


def test_each_validator_accepts_a_valid_number_and_rejects_one_digit_off():
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert verhoeff_ok("2363") and not verhoeff_ok("2364")
    assert aadhaar_ok("234567890124") and not aadhaar_ok("234567890125")
    assert nhs_ok("9434765919") and not nhs_ok("9434765918")
    assert iban_ok("GB82WEST12345698765432") and not iban_ok("GB82WEST12345698765433")
    assert cn_resident_id_ok("11010519491231002X") and not cn_resident_id_ok("110105194912310021")
    assert us_ssn_ok("123456789") and not us_ssn_ok("000456789")


def test_library_rules_beyond_the_check_digit():
    assert not us_ssn_ok("078051120")  # the SSA's advertising number, never a person's
    assert not iban_ok("GB82WEST123456987654")  # mod-97 alone is not enough: the UK BBAN has 18 characters
    assert not cn_resident_id_ok("110105194902300011")  # 30 February is no birth date


def test_a_resident_id_from_an_area_missing_in_stdnums_place_list_is_still_redacted():
    # 440305 (Shenzhen Nanshan) is a real area code; the check digit and the birth date are what count
    body = "44030519670122123"
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    idno = body + "10X98765432"[sum(a * int(b) for a, b in zip(w, body, strict=True)) % 11]
    assert cn_resident_id_ok(idno)
    text = f"身份证{idno}。"
    assert [(m.type, m.start, m.end) for m in find_pii(get_pack("zh-CN"), text)] == [("cn_resident_id", 3, 21)]
