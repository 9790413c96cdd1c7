"""The recognizers are declared objects evaluated by one engine: a Recognizer's gates (digit-run length, a
substring, a capital) keep its finder off texts that cannot hold its type; a PatternRecognizer is patterns
+ validator + context words + the business test, nothing else; and no recognizer reaches into private API
of CPython or a library."""

from __future__ import annotations

import re
from pathlib import Path

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.recognizers import RECOGNIZERS
from vak_pipeline.pii.recognizers.base import Keywords, latin_words, lead_words, phrase_words
from vak_pipeline.pii.recognizers.engine import Pattern, PatternRecognizer, Recognizer, longest_run, scan

PII = Path(__file__).resolve().parents[2] / "vak_pipeline"


def test_no_private_api_of_cpython_or_a_library_is_used():
    private = re.compile(r"_sre|re\._|_parse_and_verify|phonenumbers\.\w+\._")
    for path in [*(PII / "pii").rglob("*.py"), *(PII / "locales").rglob("*.py")]:
        hits = [k for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if private.search(line)]
        assert hits == [], f"{path.name}: lines {hits}"


def test_a_gate_keeps_the_finder_off_a_text_that_cannot_hold_the_type():
    calls: list[str] = []

    def finder(text, pack, words):
        calls.append(text)
        return []

    gated = {"phone": Recognizer("phone", finder, min_run=6), "iban": Recognizer("iban", finder, needs_capital=True),
             "ip_address": Recognizer("ip_address", finder, needs_digit=True, any_of=(".", ":"))}
    pack = get_pack("en-US")
    for text in ("call 555 12", "no digits here", "iban gb82"):
        scan(gated, pack, text, frozenset())
    assert calls == []
    scan(gated, pack, "call 555 123 4567 at 10.30", frozenset())
    assert len(calls) == 2  # phone (a run of ten digits) and ip_address (a digit and a dot); no capital: no iban


def test_the_longest_digit_run_allows_two_separators_between_digits():
    assert longest_run("call 555-123 4567") == 10
    assert longest_run("a 12 - 34 b") == 2
    assert longest_run("none") == 0


def test_a_pattern_recognizer_is_patterns_validator_context_and_the_business_test():
    cue = re.compile(r"\bmember\b", re.IGNORECASE)
    rec = PatternRecognizer("member_id", "member", (Pattern(re.compile(r"\b\d{6}\b"), 0.5),),
                            lambda v: None if v.startswith("0") else v, context=cue, context_score=0.9, business=32)
    assert [(m.start, m.end, m.score) for m in rec("member 123456")] == [(7, 13, 0.9)]  # cued: the context score
    assert [m.score for m in rec("it is 123456")] == [0.5]
    assert list(rec("member 012345")) == []  # the validator refuses it
    assert list(rec("order number 123456")) == []  # a business id
    required = PatternRecognizer("member_id", "member", rec.patterns, str, context=cue, needs="context")
    assert list(required("it is 123456")) == [] and len(list(required("member no. 123456"))) == 1


def test_every_type_has_one_declared_recognizer_named_for_it():
    assert all(r.type == t for t, r in RECOGNIZERS.items())
    assert RECOGNIZERS["person_name"].digit_view is False and RECOGNIZERS["phone"].min_run == 6


def test_a_keyword_gate_is_declared_words_checked_against_the_texts_words():
    gate = Keywords.of([frozenset({"street"}), frozenset({"my", "name"})], any_of=("住在",))
    assert gate.open("12 Elm Street", latin_words("12 Elm Street"))
    assert gate.open("so my name", latin_words("so my name"))
    assert not gate.open("my account", latin_words("my account"))  # every word of one set
    assert gate.open("我住在北京", latin_words("我住在北京"))
    # İ ı ſ K match ASCII letters case-blind but lower() does not give them: the gate stays open
    assert gate.open("12 Elm ſtreet", latin_words("12 Elm ſtreet"))


def test_gate_words_are_read_off_the_rules_own_words():
    assert set(lead_words([r"h\.?\s?no\.?", r"house\s+no"])) == {frozenset({"h"}), frozenset({"hno"}),
                                                                  frozenset({"house"})}
    # a cue's last word may run into the value ("live at" + "at1 Elm Street"), so it is not required
    assert phrase_words(["i live at", "address:"], drop_last=True) == [frozenset({"i", "live"}),
                                                                       frozenset({"address"})]


def test_a_pattern_recognizer_with_keywords_is_not_tried_without_them():
    rec = PatternRecognizer("address", "unit", (Pattern(re.compile(r"flat \d+"), 0.8),), str,
                            keywords=Keywords.of([frozenset({"flat"})]))
    assert [m.norm for m in rec("flat 4", None, latin_words("flat 4"))] == ["flat 4"]
    assert list(rec("flat 4", None, frozenset())) == []
