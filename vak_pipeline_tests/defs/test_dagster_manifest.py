"""The Dagster layer: one loadable Definitions object, and validated_manifest over real files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dagster as dg

from vak_pipeline.definitions import defs as load_defs
from vak_pipeline.defs.manifest import manifest_rule_checks, validated_manifest
from vak_pipeline.defs.resources import DataResource
from vak_pipeline.layout import DataLayout
from vak_pipeline.storage import sha256_file


def test_the_one_definitions_object_loads():
    d = load_defs()
    dg.Definitions.validate_loadable(d)
    assert d.get_assets_def("validated_manifest")


def _dataset_with_upload(example_dataset: Path, tmp_path: Path, records: list[dict]) -> Path:
    root = tmp_path / "data"
    shutil.copytree(example_dataset, root)
    (root / "vakforge.jsonl").unlink()
    work = root / "work" / "calls-1"
    work.mkdir(parents=True)
    (root / "raw" / "calls-1").mkdir(parents=True)
    (work / "redacted.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    for folder in ("audio", "redactions"):  # where the redaction stage keeps them until a release places them
        shutil.move(root / folder, work / "release" / folder)
    return root


def test_validated_manifest_keeps_valid_rows_and_reports_the_rest(example_dataset, example_record, tmp_path):
    bad = dict(example_record, id="conv_bad")
    bad["meta"] = dict(bad["meta"], pii_redacted=False)
    root = _dataset_with_upload(example_dataset, tmp_path, [example_record, bad, example_record])
    res = dg.materialize([validated_manifest, manifest_rule_checks], resources={"data": DataResource(root=str(root))},
                         raise_on_error=False)
    cand = DataLayout.at(root).candidate()  # the next release; `release` swaps it in when nothing blocks it
    lines = cand.manifest.read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines] == ["conv_000123"]
    # the kept record's files are placed in the candidate (the rejected duplicate takes nothing with it)
    placed = [p.relative_to(cand.release_root).as_posix() for d in ("audio", "alignments", "redactions")
              for p in sorted((cand.release_root / d).glob("*"))]
    assert placed == ["audio/conv_000123.wav", "redactions/conv_000123.json"]
    assert not (root / "audio").exists()  # nothing published before `release`
    rejected = [json.loads(x) for x in cand.rejected.read_text().splitlines()]
    assert {c["code"] for r in rejected for c in r["issues"]} == {"real_not_redacted", "id_duplicate"}
    mat = res.asset_materializations_for_node("validated_manifest")[0]
    assert mat.metadata["manifest_sha256"].value == sha256_file(cand.manifest)
    assert cand.schema.is_file()
    evals = {e.check_name: e for e in res.get_asset_check_evaluations()}
    assert not evals["rules_provenance"].passed  # blocks the release (the `release` step decides)
    assert evals["rules_provenance"].severity == dg.AssetCheckSeverity.ERROR
    assert evals["rules_turns"].passed


def test_data_version_is_the_manifest_hash(example_dataset, example_record, tmp_path):
    root = _dataset_with_upload(example_dataset, tmp_path, [example_record])
    with dg.instance_for_test() as instance:
        dg.materialize([validated_manifest], resources={"data": DataResource(root=str(root))}, instance=instance)
        record = instance.get_latest_materialization_event(dg.AssetKey("validated_manifest"))
        tags = record.asset_materialization.tags
        assert tags["dagster/data_version"] == sha256_file(DataLayout.at(root).candidate().manifest)
