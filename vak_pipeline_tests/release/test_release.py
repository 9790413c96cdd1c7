"""One release at a time: `vak run` swaps the whole release (manifest, schema, splits, reports, exports) into
data/ or leaves the previous one whole; a blocked candidate is kept aside with its reasons, and the CLI,
the steward report and the run's check say so. A swap a crash interrupted is finished on the next start."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.instance.ref import InstanceRef
from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.layout import DataLayout
from vak_pipeline.release import begin_candidate, promote, read_verdict, recover

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parents[1] / "fixtures"


def _release_files(root: Path) -> dict[str, bytes]:
    """Every file of the published release, by path (what `vak validate` and the consumers read)."""
    out = {}
    for name in ("vakforge.jsonl", "vakforge.schema.json", "splits.json"):
        out[name] = (root / name).read_bytes()
    for sub in ("exports", "reports"):
        for p in sorted((root / sub).rglob("*")):
            if p.is_file():
                out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


def _bad_upload(root: Path) -> None:
    """An upload whose one record breaks a blocking (provenance) rule: public_license without a licence."""
    record = json.loads((FIXTURES / "format" / "example_record.json").read_text(encoding="utf-8"))
    record.update(id="conv_bad_1", audio=None)
    record["meta"].update(consent="public_license", license=None)
    up = root / "raw" / "late-delivery"
    up.mkdir(parents=True)
    shutil.copy2(REPO / "data" / "raw" / "sample-chats" / "upload.yaml", up / "upload.yaml")
    (up / "tickets.vakforge.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> tuple[Path, str, str]:
    """A data dir with the sample chats published by `vak run`: (root, the run's output, its Dagster home)."""
    root = tmp_path_factory.mktemp("release")
    shutil.copytree(REPO / "data" / "raw" / "sample-chats", root / "raw" / "sample-chats")
    out = CliRunner().invoke(app, ["run", "--data", str(root)])
    assert out.exit_code == 0, out.output
    return root, out.output, os.environ["DAGSTER_HOME"]


def test_a_good_run_publishes_the_whole_release_and_leaves_no_candidate(released):
    root, output, _ = released
    layout = DataLayout.at(root)
    assert "published release (new):" in output
    assert layout.manifest.is_file() and layout.splits.is_file()
    assert (layout.reports / "steward" / "index.html").is_file()
    assert {p.name for p in (root / "exports").iterdir()} >= {"moshi_lora", "turn_based", "cascaded", "parquet"}
    assert not layout.candidate_dir.exists() and not layout.release_journal.exists()
    verdict = read_verdict(layout)
    assert verdict is not None and verdict.status == "released"
    for build in (root / "exports").glob("*/build.json"):  # every export was built from the published manifest
        assert json.loads(build.read_text())["manifest_hash"] == verdict.manifest_sha256


def test_a_blocked_publish_leaves_the_previous_release_whole_and_says_why(released):
    root, _, _ = released
    before = _release_files(root)
    _bad_upload(root)
    out = CliRunner().invoke(app, ["run", "--data", str(root)])
    assert out.exit_code == 1
    text = " ".join(out.output.split())
    assert "Release BLOCKED: blocking check rules_provenance failed (license_missing x1" in text
    assert "The published release in" in text and "is unchanged" in text and "fix:" in text
    assert "Traceback" not in out.output and "Stack Trace" not in out.output  # a sentence, not a stack trace
    assert "published release (unchanged, the new candidate was blocked):" in out.output

    after = _release_files(root)
    page = "reports/steward/index.html"  # the one file that changes: the published page says a newer one was blocked
    assert {k: v for k, v in after.items() if k != page} == {k: v for k, v in before.items() if k != page}
    published_page = after[page].decode("utf-8")
    assert "id='newer-blocked'" in published_page and "LIVE" in published_page
    assert "license_missing" in published_page and "id='newer-blocked'" not in before[page].decode("utf-8")
    validate = CliRunner().invoke(app, ["validate", str(root)])
    assert validate.exit_code == 0, validate.output  # data/ is consistent: no split_missing

    cand = DataLayout.at(root).candidate()
    verdict = read_verdict(cand)
    assert verdict is not None and verdict.status == "blocked"
    assert any("rules_provenance" in r for r in verdict.reasons)
    rejected = [json.loads(line) for line in cand.rejected.read_text().splitlines()]
    assert [r["record_id"] for r in rejected] == ["conv_bad_1"]
    report = json.loads((cand.reports / "steward" / "report.json").read_text())
    assert report["verdict"]["status"] == "blocked"
    assert any("rules_provenance" in r for r in report["verdict"]["reasons"])
    assert any("published release in data/ is unchanged" in r for r in report["verdict"]["reasons"])
    html = (cand.reports / "steward" / "index.html").read_text(encoding="utf-8")
    assert "id='verdict-status'>blocked<" in html


def _fake_release(root: Path, version: str, items: tuple[str, ...]) -> None:
    for name in items:
        p = root / name
        if name in ("reports", "exports"):
            (p / "x").mkdir(parents=True, exist_ok=True)
            (p / "x" / "file.txt").write_text(version)
        else:
            p.write_text(version)


def test_promote_swaps_every_item_and_drops_what_the_new_release_lacks(tmp_path):
    layout = DataLayout.at(tmp_path)
    _fake_release(tmp_path, "old", ("vakforge.jsonl", "splits.json", "reports", "exports", "vakforge.schema.json"))
    cand = begin_candidate(layout)
    assert cand.splits.read_text() == "old"  # seeded from the published splits: assignments never move
    _fake_release(cand.release_root, "new", ("vakforge.jsonl", "splits.json", "reports"))
    promote(layout, "sha")
    assert (tmp_path / "vakforge.jsonl").read_text() == "new"
    assert (tmp_path / "reports" / "x" / "file.txt").read_text() == "new"
    assert not (tmp_path / "exports").exists() and not (tmp_path / "vakforge.schema.json").exists()
    assert not layout.candidate_dir.exists() and not layout.previous_release_dir.exists()


@pytest.mark.parametrize("moved", [0, 1, 2, 3])
def test_a_swap_interrupted_after_any_rename_is_finished_on_the_next_start(tmp_path, moved):
    layout = DataLayout.at(tmp_path)
    items = ("vakforge.jsonl", "splits.json", "reports")
    _fake_release(tmp_path, "old", items)
    cand = begin_candidate(layout)
    _fake_release(cand.release_root, "new", items)
    plan = {name: name in items for name in ("vakforge.jsonl", "splits.json", "reports", "exports")}
    layout.release_journal.write_text(json.dumps({"items": plan}))
    prev = layout.previous_release_dir
    prev.mkdir(parents=True)
    for name in items[:moved]:  # the crash came after `moved` items were swapped
        os.replace(tmp_path / name, prev / name)
        os.replace(cand.release_root / name, tmp_path / name)
    assert recover(layout)
    assert all((tmp_path / n).exists() for n in items)
    assert (tmp_path / "vakforge.jsonl").read_text() == "new" and (tmp_path / "splits.json").read_text() == "new"
    assert (tmp_path / "reports" / "x" / "file.txt").read_text() == "new"
    assert not layout.release_journal.exists() and not prev.exists() and not layout.candidate_dir.exists()
    assert not recover(layout)  # nothing left to do


def test_vak_run_tags_its_runs_with_the_data_dir_and_the_launcher(released):
    root, _, home = released
    assert Path(home) != REPO / ".dagster"  # the session's temp instance (conftest), never the user's
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(home)) as instance:
        runs = [r for r in instance.get_runs() if r.tags.get("vak/data") == str(root.resolve())]
    assert {r.job_name for r in runs} >= {"ingest_job", "publish_job"}
    assert {r.tags["vak/launched_by"] for r in runs} == {"cli"}


def test_each_test_has_its_own_dagster_instance_never_the_users():
    home = Path(os.environ["DAGSTER_HOME"])
    assert home != REPO / ".dagster" and REPO not in home.parents
    assert (home / "dagster.yaml").read_text() == (REPO / "dagster.yaml").read_text()


def test_a_process_pool_is_used_only_when_the_work_outweighs_its_start_up():
    from vak_pipeline.parallel import pool_size

    assert pool_size(4, 2, total_bytes=42_000_000, bytes_per_s=50e6) == 1  # 4 x 60 s WAVs: 0.8 s of work
    assert pool_size(8, 2, total_bytes=420_000_000, bytes_per_s=50e6) == 2  # 8 x 300 s: 8 s of work
    assert pool_size(1, 8, total_bytes=10**10, bytes_per_s=50e6) == 1  # one file: nothing to share
    assert pool_size(3, 8, total_bytes=10**10, bytes_per_s=50e6) == 3  # never more workers than files


def test_an_upload_with_no_usable_record_is_one_paragraph_and_blocks_only_an_empty_manifest(tmp_path):
    up = tmp_path / "raw" / "junk"
    up.mkdir(parents=True)
    shutil.copy2(REPO / "data" / "raw" / "sample-chats" / "upload.yaml", up / "upload.yaml")
    (up / "chats.messages.jsonl").write_text("{not json\n", encoding="utf-8")
    out = CliRunner().invoke(app, ["run", "--data", str(tmp_path)])
    assert out.exit_code == 1
    text = " ".join(out.output.split())
    assert "Release BLOCKED: blocking check rules_structure failed (manifest_empty x1" in text
    assert "There is no published release in" in text
    assert "upload junk: 1 file(s)/record(s) not used: messages_json_invalid x1" in text
    assert "Traceback" not in out.output and "Stack Trace" not in out.output
    issues = [json.loads(x) for x in (DataLayout.at(tmp_path).candidate().reports / "validation.jsonl")
              .read_text().splitlines()]
    assert {(i["code"], i["severity"]) for i in issues} == {("upload_no_records", "WARN"), ("manifest_empty", "ERROR")}
