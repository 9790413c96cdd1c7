"""Check-digit algorithms: a number that fails its checksum is not that kind of id (cuts false positives)."""

from __future__ import annotations

_VERHOEFF_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5), (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
    (3, 4, 0, 1, 2, 8, 9, 5, 6, 7), (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3), (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
    (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4), (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
    (8, 9, 1, 6, 0, 4, 3, 5, 2, 7), (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)


def luhn_ok(digits: str) -> bool:
    """Payment cards (ISO/IEC 7812)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def verhoeff_ok(digits: str) -> bool:
    """Aadhaar's check digit (dihedral group D5)."""
    c = 0
    for i, ch in enumerate(reversed(digits)):
        c = _VERHOEFF_D[c][_VERHOEFF_P[i % 8][ord(ch) - 48]]
    return c == 0


def nhs_ok(digits: str) -> bool:
    """NHS number: weights 10..2 over the first nine digits, check = 11 - (sum mod 11); 10 is never valid."""
    if len(digits) != 10:
        return False
    total = sum((10 - i) * (ord(digits[i]) - 48) for i in range(9))
    check = 11 - total % 11
    if check == 11:
        check = 0
    return check != 10 and check == ord(digits[9]) - 48


def iban_ok(iban: str) -> bool:
    """ISO 13616 mod-97: move the first four characters to the end, letters to 10..35, remainder must be 1."""
    s = iban[4:] + iban[:4]
    rem = 0
    for ch in s:
        if ch.isdigit():
            rem = (rem * 10 + ord(ch) - 48) % 97
        else:
            rem = (rem * 100 + ord(ch.upper()) - 55) % 97
    return rem == 1


_CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_CHECK = "10X98765432"


def cn_resident_id_ok(idno: str) -> bool:
    """GB 11643 (ISO 7064 MOD 11-2) over the first 17 digits; the 18th is 0-9 or X."""
    if len(idno) != 18 or not idno[:17].isdigit():
        return False
    total = sum(w * (ord(c) - 48) for w, c in zip(_CN_WEIGHTS, idno[:17], strict=True))
    return _CN_CHECK[total % 11] == idno[17].upper()
