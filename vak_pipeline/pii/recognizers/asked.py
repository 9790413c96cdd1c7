"""What the other speaker just asked for. After "can I have the card number?", the reply's digit run is
a card even when ASR dropped the reply's own cue or broke the check digit ("the current number is
415004276, 5522588"). Phones have the same rule in phone.py; this covers cards and postal codes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from ...locales.packfile import QUESTION_TYPES
from .base import THOUSANDS, Match, business_context, digits_of, shared
from .phone import asks_for_number
from .spoken_digits import digit_view, spoken_digit_words

# The words of a question for each type ("card", "pin code", 卡号, 邮编): `question_words` in en-US, hi-IN and
# zh-CN, in QUESTION_TYPES order (asked_types lists types in that order).
_ASKS: dict[str, re.Pattern[str]] = {
    t: re.compile("|".join(shared("question_words", t)), re.IGNORECASE) for t in QUESTION_TYPES
    if shared("question_words", t)
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



# The audio-side safety net. After the other speaker asked a question, five or more digits in the reply
# are somebody's number (phone, card, PIN, account, OTP) even when no recognizer could tell which: ASR
# garbles the cue that would say so ("My lip code is five seven six seven four" for "zip code",
# "I've been coded 3, 4, 6, 1, 0, 3" for "pin code"). They are redacted as UNSURE, so the masked audio
# holds none of them. Not after a business cue (order, ticket ...), nor an amount: a currency before,
# a unit after, or thousands written "41,500".
UNSURE = "unsure_number"
MIN_UNSURE_DIGITS = 5
# words tiny.en writes for a digit said in a run, seen in espeak-ng -> tiny.en transcripts (also over a
# telephone band): "zero free six nine nine", "7 to 1, 0, 1", "eye one eye two one" (nine one nine two
# one), "46, i.e. 72" and "46 381, I'm 7 0 0 3" (nine); taken only between two digits
_SOUNDS_LIKE = {"to": "2", "too": "2", "for": "4", "free": "3", "tree": "3", "ate": "8", "won": "1",
                "i.e.": "9", "i'm": "9", "i’m": "9", "eye": "9", "i": "9"}
_SEP = r"[\s,.\-/]{1,3}"
_NOT_AFTER_LETTER = r"(?<![^\W\d_])(?<![\u0900-\u097F])"
_NOT_BEFORE_LETTER = r"(?![^\W\d_])(?![\u0900-\u097F])"
_AMOUNT_BEFORE = re.compile(r"(?:[$€£¥₹]|\b(?:rs|inr|usd)\.?)\s?$", re.IGNORECASE)
_AMOUNT_AFTER = re.compile(
    r"^\s?(?:[%€$£¥₹元块]|(?:rupees?|rs|dollars?|bucks|pounds?|euros?|yuan|rmb|percent|points|pts|miles|km|"
    r"kilomet(?:er|re)s?|kgs?|grams|minutes|mins|hours|hrs|seconds|days|years|times|mb|gb)\b|रुपये|रुपए)",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=64)
def _unsure_run_re(extra_words: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str], dict[str, str], dict[str, int]]:
    words, repeats = spoken_digit_words(extra_words)
    digit = "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))
    rep = "|".join(sorted((re.escape(w) for w in repeats), key=len, reverse=True))
    like = "|".join(sorted((re.escape(w) for w in _SOUNDS_LIKE), key=len, reverse=True))
    tok = rf"(?:(?:{_NOT_AFTER_LETTER}(?:{rep})\s+)?(?:\d+|{_NOT_AFTER_LETTER}(?:{digit}){_NOT_BEFORE_LETTER}))"
    between = rf"(?:{_NOT_AFTER_LETTER}(?:{like}){_NOT_BEFORE_LETTER}{_SEP})"
    rx = re.compile(rf"(?<!\d){tok}(?:{_SEP}{between}*{tok})*(?!\d)", re.IGNORECASE)
    return rx, {w.lower(): d for w, d in words.items()}, {w.lower(): n for w, n in repeats.items()}


def _spoken_digits(run: str, words: dict[str, str], repeats: dict[str, int]) -> str:
    """The digits a run says ("double five 3 to 1" -> "55321")."""
    out, times = [], 1
    for t in re.findall(r"\d+|i\.e\.|i['’]m|[^\W\d_]+|[\u0900-\u097F]+", run.lower()):
        if t in repeats:
            times = repeats[t]
            continue
        d = t if t.isdigit() and t.isascii() else words.get(t, _SOUNDS_LIKE.get(t, ""))
        out.append(d * times if len(d) == 1 else d)
        times = 1
    return "".join(out)


def asks_a_question(text: str) -> bool:
    """The turn asks something (a question mark, an ask for a number, card or postcode), and not for a
    business id ("what is the order number?")."""
    tail = text[-80:]
    if business_context(tail, len(tail)):
        return False
    return "?" in tail or "？" in tail or asks_for_number(tail) or any(rx.search(tail) for rx in _ASKS.values())


def find_unsure_runs(text: str, extra_words: tuple[tuple[str, str], ...] = (),
                     asked: tuple[str, ...] = ()) -> Iterator[Match]:
    """Runs of MIN_UNSURE_DIGITS or more digits in a reply, written or spoken, that are no amount and no
    business id; the caller knows that the reply answers a question (asks_a_question). A run as long as
    a value of an `asked` type (asked_types) is that type: "which card?" and sixteen digits is a card."""
    rx, words, repeats = _unsure_run_re(extra_words)
    view = digit_view(text, extra_words)  # Chinese digit characters, which have no word boundaries
    for src, mapping in ((text, None), (view.text if view else None, view)):
        if src is None:
            continue
        for m in rx.finditer(src):
            digits = _spoken_digits(m.group(), words, repeats)
            if len(digits) < MIN_UNSURE_DIGITS or THOUSANDS.search(m.group()):
                continue
            s, e = (m.start(), m.end()) if mapping is None else mapping.to_original(m.start(), m.end())
            if _AMOUNT_BEFORE.search(text[max(0, s - 6):s]) or _AMOUNT_AFTER.match(text[e:e + 16]):
                continue
            if business_context(text, s, end=e):
                continue
            ptype = next((t for t in asked if _LENGTHS[t][0] <= len(digits) <= _LENGTHS[t][1]), None)
            yield Match(ptype or UNSURE, s, e, 0.3, "asked" if ptype else "unsure_digits", digits)
