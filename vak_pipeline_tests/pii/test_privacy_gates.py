"""The recognizers skip a regex scan when a cheap test says it cannot match (RegexGate: a literal prefix
of the pattern must occur). A gate that said "no" where the pattern matches would lose a finding, so
every gate is checked against its pattern on real utterances, on every slice of them (the window
searches of has_cue), and on text that tempts case folding: letters re.IGNORECASE takes for ASCII ones
(İ ı ſ K), upper case, mixed scripts. Failures name the pattern, never the text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from vak_pipeline.locales.registry import PACKS
from vak_pipeline.pii.recognizers import base, email, lexicon_names, names, phone, postcodes, spoken_digits
from vak_pipeline.pii.recognizers.base import RegexGate

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"

TRICKY = [
    "my name is Priya Sharma",
    "MY NAME IS PRIYA",
    "My nameſ is ſam",  # ſ (long s) matches s under re.IGNORECASE
    "İ am Deepa, thıs is my ſon",  # İ and ı match i
    "call me on the Kontact number",  # K (Kelvin sign) matches k
    "my zip is 94105, the pın code 560034",
    "मेरा नाम राहुल है, phone 98765 43210",
    "我叫王美玲，我的手机是13812345678",
    "this is mr. sharma speaking with you",
    "ſpeaking to Mr Patel, CALL ME at 4155550132",
    "पिन कोड 110001 hai, PIN code 110001",
    "邮编100080，postal code 100080",
    "mera naam rahul hai, main rahul bol raha hoon",
]


def _texts() -> list[str]:
    out = list(TRICKY)
    for name in ("pii_labelled.jsonl", "pii_heldout.jsonl"):
        with open(DATA / name, encoding="utf-8") as fh:
            out += [json.loads(line)["text"] for line in fh if line.strip()]
    out += [t.upper() for t in out[:200]] + [t.replace("i", "\u0131").replace("s", "\u017f") for t in out[:200]]
    return out


def _gated() -> list[tuple[str, re.Pattern[str]]]:
    pats = [(f"names._CUES[{k}]", cue) for k, (cue, _, _) in enumerate(names._CUES)]
    pats += [
        ("names._ANY_PREFILTER", names._ANY_PREFILTER),
        ("names._LATIN_PREFILTER", names._LATIN_PREFILTER),
        ("names._DEVA_NAME_RE", names._DEVA_NAME_RE),
        ("names._ZH_NAME_RE", names._ZH_NAME_RE),
        ("lexicon_names._QUICK_PHRASES_RE", lexicon_names._QUICK_PHRASES_RE),  # (a gate would not pay here)
        ("postcodes._IN_CUE", postcodes._IN_CUE),
        ("postcodes._CN_CUE", postcodes._CN_CUE),
        ("postcodes._US_CUE", postcodes._US_CUE),
        ("phone._PHONE_CUE", phone._PHONE_CUE),
        ("base._BUSINESS_CUES", base._BUSINESS_CUES),
        ("base._PERSONAL_CUES", base._PERSONAL_CUES),
        ("email._SPOKEN_PREFILTER", email._SPOKEN_PREFILTER),
    ]
    return pats


@pytest.mark.parametrize(("name", "rx"), _gated(), ids=[n for n, _ in _gated()])
def test_a_gate_never_rules_out_text_its_pattern_matches(name: str, rx: re.Pattern[str]):
    gate = RegexGate(rx)
    texts = _texts()
    missed = 0
    for t in texts:
        if rx.search(t) is not None and not gate.might_match(t):
            missed += 1
        for a in range(0, len(t), 7):  # windows, as has_cue searches them
            window = t[max(0, a - 40) : a]
            if rx.search(t, max(0, a - 40), a) is not None and not gate.might_match(window or t):
                missed += 1
    assert missed == 0, f"{name}: the gate ruled out {missed} matching texts"


@pytest.mark.parametrize(("name", "rx"), _gated(), ids=[n for n, _ in _gated()])
def test_a_scan_from_the_gates_start_finds_every_match(name: str, rx: re.Pattern[str]):
    """start_pos: no match starts before it, so finditer from there finds the same matches."""
    gate = RegexGate(rx)
    wrong = 0
    for t in _texts():
        pos = gate.start_pos(t)
        every = [m.span() for m in rx.finditer(t)]
        if (every and pos < 0) or (pos >= 0 and [m.span() for m in rx.finditer(t, pos)] != every):
            wrong += 1
    assert wrong == 0, f"{name}: {wrong} texts"


def test_a_gate_reads_the_literal_prefixes_of_its_pattern():
    gate = RegexGate(re.compile(r"\b(?:my\s+name|name\s+is|mera\s+naam)\s+", re.IGNORECASE))
    assert gate.ascii is not None and set(gate.ascii) == {"my", "name", "mera"}
    assert not gate.might_match("the order arrived late")
    assert gate.might_match("MY NAME IS PRIYA")
    # a pattern that may start with a digit or a look-behind gives no prefixes: the gate always says yes
    assert RegexGate(re.compile(r"(?<!\d)\d{6}")).might_match("no digits here")
    # an other-script prefix is looked for as it is; Latin ones need a Latin letter
    zh = RegexGate(re.compile(r"(?:邮编|邮政编码|\bzip\b)", re.IGNORECASE))
    assert not zh.might_match("我的手机是13812345678")
    assert zh.might_match("邮编100080")
    assert zh.might_match("我的 ZIP 是 100080")


def test_email_and_lexicon_shortcuts_agree_with_their_patterns():
    """The email finder's shortcut ('dot' or '<provider>.'), on ASCII text and on other text without İ ı ſ K,
    and the provider list it reads."""
    assert email._PROVIDER_DOTS is not None and "gmail." in email._PROVIDER_DOTS
    extra = ["ईमेल rahul dot sharma at gmail dot com", "邮箱 wang.li at qq.com", "naam: priya.k atgmail.com hai"]
    for t in _texts() + extra:
        if base.ODD_CASE_RE.search(t) is None and (email._SPOKEN_PREFILTER.search(t) or email._GLUED_GATE.search(t)):
            low = t.lower()
            assert "dot" in base.latin_words(t) or any(p in low for p in email._PROVIDER_DOTS)
    assert [m.type for m in email.find_emails(extra[0], base.latin_words(extra[0]))] == ["email"]


def test_spoken_digit_words_are_counted_as_the_prefilter_counts_them():
    """digit_view counts number words without its prefilter scan where that count is exact: each pack's
    table, on utterances with number words glued to digits, underscores, Chinese digits and case-folding
    letters put in."""
    extra = ["एक", "दो", "five", "FIVE", "一", "〇", "five5", "_one", "एकदो", "one一", "ſix", "İ", "ek do teen", "zero"]
    texts = _texts()[:600]
    mixed = [t + " " + w for t in texts for w in extra[: 1 + len(t) % len(extra)]]
    tables = [spoken_digits._table(w) for w in {p.number_words for p in PACKS.values()}]
    wrong = sum(
        spoken_digits._count_words(t, tab, t.isascii()) != len(tab.prefilter.findall(t))
        for tab in tables
        for t in texts + mixed
    )
    assert wrong == 0

