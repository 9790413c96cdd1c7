"""The held-out PII set: its generator is deterministic and the committed file is its output; the
recognizers keep the aims of issue 16 on its `test` split (names recall >= 0.90 at precision >= 0.95,
structured recall >= 0.99 at precision >= 0.97). Failures report counts, never values."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.recognizers import find_pii

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
STRUCTURED = {
    "phone",
    "email",
    "payment_card",
    "iban",
    "ip_address",
    "us_ssn",
    "uk_nino",
    "uk_nhs",
    "uk_postcode",
    "in_aadhaar",
    "in_pan",
    "in_upi",
    "cn_resident_id",
    "in_pin",
    "cn_postcode",
    "us_zip",
}


def _generator():
    spec = importlib.util.spec_from_file_location("make_pii_heldout", DATA / "make_pii_heldout.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _rows() -> list[dict]:
    with open(DATA / "pii_heldout.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def test_the_committed_set_is_the_generators_output_and_covers_six_locales():
    rows = _rows()
    assert _generator().build() == rows
    assert len(rows) >= 600
    assert Counter(r["locale"] for r in rows).keys() == {"en-US", "en-GB", "en-IN", "hi-Latn-IN", "hi-IN", "zh-CN"}
    assert sum(r["asr"] for r in rows) > len(rows) // 3  # lower case, no punctuation, digits as words
    assert sum(not r["spans"] for r in rows) > 100  # distractor-only utterances
    for r in rows:
        for s in r["spans"]:
            assert r["text"][s["start"] : s["end"]].strip(), r["id"]


def _counts(rows: list[dict]) -> dict[str, Counter]:
    c: dict[str, Counter] = {}
    for r in rows:
        gold = [(s["type"], s["start"], s["end"]) for s in r["spans"]]
        used: set[int] = set()
        for m in find_pii(get_pack(r["locale"]), r["text"]):
            hit = next(
                (i for i, (t, a, b) in enumerate(gold) if i not in used and t == m.type and m.start < b and a < m.end),
                None,
            )
            c.setdefault(m.type, Counter())["fp" if hit is None else "tp"] += 1
            if hit is not None:
                used.add(hit)
        for i, (t, _, _) in enumerate(gold):
            if i not in used:
                c.setdefault(t, Counter())["fn"] += 1
    return c


def _pr(c: Counter) -> tuple[float, float]:
    return c["tp"] / max(c["tp"] + c["fp"], 1), c["tp"] / max(c["tp"] + c["fn"], 1)


def test_the_test_split_meets_the_aims():
    c = _counts([r for r in _rows() if r["split"] == "test"])
    p, r = _pr(c["person_name"])
    assert p >= 0.95 and r >= 0.90, f"names precision {p:.3f} recall {r:.3f}"
    structured = sum((c[t] for t in STRUCTURED if t in c), Counter())
    p, r = _pr(structured)
    assert p >= 0.97 and r >= 0.99, f"structured precision {p:.3f} recall {r:.3f}"
