"""Synth on a budget: rendering text conversations as calls is the upload's choice (upload.yaml `synth:`),
bounded by hours or a fraction, and the same conversations are chosen on every run; the synth report says
how many stayed text and why."""

from __future__ import annotations

import json

import pytest

from vak_pipeline.synth.budget import choose, estimated_seconds, rank
from vak_pipeline.uploads.descriptor import SynthChoice

pytestmark = pytest.mark.timeout(120)

CONVS = [(f"chat-{i:05d}", 600) for i in range(2000)]  # about 36 s of speech each at 165 wpm


def test_all_and_none_are_the_upload_s_choice():
    assert choose(SynthChoice(render="all"), CONVS, 165) is None
    assert choose(SynthChoice(render="none"), CONVS, 165) == set()


def test_an_hours_budget_renders_at_most_that_much_estimated_speech():
    chosen = choose(SynthChoice(budget_hours=1.0), CONVS, 165)
    assert chosen and sum(estimated_seconds(600, 165) for _ in chosen) <= 3600
    assert len(chosen) == int(3600 // estimated_seconds(600, 165))


def test_the_choice_is_seeded_and_the_same_in_any_order():
    a = choose(SynthChoice(budget_hours=0.5), CONVS, 165)
    b = choose(SynthChoice(budget_hours=0.5), list(reversed(CONVS)), 165)
    assert a == b
    assert a != choose(SynthChoice(budget_hours=0.5, seed=1), CONVS, 165)
    assert a == {c for c, _ in sorted(CONVS, key=lambda c: rank(0, c[0]))[: len(a)]}  # the best-ranked ones


def test_a_fraction_keeps_a_conversation_whatever_else_the_upload_holds():
    full = choose(SynthChoice(budget_hours=None, budget_fraction=0.1), CONVS, 165)
    half = choose(SynthChoice(budget_hours=None, budget_fraction=0.1), CONVS[:1000], 165)
    assert 150 < len(full) < 250 and half == {c for c in full if c in dict(CONVS[:1000])}


def test_the_sample_uploads_opt_in_to_every_conversation():
    from pathlib import Path

    from vak_pipeline.uploads.descriptor import load_descriptor

    root = Path(__file__).resolve().parents[2] / "data" / "raw"
    for upload in ("sample-chats", "sample-hinglish"):
        desc, _ = load_descriptor(root / upload)
        assert desc is not None and desc.defaults.synth.render == "all"


def test_an_upload_that_chooses_none_keeps_its_chats_as_text_and_the_report_says_why(tmp_path):
    import shutil
    from pathlib import Path

    from vak_pipeline.layout import DataLayout
    from vak_pipeline.redaction.stage import redact_upload
    from vak_pipeline.speech.stage import tag_upload
    from vak_pipeline.synth import synth_upload

    src = Path(__file__).resolve().parents[2] / "data" / "raw" / "sample-chats"
    up = tmp_path / "raw" / "chats"
    shutil.copytree(src, up)
    text = (up / "upload.yaml").read_text().replace("synth: {render: all}", "synth: {render: none}")
    (up / "upload.yaml").write_text(text)
    layout = DataLayout.at(tmp_path)
    tag_upload(layout, "chats")
    redact_upload(layout, "chats")
    res = synth_upload(layout, "chats")
    assert res.rendered == 0 and res.stayed_text == {"upload_chose_none": res.records}
    report = json.loads(layout.synth_report("chats").read_text())
    assert report["stage"] == "synth" and report["stayed_text"] == {"upload_chose_none": res.records}
