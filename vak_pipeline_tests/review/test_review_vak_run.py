"""One real `vak run` (tiny.en on the committed two-voice TTS call): a review imported after the first run is in
the release after `vak run --force` with another ASR setting (beam size): every kind of correction, the
typed phone number redacted, the record verified_by_human."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dagster as dg
import pytest

from vak_pipeline.layout import DataLayout
from vak_pipeline.orchestrate import run_pipeline
from vak_pipeline.review.annotations import import_export
from vak_pipeline.review.settings import ReviewSettings
from vak_pipeline.review.tasks import export_tasks

from . import builders as b

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
FIX = Path(__file__).parents[1] / "fixtures" / "speech"
PHONE = "415 555 0132"
YAML = """\
locale: en-US
source: real
consent: recorded_verbal
consent_ref: policy-1
voice_consent_ref: voice-1
license: proprietary-internal
channel_map: {"0": "user", "1": "agent"}
"""
FAST = {"resources": {"whisper": {"config": {"beam_size": 1, "cpu_threads": 2}}}}
OTHER = {"resources": {"whisper": {"config": {"beam_size": 2, "cpu_threads": 2}}}}  # a changed ASR setting


def _edits(result: list[dict], task: dict) -> None:
    turns = task["data"]["turns"]
    first, user, last = turns[0], next(t for t in turns if t["speaker"] == "user"), turns[-1]
    b.region(result, user["rid"], "text")["value"]["text"] = [f"you can call me on {PHONE}"]
    for name in ("speaker", "text", "lang"):
        b.region(result, first["rid"], name)["value"]["start"] = round(first["start"] + 0.1, 3)
    b.region(result, last["rid"], "speaker")["value"]["labels"] = ["agent" if last["speaker"] == "user" else "user"]
    b.region(result, last["rid"], "lang")["value"]["choices"] = ["en-US"]
    word = task["data"]["dialogue"][0]["text"].split()[0]
    result.append({"id": "pii-added", "from_name": "pii", "to_name": "dialogue", "type": "paragraphlabels",
                   "value": {"start": "0", "end": "0", "startOffset": 0, "endOffset": len(word), "text": word,
                             "paragraphlabels": ["person_name"]}})


def test_a_review_survives_vak_run_force_with_another_asr_setting(tmp_path):
    root = tmp_path / "data"
    up = root / "raw" / "calls"
    up.mkdir(parents=True)
    shutil.copy(FIX / "stereo_two_voices.flac", up / "stereo.flac")
    (up / "upload.yaml").write_text(YAML, encoding="utf-8")
    layout = DataLayout.at(root)
    (tmp_path / "dagster").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "dagster")) as instance:
        first = run_pipeline(root, run_config=FAST, instance=instance, echo=lambda _m: None)
        assert first.success, [(r.name, r.failed_steps) for r in first.runs]
        [conv] = [json.loads(x)["id"] for x in layout.manifest.read_text().splitlines()]
        export_tasks(layout, ReviewSettings(conversations=[conv]))
        [task] = json.loads((root / "work/review/tasks.json").read_text())
        res = import_export(layout, [b.annotate(task, _edits)])
        assert set(res.kinds) == {"boundaries", "lang", "pii_added", "speaker", "text"}, res
        second = run_pipeline(root, run_config=OTHER, instance=instance, echo=lambda _m: None, force=True)
        assert second.success, [(r.name, r.failed_steps) for r in second.runs]
    [rec] = [json.loads(x) for x in layout.manifest.read_text().splitlines()]
    assert rec["meta"]["transcription"]["verified_by_human"] is True
    turns = [t for t in rec["turns"] if "text" in t]
    assert any(t["text"] == "you can call me on <PHONE_1>" for t in turns)
    assert PHONE not in layout.manifest.read_text() and "<PERSON_1>" in turns[0]["text"]
    assert turns[0]["start"] == round(task["data"]["turns"][0]["start"] + 0.1, 3)
    assert turns[-1]["lang"] == "en-US" and turns[-1]["speaker"] != task["data"]["turns"][-1]["speaker"]
