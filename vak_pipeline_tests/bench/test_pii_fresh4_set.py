"""The fresh4 person-name set (bench/data/pii_fresh4.jsonl) is what its generator writes, every span covers
exactly the value it labels with titles left outside, phones are valid numbers, the eight locales weigh the
same, and its hard negatives carry no span. No scores here: the set is read once, in bench_privacy, and never
tuned on."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from itertools import pairwise
from pathlib import Path

import phonenumbers
import pytest

from vak_pipeline_tests.script_modules import load_script

pytestmark = pytest.mark.timeout(120)

DATA = Path(__file__).parents[2] / "bench" / "data"
WORDS = dict(zip("zero one two three four five six seven eight nine".split(), "0123456789", strict=True))
TITLES = re.compile(r"^(mr|mrs|ms|mister|dr|herr|herrn|frau|mme|monsieur|madame|señor|señora|don|श्री|श्रीमती)\b", re.I)
HAN_TITLES = ("先生", "女士", "经理", "老师")


def _generator():
    return load_script(DATA / "make_pii_fresh4.py")


def _committed() -> list[dict]:
    with open(DATA / "pii_fresh4.jsonl", encoding="utf-8") as fh:
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


def test_titles_and_honorifics_lie_outside_the_name_spans():
    for row in _committed():
        for s in row["spans"]:
            value = row["text"][s["start"] : s["end"]]
            if s["type"] == "person_name":
                assert not TITLES.match(value) and not value.endswith(HAN_TITLES), row["id"]
                assert not value.endswith((" ji", " जी")), row["id"]


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


def test_each_positive_wording_is_rendered_three_times_with_different_names():
    gen = _generator()
    rows = _committed()
    assert all(not r["spans"] for r in rows if r["shape"].startswith("neg_"))
    assert all(any(s["type"] == "person_name" for s in r["spans"]) for r in rows if not r["shape"].startswith("neg_"))
    wordings = sum(len(t) for t in gen.POS.values())
    assert sum(1 for r in rows if r["spans"]) == wordings * gen.RENDERINGS == 3 * wordings
    names_by_wording: dict[tuple[str, int], list[tuple[str, ...]]] = defaultdict(list)
    for r in rows:
        if r["spans"]:
            index = int(r["id"].rsplit("-f", 1)[1]) // gen.RENDERINGS
            names = tuple(r["text"][s["start"] : s["end"]] for s in r["spans"] if s["type"] == "person_name")
            names_by_wording[r["locale"], index].append(names)
    assert all(len(set(renderings)) == gen.RENDERINGS for renderings in names_by_wording.values())


def test_the_eight_locales_weigh_the_same_and_about_seven_rows_in_ten_name_someone():
    gen = _generator()
    rows = _committed()
    per_locale = Counter(r["locale"] for r in rows)
    assert set(per_locale) == set(gen.LOCALES) and len(set(per_locale.values())) == 1
    positives = sum(1 for r in rows if r["spans"]) / len(rows)
    assert 330 <= len(rows) <= 370 and 0.65 <= positives <= 0.75
    assert all(r["split"] == "fresh4" for r in rows)
    assert 0.2 <= sum(r["asr"] for r in rows) / len(rows) <= 0.5
    assert len({r["id"] for r in rows}) == len(rows)
    assert len({(r["locale"], r["text"]) for r in rows}) == len(rows)


def test_each_locale_carries_names_that_are_ordinary_words_and_names_with_particles_or_hyphens():
    gen = _generator()
    rows = _committed()
    for locale, pairs in gen.WORD_NAMES.items():
        names = {r["text"][s["start"] : s["end"]].lower() for r in rows if r["locale"] == locale for s in r["spans"]}
        assert any(given.lower() in name for given, _ in pairs for name in names), locale
    shapes = {(r["locale"], r["shape"]) for r in rows}
    assert {("de-DE", "particle"), ("fr-FR", "particle"), ("es-ES", "two_surnames"), ("en-GB", "hyphen")} <= shapes
