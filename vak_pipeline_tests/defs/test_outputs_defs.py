"""Dagster layer of the outputs: splits + leak check (the release step blocks on it), exports with lineage,
steward report."""

from __future__ import annotations

import json

import dagster as dg

from vak_pipeline.defs import outputs
from vak_pipeline.defs.resources import DataResource
from vak_pipeline.layout import DataLayout
from vak_pipeline.manifest_hash import manifest_hash
from vak_pipeline.splits import SplitsFile, write_splits
from vak_pipeline_tests.builders import make_record, write_manifest

ASSETS = [outputs.splits, outputs.splits_complete_and_leak_free, outputs.cascaded, outputs.parquet_export,
          outputs.steward_report]


def run(tmp_path, selection=ASSETS, **run_config):
    return dg.materialize(selection, resources={"data": DataResource(root=str(tmp_path))},
                          run_config=dg.RunConfig(ops=run_config), raise_on_error=False)


def test_publish_chain_materializes_with_lineage_and_data_versions(tmp_path):
    cand = DataLayout.at(tmp_path).candidate()  # what validated_manifest would have written
    write_manifest(cand.manifest, [make_record(f"c{i}", {"user": f"u{i}"}) for i in range(12)])
    sha = manifest_hash(cand.manifest)
    result = run(tmp_path, cascaded=outputs.CascadedExportConfig(parts=["llm"]))
    assert result.success
    (check,) = result.get_asset_check_evaluations()
    assert check.passed and check.check_name == "splits_complete_and_leak_free"
    mats = {m.asset_key.to_user_string(): m for m in result.get_asset_materialization_events()}
    for key in ("splits", "cascaded", "parquet_export", "steward_report"):
        meta = mats[key].materialization.metadata
        assert meta["manifest_hash"].value == sha, key
    assert json.loads((cand.export_dir("cascaded") / "build.json").read_text())["manifest_hash"] == sha
    steward = mats["steward_report"].materialization.metadata
    assert steward["report_url"].value.startswith("file://") and "12 conversations" in steward["summary"].value
    # links point where the files are read once `release` swaps the candidate in, never into the candidate
    for key, meta in (("steward_report", "report_path"), ("cascaded", "path"), ("splits", "path")):
        linked = mats[key].materialization.metadata[meta].value
        assert ".release-candidate" not in linked and linked.startswith(str(tmp_path.resolve())), (key, linked)
    tags = mats["cascaded"].materialization.tags
    first_version = tags["dagster/data_version"]

    # same data, other config -> a new data version; same data and config -> the same one
    again = run(tmp_path, [outputs.cascaded], cascaded=outputs.CascadedExportConfig(parts=["llm"]))
    assert again.get_asset_materialization_events()[0].materialization.tags["dagster/data_version"] == first_version
    other = run(tmp_path, [outputs.cascaded], cascaded=outputs.CascadedExportConfig(parts=["llm", "stt"]))
    assert other.get_asset_materialization_events()[0].materialization.tags["dagster/data_version"] != first_version


def test_a_leaking_split_fails_the_blocking_check_with_error_severity(tmp_path):
    cand = DataLayout.at(tmp_path).candidate()
    write_manifest(cand.manifest, [make_record("a", {"agent": "v"}), make_record("b", {"agent": "v"})])
    leak = SplitsFile(seed=1, ratios={"train": 0.5, "test": 0.5}, assignment={"a": "train", "b": "test"})
    write_splits(cand.splits, leak)
    ev = outputs.splits_complete_and_leak_free(data=DataResource(root=str(tmp_path)))
    assert not ev.passed and ev.severity == dg.AssetCheckSeverity.ERROR
    assert ev.metadata["issues_by_code"].value == {"split_leak": 1}
    # not blocking in Dagster terms (nothing downstream is skipped): the release step reads the same leak and blocks
    assert not any(spec.blocking for spec in outputs.splits_complete_and_leak_free.check_specs)
    from vak_pipeline.report.decision import blocking_causes

    assert [(c.check, c.code, c.file) for c in blocking_causes(cand)] == [
        ("splits_complete_and_leak_free", "split_leak", "splits.json")]


def test_a_crashed_export_still_blocks_the_candidate_with_a_verdict_and_a_report(tmp_path, monkeypatch):
    """Launched as an asset's Materialize button launches it (no job): the assets' failure hook blocks."""
    from vak_pipeline.release import read_verdict

    def crash(*_a, **_k):
        raise RuntimeError("no space left on device\nsecond line")

    monkeypatch.setattr("vak_pipeline.recipes.cascaded.export_cascaded", crash)
    cand = DataLayout.at(tmp_path).candidate()
    write_manifest(cand.manifest, [make_record(f"c{i}", {"user": f"u{i}"}) for i in range(4)])
    result = run(tmp_path, [outputs.splits, outputs.cascaded])
    assert not result.success
    verdict = read_verdict(cand)
    assert verdict is not None and verdict.status == "blocked" and verdict.run_id == result.run_id
    assert verdict.reasons == ["step cascaded failed: RuntimeError: no space left on device"]
    assert "BLOCKED" in cand.steward_html.read_text(encoding="utf-8")
    assert (tmp_path / verdict.kept_at / "steward" / "index.html").is_file()
