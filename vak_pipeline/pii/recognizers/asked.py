"""What the other speaker just asked for. After "can I have the card number?", the reply's digit run is
a card even when ASR dropped the reply's own cue or broke the check digit ("the current number is
415004276, 5522588"). Phones have the same rule in phone.py; this covers cards and postal codes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import Match, business_context, digits_of
from .spoken_digits import digit_view

_ASKS: dict[str, re.Pattern[str]] = {
    "payment_card": re.compile(r"\bcard\b|कार्ड|卡号|银行卡", re.IGNORECASE),
    "in_pin": re.compile(r"\bpin\s?code\b|\bpincode\b|पिन\s*कोड|पिनकोड", re.IGNORECASE),
    "us_zip": re.compile(r"\bzip\b|\bzip\s?code\b|\bpostal\s+code\b", re.IGNORECASE),
    "cn_postcode": re.compile(r"邮编|邮政编码"),
}
# digits a value of the type has (a ZIP may be ZIP+4)
_LENGTHS = {"payment_card": (13, 19), "in_pin": (6, 6), "us_zip": (5, 9), "cn_postcode": (6, 6)}
_RUN = re.compile(r"\d(?:(?:[\s().\-/]|,\s?){0,2}\d)+")


def asked_types(question: str, pii_types: tuple[str, ...]) -> list[str]:
    """The value types the end of `question` asks for, among the pack's."""
    tail = question[-80:]
    return [t for t, rx in _ASKS.items() if t in pii_types and rx.search(tail)]


def find_asked_runs(text: str, ptype: str) -> Iterator[Match]:
    """Digit runs of the asked type's length in a reply, written or spoken; not after a business cue."""
    lo, hi = _LENGTHS[ptype]
    view = digit_view(text)
    for src, mapping in ((text, None), (view.text if view else None, view)):
        if src is None:
            continue
        for m in _RUN.finditer(src):
            d = digits_of(m.group())
            if not lo <= len(d) <= hi:
                continue
            s, e = (m.start(), m.end()) if mapping is None else mapping.to_original(m.start(), m.end())
            if business_context(text, s, end=e):
                continue
            yield Match(ptype, s, e, 0.6, "asked", d)
