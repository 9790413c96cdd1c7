"""The fresh2 person-name set (bench/data/pii_fresh2.jsonl) is what its generator writes, every span covers
exactly the value it labels, phones are valid numbers, and its hard negatives carry no span. No scores here:
the set is measured once, in bench_privacy, and never tuned on."""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import pairwise
from pathlib import Path

import phonenumbers
import pytest

from vak_pipeline_tests.script_modules import load_script

pytestmark = pytest.mark.timeout(120)

DATA = Path(__file__).parents[2] / "bench" / "data"
WORDS = dict(zip("zero one two three four five six seven eight nine".split(), "0123456789", strict=True)) | {"oh": "0"}


def _generator():
    return load_script(DATA / "make_pii_fresh2.py")


def _committed() -> list[dict]:
    with open(DATA / "pii_fresh2.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_the_generator_is_deterministic_and_the_committed_file_is_its_output():
    gen = _generator()
    first = gen.build()
    assert first == gen.build()
    assert first == _committed()


def test_spans_lie_inside_their_text_without_surrounding_space_and_never_overlap():
    for row in _committed():
        spans = sorted(row["spans"], key=lambda s: s["start"])
        for s in spans:
            value = row["text"][s["start"] : s["end"]]
            assert 0 <= s["start"] < s["end"] <= len(row["text"]), row["id"]
            assert value == value.strip() and value, row["id"]
            assert s["type"] in {"person_name", "phone", "email"}, row["id"]
        assert all(a["end"] <= b["start"] for a, b in pairwise(spans)), row["id"]


def test_every_labelled_phone_is_a_valid_number_of_the_locale_written_or_spoken():
    gen = _generator()
    for row in _committed():
        region = gen.LOCALES[row["locale"]][1]
        for s in row["spans"]:
            if s["type"] == "phone":
                value = row["text"][s["start"] : s["end"]]
                if row["asr"]:
                    value = "".join(WORDS[w] for w in value.split())
                assert phonenumbers.is_valid_number(phonenumbers.parse(value, region)), row["id"]


def test_asr_rows_are_lower_case_without_punctuation_or_digits():
    for row in _committed():
        if row["asr"]:
            assert row["text"] == row["text"].lower(), row["id"]
            assert not re.search(r"[.,!?;:，。？！、।\d]", row["text"]), row["id"]


def test_negatives_have_no_span_and_each_positive_wording_is_rendered_three_times():
    gen = _generator()
    rows = _committed()
    assert all(not r["spans"] for r in rows if r["shape"].startswith("neg_"))
    assert all(any(s["type"] == "person_name" for s in r["spans"]) for r in rows if not r["shape"].startswith("neg_"))
    wordings = sum(len(t) for t in gen.POS.values())
    assert sum(1 for r in rows if r["spans"]) == wordings * gen.RENDERINGS == 3 * wordings
    positives = sum(1 for r in rows if r["spans"]) / len(rows)
    assert 550 <= len(rows) <= 700 and 0.65 <= positives <= 0.75
    assert set(Counter(r["locale"] for r in rows)) == set(gen.LOCALES)
    assert all(r["split"] == "fresh2" for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)
