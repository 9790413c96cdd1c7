"""An export, or a part of one, that is empty is never silent: build.json `warnings` says why, `vak export`
prints it and the steward report lists it among its warnings."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.recipes.common import export_warnings
from vak_pipeline.report.steward import summarize
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import make_audio, make_record, tone, turn, write_manifest, write_wav

ALL_TRAIN = SplitConfig(ratios={"train": 1.0, "validation": 0.0, "test": 0.0})


def one_call(root):
    write_wav(root / "audio" / "c1.wav", [tone(1000, 4.0), tone(440, 4.0)])
    turns = [turn("user", 0.0, 1.0, "hi"), turn("agent", 1.1, 2.0, "hello")]
    write_manifest(root / "vakforge.jsonl", [make_record("c1", {"agent": "a", "user": "u"}, turns,
                                                         audio=make_audio("c1", 4.0))])
    split_manifest(root / "vakforge.jsonl", root / "splits.json", ALL_TRAIN)
    return root


def test_vak_export_prints_why_the_tts_part_and_empty_splits_are_empty(tmp_path):
    root = one_call(tmp_path)
    res = CliRunner().invoke(app, ["export", "cascaded", str(root), "-o", 'tts_splits=["test"]'])
    assert res.exit_code == 0, res.output
    build = json.loads((root / "exports/cascaded/build.json").read_text())
    assert build["warnings"] and all(f"warning: {w}" in res.output for w in build["warnings"])
    assert any(w.startswith("cascaded tts is empty: no agent clip in tts_splits ['test']") for w in build["warnings"])
    assert any(w.startswith("cascaded stt split validation is empty") for w in build["warnings"])


def test_the_steward_summary_carries_the_exports_warnings(tmp_path):
    root = one_call(tmp_path)
    CliRunner().invoke(app, ["export", "cascaded", str(root), "-o", 'tts_splits=["test"]'])
    warnings = export_warnings(root)
    assert any("cascaded tts is empty" in w for w in warnings)
    assert set(warnings) <= set(summarize(root).splits_warnings)
