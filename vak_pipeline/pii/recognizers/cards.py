"""Payment card numbers: 13-19 digits, a plausible issuer prefix, and a valid Luhn check digit."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import Match, business_context, digits_of
from .checksums import luhn_ok

_CARD_RE = re.compile(r"(?<![\d.])\d(?:[ \-]?\d){12,18}(?![\d])")
# Visa 4, Mastercard 51-55/22-27, Amex 34/37, Diners 30/36/38, JCB 35, Discover/RuPay/UnionPay 6, RuPay 81/82/508
_IIN_RE = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[0478]|35|6|8[12]|508)")


def find_cards(text: str) -> Iterator[Match]:
    for m in _CARD_RE.finditer(text):
        d = digits_of(m.group())
        if not (13 <= len(d) <= 19) or not _IIN_RE.match(d) or len(set(d)) == 1 or not luhn_ok(d):
            continue
        if business_context(text, m.start(), 16):  # "order 4111 ..." names an order; a card a clause later is a card
            continue
        yield Match("payment_card", m.start(), m.end(), 0.9, "luhn", d)
