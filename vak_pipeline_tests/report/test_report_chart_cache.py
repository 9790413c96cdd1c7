"""The steward report after a delivery (issue 34): a chart is drawn only when what it plots changed (keyed by
its data, REPORT_VERSION and matplotlib's version), and the report is byte for byte the one built from scratch."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from vak_pipeline.layout import DataLayout
from vak_pipeline.report import steward
from vak_pipeline.report.steward import ReportSettings, build_steward_report
from vak_pipeline_tests.release.test_publish_incremental import _publish, _upload

STAMP = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
SETTINGS = ReportSettings(measure_snr=False, dagster_url="http://ui")


def _report(root: Path, out: Path) -> dict[str, bytes]:
    """The report's files, with the times it was generated taken out (the one input that is not data)."""
    build_steward_report(DataLayout.at(root), out, SETTINGS)
    files = {}
    for p in sorted(out.iterdir()):
        data = p.read_bytes()
        if p.suffix in (".json", ".md", ".html"):
            data = STAMP.sub(b"<time>", data)
        files[p.name] = data
    return files


def _charts_in(files: dict[str, bytes]) -> list[str]:
    return sorted(n for n in files if n.endswith(".png"))


@pytest.mark.timeout(600)
def test_a_report_after_a_delivery_reuses_unchanged_charts_and_equals_one_built_from_scratch(tmp_path):
    root = tmp_path / "data"
    _upload(root, "delivery-1", 6)
    _publish(root)
    first = _report(root, tmp_path / "r1")
    charts = _charts_in(first)
    assert charts and steward.last_charts == {"drawn": len(charts), "reused": 0}

    again = _report(root, tmp_path / "r2")  # nothing changed: nothing drawn, the same bytes
    assert steward.last_charts == {"drawn": 0, "reused": len(charts)}
    assert again == first

    _upload(root, "delivery-2", 4)  # the delivery changes what the charts plot
    _publish(root)
    after = _report(root, tmp_path / "r3")
    assert steward.last_charts["drawn"] >= 1
    assert after != first
    shutil.rmtree(DataLayout.at(root).publish_cache / "report_charts")  # from scratch: every chart drawn
    scratch = _report(root, tmp_path / "r4")
    assert steward.last_charts == {"drawn": len(_charts_in(scratch)), "reused": 0}
    assert after == scratch


@pytest.mark.timeout(300)
def test_a_bumped_report_version_draws_every_chart_again(tmp_path, monkeypatch):
    root = tmp_path / "data"
    _upload(root, "delivery-1", 4)
    _publish(root)
    files = _report(root, tmp_path / "r1")
    monkeypatch.setattr(steward, "REPORT_VERSION", steward.REPORT_VERSION + "-next")
    _report(root, tmp_path / "r2")
    assert steward.last_charts == {"drawn": len(_charts_in(files)), "reused": 0}
    stored = list((DataLayout.at(root).publish_cache / "report_charts").glob("*.png"))
    assert len(stored) == len(_charts_in(files))  # the old version's charts were removed


@pytest.mark.timeout(300)
def test_release_changes_count_what_a_delivery_adds_by_upload_and_source(tmp_path):
    from vak_pipeline.quality import recordings as quality
    from vak_pipeline.release import begin_candidate
    from vak_pipeline.rules.publish import publish_manifest

    root = tmp_path / "data"
    _upload(root, "delivery-1", 4)
    _publish(root)
    _upload(root, "delivery-2", 4)
    candidate = begin_candidate(DataLayout.at(root))
    publish_manifest(candidate, [candidate.manifest_input(u) for u in candidate.uploads()],
                     extra_rules=quality.quality_rules(candidate, quality.QualityThresholds()))
    changes = steward.release_changes(candidate)
    assert changes["previous_manifest_hash"] is not None
    assert [(r["upload"], r["added"], r["removed"], r["added_s"]) for r in changes["rows"]] == [
        ("delivery-2", 4, 0, 6.0)]  # two of its four conversations are 3 s calls
    # a record left out is removed; a record whose line changed (same id) is neither added nor removed
    lines = candidate.manifest.read_bytes().splitlines(keepends=True)
    first = [i for i, line in enumerate(lines) if b'"delivery-1-c' in line]
    lines[first[1]] = lines[first[1]].replace(b"hello my", b"hallo my")
    del lines[first[0]]
    candidate.manifest.write_bytes(b"".join(lines))
    changes = steward.release_changes(candidate)
    assert [(r["upload"], r["added"], r["removed"], r["added_s"]) for r in changes["rows"]] == [
        ("delivery-1", 0, 1, 0.0), ("delivery-2", 4, 0, 6.0)]
