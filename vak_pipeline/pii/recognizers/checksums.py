"""Check-digit validation: a number that fails its checksum is not that kind of id (cuts false positives).

The algorithms come from python-stdnum (a well-kept library of national id, IBAN and card validators);
these names stay as the recognizers' narrow interface to it.
"""

from __future__ import annotations

from stdnum import iban as _iban
from stdnum import luhn as _luhn
from stdnum import verhoeff as _verhoeff
from stdnum.cn import ric as _cn_ric
from stdnum.gb import nhs as _nhs
from stdnum.in_ import aadhaar as _aadhaar
from stdnum.us import ssn as _ssn


def luhn_ok(digits: str) -> bool:
    """Payment cards (ISO/IEC 7812)."""
    return _luhn.is_valid(digits)


def verhoeff_ok(digits: str) -> bool:
    """Verhoeff check digit (dihedral group D5), as Aadhaar uses."""
    return _verhoeff.is_valid(digits)


def aadhaar_ok(digits: str) -> bool:
    """Aadhaar: 12 digits, first not 0/1, not a palindrome, Verhoeff check digit."""
    return _aadhaar.is_valid(digits)


def nhs_ok(digits: str) -> bool:
    """NHS number: mod-11 check digit over the first nine digits (10 is never valid)."""
    return len(digits) == 10 and _nhs.is_valid(digits)


def iban_ok(iban: str) -> bool:
    """ISO 13616 mod-97 and the country's BBAN length and format."""
    return _iban.is_valid(iban)


def cn_resident_id_ok(idno: str) -> bool:
    """GB 11643 resident id: 18 characters, ISO 7064 MOD 11-2 check character, a valid birth date.

    Not stdnum's `is_valid`, which also requires the area code in its own place list: a real id from
    an area missing there (renamed districts) would then be left unredacted."""
    idno = idno.upper()
    if len(idno) != 18 or not idno[:17].isdigit() or idno[17] != _cn_ric.calc_check_digit(idno):
        return False
    try:
        _cn_ric.get_birth_date(idno)
    except ValueError:  # stdnum's InvalidComponent is a ValueError
        return False
    return True


def us_ssn_ok(digits: str) -> bool:
    """SSA rules: area not 000/666/9xx, group not 00, serial not 0000, not a known advertising number."""
    return _ssn.is_valid(digits)
