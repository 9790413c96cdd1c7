"""The never-tuned person-name sets (bench/data/pii_fresh*.jsonl) are what their generators write, every span
covers exactly the value it labels (titles left outside), phones are valid numbers of the row's locale, ASR rows
read like ASR, and hard negatives carry no span. No scores here: each set is read once, in bench_privacy, before
anyone tunes on it. One spec per set says what differs (size, renderings, how ids number the wordings)."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import phonenumbers
import pytest

from vak_pipeline_tests.script_modules import load_script

pytestmark = pytest.mark.timeout(120)

DATA = Path(__file__).parents[2] / "bench" / "data"
WORDS = dict(zip("zero one two three four five six seven eight nine".split(), "0123456789", strict=True)) | {"oh": "0"}
TITLES = re.compile(
    r"^(mr|mrs|ms|mister|dr|herr|herrn|frau|mme|monsieur|madame|señor|señora|don|श्री|श्रीमती)\b", re.IGNORECASE)
HAN_TITLES = ("先生", "女士", "经理", "老师")


@dataclass(frozen=True)
class NameSet:
    name: str  # the file stem after pii_ and the rows' split
    rows: tuple[int, int]  # the size the set was built at (a generator edit that moves it is seen)
    renderings: int  # each positive wording, each time with other names
    types: frozenset[str] = frozenset({"person_name", "phone", "email"})
    locales_weigh_the_same: bool = False
    wording_id: str | None = None  # the id's letter before the row number, when ids count wordings x renderings
    asr_share: tuple[float, float] | None = None
    positives: tuple[float, float] = (0.65, 0.75)  # the share of rows that name someone

    def generator(self):
        return load_script(DATA / f"make_pii_{self.name}.py")

    def committed(self) -> list[dict]:
        with open(DATA / f"pii_{self.name}.jsonl", encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]


SETS = [
    NameSet("fresh", (450, 500), 4, frozenset({"person_name", "phone", "email", "uk_postcode"}), positives=(0.8, 0.9)),
    NameSet("fresh2", (550, 700), 3),
    NameSet("fresh3", (600, 680), 3, locales_weigh_the_same=True, wording_id="h"),
    NameSet("fresh4", (330, 370), 3, locales_weigh_the_same=True, wording_id="f", asr_share=(0.2, 0.5)),
]
each_set = pytest.mark.parametrize("spec", SETS, ids=[s.name for s in SETS])


def _positive(row: dict) -> bool:
    return not row["shape"].startswith("neg_")


@each_set
def test_the_generator_is_deterministic_and_the_committed_file_is_its_output(spec: NameSet):
    gen = spec.generator()
    first = gen.build()
    assert first == gen.build()
    assert first == spec.committed()


@each_set
def test_spans_lie_inside_their_text_without_surrounding_space_and_never_overlap(spec: NameSet):
    for row in spec.committed():
        spans = sorted(row["spans"], key=lambda s: s["start"])
        for s in spans:
            value = row["text"][s["start"] : s["end"]]
            assert 0 <= s["start"] < s["end"] <= len(row["text"]), row["id"]
            assert value == value.strip() and value, row["id"]
            assert s["type"] in spec.types, row["id"]
        assert all(a["end"] <= b["start"] for a, b in pairwise(spans)), row["id"]


@each_set
def test_titles_and_honorifics_lie_outside_the_name_spans(spec: NameSet):
    for row in spec.committed():
        for s in row["spans"]:
            value = row["text"][s["start"] : s["end"]]
            if s["type"] == "person_name":
                assert not TITLES.match(value) and not value.endswith(HAN_TITLES), row["id"]
                assert not value.endswith((" ji", " जी")), row["id"]


@each_set
def test_every_labelled_phone_is_a_valid_number_of_the_locale_written_or_spoken(spec: NameSet):
    gen = spec.generator()
    regions = {loc: v[1] for loc, v in getattr(gen, "LOCALES", {}).items()}
    for row in spec.committed():
        for s in row["spans"]:
            if s["type"] == "phone":
                value = row["text"][s["start"] : s["end"]]
                if row["asr"]:
                    value = "".join(WORDS[w] for w in value.split())
                region = regions.get(row["locale"], row["locale"].rsplit("-", 1)[-1])
                assert phonenumbers.is_valid_number(phonenumbers.parse(value, region)), row["id"]


@each_set
def test_asr_rows_are_lower_case_without_punctuation_or_digits(spec: NameSet):
    rows = spec.committed()
    for row in rows:
        if row["asr"]:
            assert row["text"] == row["text"].lower(), row["id"]
            assert not re.search(r"[.,!?;:，。？！、।\d]", row["text"]), row["id"]
    if spec.asr_share is not None:
        low, high = spec.asr_share
        assert low <= sum(r["asr"] for r in rows) / len(rows) <= high


@each_set
def test_negatives_have_no_span_and_each_positive_wording_names_someone_in_every_rendering(spec: NameSet):
    gen = spec.generator()
    rows = spec.committed()
    assert all(not r["spans"] for r in rows if not _positive(r))
    assert all(any(s["type"] == "person_name" for s in r["spans"]) for r in rows if _positive(r))
    wordings = sum(len(t) for t in gen.POS.values())
    assert gen.RENDERINGS == spec.renderings
    assert sum(1 for r in rows if r["spans"]) == wordings * spec.renderings


@each_set
def test_the_set_keeps_its_size_its_share_of_positives_and_unique_ids(spec: NameSet):
    rows = spec.committed()
    low, high = spec.rows
    assert low <= len(rows) <= high
    assert spec.positives[0] <= sum(1 for r in rows if r["spans"]) / len(rows) <= spec.positives[1]
    assert all(r["split"] == spec.name for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)
    per_locale = Counter(r["locale"] for r in rows)
    gen = spec.generator()
    if hasattr(gen, "LOCALES"):
        assert set(per_locale) == set(gen.LOCALES)
    if spec.locales_weigh_the_same:
        assert len(set(per_locale.values())) == 1
        assert len({(r["locale"], r["text"]) for r in rows}) == len(rows)


@pytest.mark.parametrize("spec", [s for s in SETS if s.wording_id], ids=lambda s: s.name)
def test_the_renderings_of_one_wording_name_different_people(spec: NameSet):
    names_by_wording: dict[tuple[str, int], list[tuple[str, ...]]] = defaultdict(list)
    for r in spec.committed():
        if r["spans"]:
            index = int(r["id"].rsplit(f"-{spec.wording_id}", 1)[1]) // spec.renderings
            names = tuple(r["text"][s["start"] : s["end"]] for s in r["spans"] if s["type"] == "person_name")
            names_by_wording[r["locale"], index].append(names)
    assert all(len(set(renderings)) == spec.renderings for renderings in names_by_wording.values())


def test_fresh4_carries_names_that_are_ordinary_words_and_names_with_particles_or_hyphens():
    spec = next(s for s in SETS if s.name == "fresh4")
    gen = spec.generator()
    rows = spec.committed()
    for locale, pairs in gen.WORD_NAMES.items():
        names = {r["text"][s["start"] : s["end"]].lower() for r in rows if r["locale"] == locale for s in r["spans"]}
        assert any(given.lower() in name for given, _ in pairs for name in names), locale
    shapes = {(r["locale"], r["shape"]) for r in rows}
    assert {("de-DE", "particle"), ("fr-FR", "particle"), ("es-ES", "two_surnames"), ("en-GB", "hyphen")} <= shapes
