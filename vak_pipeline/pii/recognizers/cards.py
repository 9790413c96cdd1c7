"""Payment card numbers: 13-19 digits, a plausible issuer prefix, and a valid Luhn check digit."""

from __future__ import annotations

import re

from .base import digits_of
from .checksums import luhn_ok
from .engine import Pattern, PatternRecognizer

# Visa 4, Mastercard 51-55/22-27, Amex 34/37, Diners 30/36/38, JCB 35, Discover/RuPay/UnionPay 6, RuPay 81/82/508
_IIN_RE = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[0478]|35|6|8[12]|508)")


def _card(value: str) -> str | None:
    d = digits_of(value)
    return d if 13 <= len(d) <= 19 and _IIN_RE.match(d) and len(set(d)) > 1 and luhn_ok(d) else None


# "order 4111 ..." names an order (the business test's window: 16 characters); a card a clause later is a card
PAYMENT_CARD = PatternRecognizer(
    "payment_card", "luhn", (Pattern(re.compile(r"(?<![\d.])\d(?:[ \-]?\d){12,18}(?![\d])"), 0.9),), _card, business=16,
)
