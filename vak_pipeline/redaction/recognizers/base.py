"""What every recognizer returns, and the small text helpers they share (compiled once, at import)."""

from __future__ import annotations

import functools
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


# Words that, just before a number, mark it as a business identifier rather than a person's, in each
# language of the packs: English, Romanized Hindi, Devanagari, Chinese (PNR, UTR, order/ticket/booking/
# reference numbers, versions and model numbers).
_BUSINESS_CUES = re.compile(
    r"(?:\b(?:order|orders|invoice|ticket|booking|tracking|transaction|txn|ref|reference|awb|pnr|utr|rrn|complaint|"
    r"case|customer|cust|account\s+id|sku|item|product|model|serial|shipment|consignment|request|sr|receipt|bill|"
    r"policy|claim|employee|emp|version|ver|firmware|build|release|patch|software|docket|challan|voucher|"
    r"coupon|token|confirmation|conf|shikayat|shikaayat|aadesh|bukking|tikat|tiket|rasid|raseed)\b|"
    r"ऑर्डर|आर्डर|ऑडर|टिकट|बुकिंग|पीएनआर|पी\s?एन\s?आर|यूटीआर|यू\s?टी\s?आर|रेफरेंस|रेफ़रेंस|संदर्भ|शिकायत|"
    r"वर्जन|वर्ज़न|संस्करण|मॉडल|मोडल|इनवॉइस|बिल|ट्रांजैक्शन|ट्रांज़ैक्शन|रसीद|कंप्लेंट|"
    r"订单|单号|工单|编号|客户号|快递|运单|流水号|交易号|参考号|版本|固件|型号|序列号|票号|预订号|订票|车次|航班|发票|投诉)",
    re.IGNORECASE,
)
_PERSONAL_CUES = re.compile(
    r"(?:\b(?:phone|mobile|cell|contact|call|calling|whatsapp|reach|dial|landline|aadhaar|aadhar|aadhar|card|nhs|"
    r"ssn|social\s+security|insurance|pan|id\s+card|identity|resident)\b|手机|电话|身份证|联系|आधार|फ़ोन|फोन|मोबाइल)",
    re.IGNORECASE,
)
# After a number, a business cue names it only when it follows at once, in the same clause ("4155550132
# is my order number", "8123456789 wala booking", "是订单号"): after a comma it is about something else.
_BUSINESS_AFTER = re.compile(
    r"^\s?(?:(?:is|was|for|hai|वाला|वाली|wala|wali|是|的)\s*)?(?:(?:my|mera|meri|the|that|this|मेरा)\s+)?"
    + _BUSINESS_CUES.pattern,
    re.IGNORECASE,
)


def business_context(text: str, start: int, window: int = 32, end: int | None = None) -> bool:
    """True when the closest cue before `start` names a business id (order, ticket, PNR, 订单 ...), not a
    person's number; with `end`, also when such a cue follows the number at once."""
    left = text[max(0, start - window):start]
    biz = [m.end() for m in _BUSINESS_CUES.finditer(left)]
    pers = [m.end() for m in _PERSONAL_CUES.finditer(left)]
    if biz:
        return not pers or biz[-1] > pers[-1]
    if end is not None and not pers:
        return _BUSINESS_AFTER.match(text[end:end + 40]) is not None
    return False


_LATIN_WORD = re.compile(r"[a-z]+")


@functools.lru_cache(maxsize=512)
def latin_words(text: str) -> frozenset[str]:
    """The lower-case Latin words of `text`, computed once per text for every recognizer's keyword gate."""
    return frozenset(_LATIN_WORD.findall(text.lower()))


def has_cue(text: str, start: int, cue: re.Pattern[str], window: int = 40) -> bool:
    return cue.search(text, max(0, start - window), start) is not None


def digits_of(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit() and ch.isascii())


def word_bounded(text: str, start: int, end: int) -> bool:
    """The span is not glued to letters/digits on either side (so 'A12345' inside 'XA12345Y' is not taken)."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or after.isalnum())
