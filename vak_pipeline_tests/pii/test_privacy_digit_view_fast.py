"""The digit view read by dict lookups over a text's word runs must be the one run_re reads, to the character:
the same spoken runs, the same digits and the same map back to the text, in every built-in pack's table and in
tables with words of several digits, upper-case keys and words the lookups cannot read.

Two kinds of evidence: the Unicode facts the lookup path rests on, checked for every character (sre against
str.lower()), and random texts of number words in every script and case, repeat and plus words, digits of
several scripts, Chinese digits and odd characters, compared with the regex path. Failures give indices and
spans, never the text."""

from __future__ import annotations

import _sre
import dataclasses
import random
import re
import re._casefix
import sys

import pytest

from vak_pipeline.locales import PACKS
from vak_pipeline.pii.recognizers import spoken_digits as sd

_ALL = "".join(chr(i) for i in range(sys.maxunicode + 1) if not 0xD800 <= i <= 0xDFFF)
_TABLES = sorted({p.number_words for p in PACKS.values()})
# Tables beyond the built-in packs: words of two digits, keys not in lower case; and words that are not plain
_ODD_TABLES = [(("ten", "10"), ("Fünf", "5"), ("ELF", "11"), ("één", "1"), ("SECHS", "6"), ("sechs", "7"),
                ("dreißig", "30"))]
_NOT_PLAIN = [(("σ", "1"),), (("µ", "1"),), (("twenty one", "21"),), (("x1", "1"),), (("plusone", "1"),),
              (("double", "2"),), (("ſix", "6"),), (("सात१", "7"),)]


def test_lower_keeps_every_character_in_its_class_except_dotted_capital_i():
    """_view_by_lookup splits text.lower(): that must have the runs and gaps of the text, and each character's
    lower() must be the simple lower case that sre compares."""
    run, sep = re.compile(r"[\w\u0900-\u097F]"), re.compile(r"[\s,\-]")
    odd = []
    for c in _ALL:
        low = c.lower()
        if c == "\u0130":
            assert len(low) == 2
            continue
        if (
            len(low) != 1
            or low != chr(_sre.unicode_tolower(ord(c)))
            or bool(run.match(c)) != bool(run.match(low))
            or bool(sep.match(c)) != bool(sep.match(low))
            or c.isspace() != low.isspace()
            or c.isdecimal() != low.isdecimal()
        ):
            odd.append(hex(ord(c)))
    assert odd == []


def test_plain_letters_are_matched_by_re_ignorecase_as_lower_says():
    """What _plain_letter relies on: nothing lower-cases to an uncased Devanagari character but itself; the
    characters whose lower case is an extra re._casefix pair of an ASCII letter are among İ ı ſ K; and for
    every character of the built-in words, re.IGNORECASE matches exactly the characters of the same lower
    case, apart from İ ı ſ K."""
    lowered: dict[str, list[str]] = {}
    for c in _ALL:
        lowered.setdefault(chr(_sre.unicode_tolower(ord(c))), []).append(c)
    deva = [c for c in _ALL if "\u0900" <= c <= "\u097f" and not _sre.unicode_iscased(ord(c))]
    assert deva and all(lowered.get(c, [c]) == [c] for c in deva)
    extra = {chr(x) for k, v in re._casefix._EXTRA_CASES.items() if k < 128 for x in v}
    assert {t for e in extra for t in lowered.get(e, [])} <= sd._ASCII_CASE_ODD
    chars = {c for extra_words in _TABLES for w in sd._table(extra_words).lookup.number for c in w}
    chars |= {c.upper() for c in chars} | {c for w in sd._REPEAT for c in w}
    assert {"ü", "é", "å", "छ", "ः", "ँ"} <= chars
    wrong = []
    for p in sorted(chars):
        assert sd._plain_letter(p)
        by_re = set(re.findall(re.escape(p), _ALL, re.IGNORECASE)) - sd._ASCII_CASE_ODD
        by_lower = {t for t in lowered.get(p.lower(), []) if t.lower() == p.lower()} - sd._ASCII_CASE_ODD
        if by_re != by_lower:
            wrong.append(p)
    assert wrong == []


def test_every_built_in_table_is_read_by_lookups_and_words_that_are_not_plain_are_not():
    assert all(sd._table(w).lookup is not None for w in _TABLES + _ODD_TABLES)
    assert [w for w in _NOT_PLAIN if sd._table(w).lookup is not None] == []


def _pool(extra_words: tuple[tuple[str, str], ...]) -> tuple[list[str], list[str]]:
    """(words, separators) to build texts from."""
    table = sd._table(extra_words)
    words = [*table.words, *sd._REPEAT, *sd._PLUS]
    digits = ["5", "12", "0987", "१२३", "٣", "１２", "৭", "12345", "9" * 11]
    other = ["call", "me", "it's", "on", "fivefold", "one_two", "five5", "oh-oh", "नंबर", "है", "号码", "是",
             "İ", "ı", "ſix", "\u212a", "ΣΑΣ", "ß", "ẞ", "µ", "e\u0301", "_", "onE", "Σ", "sıx", "nıne", "o\u0301"]
    zh = list(sd._ZH) + ["幺三八", "一二三四五六七", "〇〇〇"]
    return words * 6 + digits * 2 + other + zh, [" ", " ", " ", "  ", ", ", ",", "-", " - ", "\t", "\n", ". ", "'",
                                                  "/", "", "\u00a0", "\u3000", ", -", " ,", "(", ") ", "?", "\u0301"]


def _case(rnd: random.Random, w: str) -> str:
    k = rnd.random()
    if k < 0.55:
        return w
    if k < 0.7:
        return w.upper()
    if k < 0.8:
        return w.title()
    return "".join(c.upper() if rnd.random() < 0.5 else c for c in w)


def _texts(extra_words: tuple[tuple[str, str], ...], n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    words, seps = _pool(extra_words)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rnd.randint(1, 22)):
            parts += (_case(rnd, rnd.choice(words)), rnd.choice(seps) if rnd.random() < 0.3 else " ")
        out.append("".join(parts[: -1 if rnd.random() < 0.7 else None]))
    return out


def _spans(view: sd.DigitView | None) -> object:
    return None if view is None else (len(view.text), view.starts[:3], view.ends[-3:])


@pytest.mark.parametrize("extra_words", _TABLES + _ODD_TABLES, ids=lambda w: ",".join(x for x, _ in w[:2]) or "-")
def test_lookups_read_the_runs_that_run_re_reads(extra_words):
    table = sd._table(extra_words)
    texts = _texts(extra_words, 2500, seed=len(extra_words))
    plain = [t for t in texts if sd._ASCII_CASE_ODD.isdisjoint(t)]
    fast = [sd._view_by_lookup(t, table.lookup, t.isascii()) for t in plain]
    slow = [sd._view_by_regex(t, table) for t in plain]
    differ = [(k, _spans(a), _spans(b)) for k, (a, b) in enumerate(zip(fast, slow, strict=True)) if a != b]
    assert differ[:3] == [] and len(differ) == 0
    assert sum(v is not None for v in slow) > 300  # the texts do hold spoken digits
    assert sum(v is not None and "+" in v.text for v in slow) > 5


@pytest.mark.parametrize("extra_words", _TABLES[:3] + _ODD_TABLES + _NOT_PLAIN[:2])
def test_digit_view_gives_what_the_regex_path_gives(monkeypatch: pytest.MonkeyPatch, extra_words):
    """Through digit_view, its short cuts and the texts with İ ı ſ K (which take the regex path) included."""
    texts = _texts(extra_words, 1500, seed=7)
    fast = [sd.digit_view(t, extra_words) for t in texts]
    table = sd._table

    def regex_only(words: tuple[tuple[str, str], ...] = ()) -> sd._Table:
        return dataclasses.replace(table(words), lookup=None)

    monkeypatch.setattr(sd, "_table", regex_only)
    slow = [sd.digit_view(t, extra_words) for t in texts]
    differ = [(k, _spans(a), _spans(b)) for k, (a, b) in enumerate(zip(fast, slow, strict=True)) if a != b]
    assert differ[:3] == [] and len(differ) == 0
    assert sum(v is not None for v in slow) > 100


def test_the_examples_read_as_spoken():
    text = "it's oh seven eight six five zero nine eight three five seven if you need me"
    view = sd.digit_view(text)
    assert view is not None and view.text == "it's 07865098357 if you need me"
    assert view.to_original(5, 16) == (5, text.index(" if"))
    view = sd.digit_view("मेरा नंबर सात छह चार आठ दो तीन शून्य सात छह सात है")
    assert view is not None and view.text == "मेरा नंबर 7648230767 है"
    view = sd.digit_view("Plus Nine One, double 5; triple ५ 1 2")  # 4 digits, then 5 on their own
    assert view is not None and view.text == "Plus Nine One, double 5; 55512"
    assert sd.digit_view("triple पांच तीन एक panch") is None  # 4 number words and no digit: not looked at
    view = sd.digit_view("Plus Nine One, double 5 - triple ५ 1 2")
    assert view is not None and view.text == "+915555512"
    assert view.to_original(3, 5) == (15, 23)
