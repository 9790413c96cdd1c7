"""What every recognizer returns, and the small text helpers they share (compiled once, at import)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...pii import PLACEHOLDER_RE  # noqa: F401  (placeholders are never PII themselves, never re-detected)


@dataclass(frozen=True, slots=True)
class Match:
    """One PII candidate in a text. `norm` is the value's identity (E.164, digits, lowercase); never logged."""

    type: str
    start: int
    end: int
    score: float
    recognizer: str
    norm: str


# Words that, just before a number, mark it as a business identifier rather than a person's.
_BUSINESS_CUES = re.compile(
    r"(?:\b(?:order|orders|invoice|ticket|booking|tracking|transaction|txn|ref|reference|awb|pnr|complaint|case|"
    r"customer|cust|account\s+id|sku|item|product|model|serial|shipment|consignment|request|sr|receipt|bill|"
    r"policy|claim|employee|emp)\b|订单|单号|工单|编号|客户号|快递)",
    re.IGNORECASE,
)
_PERSONAL_CUES = re.compile(
    r"(?:\b(?:phone|mobile|cell|contact|call|calling|whatsapp|reach|dial|landline|aadhaar|aadhar|aadhar|card|nhs|"
    r"ssn|social\s+security|insurance|pan|id\s+card|identity|resident)\b|手机|电话|身份证|联系|आधार|फ़ोन|फोन|मोबाइल)",
    re.IGNORECASE,
)


def business_context(text: str, start: int, window: int = 32) -> bool:
    """True when the closest cue before `start` names a business id (order, ticket ...), not a person's number."""
    left = text[max(0, start - window):start]
    biz = [m.end() for m in _BUSINESS_CUES.finditer(left)]
    if not biz:
        return False
    pers = [m.end() for m in _PERSONAL_CUES.finditer(left)]
    return not pers or biz[-1] > pers[-1]


def has_cue(text: str, start: int, cue: re.Pattern[str], window: int = 40) -> bool:
    return cue.search(text, max(0, start - window), start) is not None


def digits_of(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit() and ch.isascii())


def word_bounded(text: str, start: int, end: int) -> bool:
    """The span is not glued to letters/digits on either side (so 'A12345' inside 'XA12345Y' is not taken)."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or after.isalnum())
