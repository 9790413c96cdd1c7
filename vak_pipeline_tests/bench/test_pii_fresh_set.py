"""The fresh person-name set (bench/data/pii_fresh.jsonl) is what its generator writes, every span covers
exactly the value it labels, and its hard negatives carry no span. No scores here: the set is scored in
bench_privacy (`fresh/`), a tuning set since 2026-12-03."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vak_pipeline_tests.script_modules import load_script

pytestmark = pytest.mark.timeout(120)

DATA = Path(__file__).parents[2] / "bench" / "data"


def _generator():
    return load_script(DATA / "make_pii_fresh.py")


def _committed() -> list[dict]:
    with open(DATA / "pii_fresh.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_the_generator_is_deterministic_and_the_committed_file_is_its_output():
    gen = _generator()
    first = gen.build()
    assert first == gen.build()
    assert first == _committed()


def test_every_span_lies_inside_its_text_and_names_carry_no_surrounding_space():
    for row in _committed():
        for s in row["spans"]:
            value = row["text"][s["start"]:s["end"]]
            assert 0 <= s["start"] < s["end"] <= len(row["text"]), row["id"]
            assert value == value.strip() and value, row["id"]
            assert s["type"] in {"person_name", "phone", "email", "uk_postcode"}, row["id"]


def test_negatives_have_no_span_and_each_positive_wording_is_rendered_four_times():
    gen = _generator()
    rows = _committed()
    assert all(not r["spans"] for r in rows if r["shape"].startswith("neg_"))
    assert all(r["spans"] for r in rows if not r["shape"].startswith("neg_"))
    wordings = sum(len(t) for t in gen.POS.values())
    assert sum(1 for r in rows if r["spans"]) == wordings * gen.RENDERINGS
    assert wordings >= 60 and sum(len(t) for t in gen.NEG.values()) >= 25
    assert all(r["split"] == "fresh" for r in rows)
