"""`vak split` and `vak export`: the library without Dagster, from the command line."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline_tests.builders import make_record, write_manifest

runner = CliRunner()


def test_split_then_export(tmp_path):
    write_manifest(tmp_path / "vakforge.jsonl", [make_record(f"c{i}", {"user": f"u{i % 5}"}) for i in range(20)])
    res = runner.invoke(app, ["split", str(tmp_path), "--seed", "9", "--ratios", "train=0.5,test=0.5"])
    assert res.exit_code == 0, res.output
    splits = json.loads((tmp_path / "splits.json").read_text())
    assert splits["seed"] == 9 and set(splits["ratios"]) == {"train", "test"}
    res = runner.invoke(app, ["export", "cascaded", str(tmp_path), "-o", 'parts=["llm"]',
                              "-o", 'splits=["train","test"]'])
    assert res.exit_code == 0, res.output
    build = json.loads((tmp_path / "exports/cascaded/build.json").read_text())
    assert build["config"]["parts"] == ["llm"] and build["counts"]["llm_examples"] == 20


def test_export_needs_splits_first(tmp_path):
    write_manifest(tmp_path / "vakforge.jsonl", [make_record("a")])
    res = runner.invoke(app, ["export", "parquet", str(tmp_path)])
    assert res.exit_code == 2 and "vak split" in res.output
