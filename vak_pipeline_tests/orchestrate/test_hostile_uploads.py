"""Issue 26: held-out hostile uploads. Personal values drawn by another method than the recognizers (names
from names-dataset's per-country top lists, phonenumbers' example mobile numbers, e-mails made from them;
bench/hostile_uploads.py) are planted in file names, folder names, message metadata and aidb participants,
labels, links and extra fields of a text-only upload; after `vak run`, no file name and no value of any file of
the published tree holds one. The one known miss is named, so a new one fails the test."""

from __future__ import annotations

import json

import dagster as dg
import pytest

from bench.hostile_uploads import build_upload, load_values, planted_forms, scan
from vak_pipeline.orchestrate import run_pipeline

# `kurz` is a German surname and an ordinary word (German "short", Polish "dust"): a lone `kurz.messages.jsonl`
# stays readable, as `order.wav` does (the price of readable file names; docs/security.md)
KNOWN_MISSES = {"kurz"}


@pytest.mark.timeout(600)
def test_no_planted_value_survives_in_the_published_tree(tmp_path):
    data = tmp_path / "data"
    build_upload(data)
    with dg.instance_for_test() as inst:
        report = run_pipeline(data, instance=inst, echo=lambda _: None)
    assert report.release == "released", report
    records = (data / "vakforge.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(records) == 30  # every planted conversation was released (none dropped, so none hidden)
    found = scan(data)
    surviving = {v for hits in found.values() for v in hits}
    assert len(planted_forms()) == 40 and surviving <= KNOWN_MISSES, json.dumps(found, indent=0)


def test_the_held_out_values_are_drawn_not_written():
    values = load_values()
    assert values["method"].startswith("names-dataset get_top_names")
    assert len(values["people"]) == 10 and len({p["country"] for p in values["people"]}) == 10
    assert all(p["e164"].startswith("+") for p in values["phones"])
