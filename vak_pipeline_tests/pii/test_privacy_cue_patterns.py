"""Cue alternations are built as tries (packfile.cue_alternation): the trie finds, at each position, the
longest cue followed by a word boundary, as a flat longest-first alternation does.
Checked here against the flat patterns on real utterances, in upper case and with İ ı ſ K."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from vak_pipeline.locales.packfile import cue_alternation
from vak_pipeline.locales.registry import BUILTIN_PACKS
from vak_pipeline.pii.recognizers import base, names

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


def _flat(words: list[str], other_gap: str = r"\s?") -> str:
    """cue_alternation as it was: one alternative per cue, longest first."""

    def one(w: str, gap: str) -> str:
        return gap.join(re.escape(part) for part in w.split())

    latin = sorted({one(w, r"\s+") for w in words if w.isascii()}, key=lambda a: (-len(a), a))
    other = sorted({one(w, other_gap) for w in words if not w.isascii()}, key=lambda a: (-len(a), a))
    alts = ([r"\b(?:" + "|".join(latin) + r")\b"] if latin else []) + other
    return "(?:" + "|".join(alts) + ")" if alts else "(?!)"


def _cue_lists() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"business": [w for p in BUILTIN_PACKS.values() if p.rules is not None
                                              for w in p.rules.shared_business]}
    for kind in ("personal", "phone", "postcode", "us_ssn", "uk_nhs", "uk_nino", "in_aadhaar", "in_pan"):
        out[kind] = base.shared_cues(kind)
    # prefixes of one another, several words, an apostrophe, case variants of one word
    out["made up"] = ["order", "orders", "order id", "order  number", "ord", "it's", "it", "a b c", "a b", "PNR"]
    return out


def _texts() -> list[str]:
    out = [
        "my order id is 12345", "ORDERS  NUMBER 5", "the ordinance", "it's a b c d", "a  b", "Pnr 1234",
        "my ſocial ſecurity number", "İd card", "the Kontact number", "पी एन आर 123", "订单号 8812",
    ]
    for name in ("pii_labelled.jsonl", "pii_heldout.jsonl"):
        with open(DATA / name, encoding="utf-8") as fh:
            out += [json.loads(line)["text"] for line in fh if line.strip()]
    return out + [t.upper() for t in out[:300]] + [t.replace("i", "\u0131").replace("s", "\u017f") for t in out[:100]]


def _span(m: re.Match[str] | None) -> tuple[int, int] | None:
    return None if m is None else m.span()


@pytest.mark.parametrize("kind", list(_cue_lists()))
def test_the_trie_shaped_cue_pattern_matches_where_the_flat_one_does(kind: str):
    words = _cue_lists()[kind]
    trie = re.compile(cue_alternation(words), re.IGNORECASE)
    flat = re.compile(_flat(words), re.IGNORECASE)
    assert trie.pattern != flat.pattern or len({w.lower() for w in words if w.isascii()}) < 2
    wrong = 0
    for t in _texts():
        wrong += [m.span() for m in trie.finditer(t)] != [m.span() for m in flat.finditer(t)]
        for a in range(0, len(t), 9):  # windows, as business_context and has_cue search them
            lo = max(0, a - 32)
            wrong += _span(trie.search(t, lo, a)) != _span(flat.search(t, lo, a))
            wrong += [m.span() for m in trie.finditer(t[lo:a])] != [m.span() for m in flat.finditer(t[lo:a])]
    assert wrong == 0, f"{kind}: {wrong} searches differ"


def test_cues_differing_only_in_case_stay_a_flat_alternation():
    """Under re.IGNORECASE two such siblings would both match: the trie's first-found match could be shorter."""
    assert cue_alternation(["PNR", "pnr", "pnr no"]) == _flat(["PNR", "pnr", "pnr no"])
    assert cue_alternation(["pnr", "pnr no"]) != _flat(["pnr", "pnr no"])


def test_a_cued_name_in_other_scripts_is_found_after_the_word_set_gate():
    """names.find_cued_names picks the Latin rules by the text's word set; the Latin cues of a mixed text,
    and the Devanagari and Chinese ones, are still found."""
    found = {t: sorted({(m.start, m.end) for m in names.find_cued_names(t)}) for t in (
        "नमस्ते, my name is Priya Sharma",
        "मेरा नाम राहुल है",
        "我叫王美玲，谢谢",
        "My name is Zoë Ćirić",
        "mY ſurname is Patel, my name is Deepa Rao",
    )}
    assert found["नमस्ते, my name is Priya Sharma"] == [(19, 31)]
    assert found["मेरा नाम राहुल है"] == [(9, 14)]
    assert found["我叫王美玲，谢谢"] == [(2, 5)]
    # "surname is" is a cue too; re.IGNORECASE reads ſ as s
    assert found["mY ſurname is Patel, my name is Deepa Rao"] == [(14, 19), (32, 41)]
