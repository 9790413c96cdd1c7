"""The release is decided in the graph: publish launched as the UI, a sensor or a schedule launch it (a run of
`publish_job` on the instance) on a blocked dataset writes the candidate's verdict.json and its BLOCKED steward
report, keeps the report an earlier `vak run` left, logs one sentence (no DagsterAssetCheckFailedError, no
skipped steps), and names root causes by the file that must change (a field upload.yaml lacks is the
descriptor's fault, once). Every asset has a code version; descriptions keep `<upload>`; every metadata link of
a released run points at a file that exists after the swap."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import dagster as dg
import pytest

from vak_pipeline.definitions import build_defs
from vak_pipeline.layout import DataLayout
from vak_pipeline.orchestrate import run_pipeline
from vak_pipeline.release import read_verdict

pytestmark = pytest.mark.timeout(900)

REPO = Path(__file__).resolve().parents[2]
LATE = "late-delivery"


def _late_upload_without_consent_ref(root: Path) -> None:
    """A partner delivery whose upload.yaml says consent: written but has no consent_ref (two chats)."""
    up = root / "raw" / LATE
    up.mkdir(parents=True)
    desc = (REPO / "data/raw/sample-chats/upload.yaml").read_text(encoding="utf-8")
    (up / "upload.yaml").write_text(re.sub(r"(?m)^consent_ref:.*\n", "", desc), encoding="utf-8")
    lines = (REPO / "data/raw/sample-chats/support.messages.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    (up / "support.messages.jsonl").write_text("\n".join(x.replace('"chat-', '"late-') for x in lines) + "\n",
                                               encoding="utf-8")


def _publish_like_the_ui(root: Path, instance: dg.DagsterInstance) -> dg.ExecuteInProcessResult:
    job = build_defs("in_process").resolve_job_def("publish_job")
    return job.execute_in_process(instance=instance, raise_on_error=False,
                                  run_config={"resources": {"data": {"config": {"root": str(root)}}}})


@pytest.fixture(scope="module")
def blocked(tmp_path_factory):
    """sample-chats released by `vak run`, then a late delivery blocked by `vak run`, then publish from the UI."""
    root = tmp_path_factory.mktemp("graph") / "data"
    shutil.copytree(REPO / "data/raw/sample-chats", root / "raw/sample-chats")
    with dg.instance_for_test(temp_dir=str(tmp_path_factory.mktemp("home"))) as instance:
        first = run_pipeline(root, instance=instance, echo=lambda _m: None)
        assert first.release == "released", first.blocked_reasons
        _late_upload_without_consent_ref(root)
        second = run_pipeline(root, instance=instance, echo=lambda _m: None)
        assert second.release == "blocked"
        cli_verdict = read_verdict(DataLayout.at(root).candidate())
        ui = _publish_like_the_ui(root, instance)
        yield root, second, cli_verdict, ui, instance


def test_a_ui_launched_publish_on_a_blocked_dataset_writes_the_verdict_and_the_blocked_report(blocked):
    root, _cli, _cli_verdict, ui, _instance = blocked
    cand = DataLayout.at(root).candidate()
    verdict = read_verdict(cand)
    assert verdict is not None and verdict.status == "blocked" and verdict.run_id == ui.run_id
    report = json.loads(cand.steward_json.read_text(encoding="utf-8"))
    assert report["verdict"]["status"] == "blocked"
    assert "id='release-state'>BLOCKED" in cand.steward_html.read_text(encoding="utf-8")


def test_a_block_is_one_sentence_in_the_run_not_a_check_failure_stack_trace(blocked):
    _root, _cli, _cli_verdict, ui, instance = blocked
    assert ui.success  # an expected block is a decision, not a failed run
    events = instance.all_logs(ui.run_id)
    assert not [e for e in events if e.dagster_event and e.dagster_event.event_type_value == "STEP_FAILURE"]
    assert not [e for e in events if e.dagster_event and e.dagster_event.event_type_value == "STEP_SKIPPED"]
    messages = [e.user_message for e in events if e.level >= 40]  # ERROR
    blocked_lines = [m for m in messages if m.startswith("Release BLOCKED:")]
    assert len(blocked_lines) == 1 and "\n" not in blocked_lines[0]
    assert not any("DagsterAssetCheckFailedError" in m or "Not executing" in m for m in messages)


def test_earlier_candidate_reports_are_kept(blocked):
    root, _cli, cli_verdict, ui, _instance = blocked
    kept = sorted((root / "work/.release-blocked").iterdir())
    assert len(kept) == 2  # the one `vak run` left, and the UI run's
    runs = {json.loads((k / "verdict.json").read_text())["run_id"] for k in kept}
    assert runs == {cli_verdict.run_id, ui.run_id}
    for k in kept:
        assert "BLOCKED" in (k / "steward" / "index.html").read_text(encoding="utf-8")


def test_a_field_upload_yaml_lacks_is_one_cause_naming_the_descriptor(blocked):
    root, cli, _cli_verdict, _ui, _instance = blocked
    verdict = read_verdict(DataLayout.at(root).candidate())
    assert [(c["file"], c["field"], c["code"]) for c in verdict.causes] == [
        (f"raw/{LATE}/upload.yaml", "consent_ref", "consent_ref_missing")]
    assert verdict.causes[0]["count"] == 2 and "add `consent_ref:`" in verdict.causes[0]["fix"]
    reasons = verdict.reasons + cli.blocked_reasons
    assert not any("set meta.consent_ref" in r or "splits.json was built" in r for r in reasons)


def test_the_published_report_says_a_newer_candidate_was_blocked(blocked):
    root, *_ = blocked
    page = (root / "reports/steward/index.html").read_text(encoding="utf-8")
    assert "id='release-state'>LIVE" in page and "id='newer-blocked'" in page
    assert f"raw/{LATE}/upload.yaml" in page
    link = re.search(r"id='newer-blocked'.*?<a href='([^']+)'>Its report</a>", page, re.S).group(1)
    assert (root / "reports/steward" / link).resolve().is_file()


def test_every_asset_has_an_explicit_code_version():
    versions = {k.to_user_string(): v for a in build_defs("in_process").assets or ()
                if isinstance(a, dg.AssetsDefinition) for k, v in a.code_versions_by_key.items()}
    assert len(versions) >= 15
    assert all(versions.values()), [k for k, v in versions.items() if not v]


def test_descriptions_keep_angle_bracket_placeholders_in_code_spans():
    """Markdown renders `<upload>` outside a code span as an HTML tag (gone: "work//transcripts.jsonl")."""
    for a in build_defs("in_process").assets or ():
        if not isinstance(a, dg.AssetsDefinition):
            continue
        for key, text in a.descriptions_by_key.items():
            outside = re.sub(r"`[^`]*`", "", text or "")
            assert not re.search(r"<\w+>", outside), (key.to_user_string(), text)


def test_every_metadata_link_of_a_released_run_points_at_a_file_that_exists(tmp_path):
    root = tmp_path / "data"
    shutil.copytree(REPO / "data/raw/sample-chats", root / "raw/sample-chats")
    (tmp_path / "home").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "home")) as instance:
        result = run_pipeline(root, instance=instance, echo=lambda _m: None)
        assert result.release == "released"
        paths = []
        for run in result.runs:
            for rec in instance.all_logs(run.run_id):
                ev = rec.dagster_event
                data = ev.event_specific_data if ev else None
                mat = getattr(data, "materialization", None)
                meta = getattr(mat, "metadata", None) or getattr(data, "metadata", None)
                for name, value in (meta or {}).items():
                    if isinstance(value, dg.PathMetadataValue):
                        paths.append((ev.asset_key.to_user_string() if ev.asset_key else "?", name, value.value))
    assert paths
    missing = [(asset, name, p) for asset, name, p in paths if not Path(p).exists()]
    assert not missing
    assert not any(".release-candidate" in p for _a, _n, p in paths)


def test_headless_chromium_shows_the_blocked_and_the_published_page(blocked, tmp_path):
    """Screenshots of the BLOCKED candidate page and of the live page that now says a newer one was blocked."""
    from vak_pipeline_tests.chromium import VIEWPORT, look_at

    root, *_ = blocked
    for name, page in (("blocked-candidate", DataLayout.at(root).candidate().steward_html),
                       ("published-after-block", root / "reports/steward/index.html")):
        seen = look_at(page.resolve(), tmp_path, name)
        assert not seen["clipped"] and seen["page_width"] <= VIEWPORT[0], seen
        assert seen["verdict"][1] <= VIEWPORT[1], seen  # the verdict, its causes and warnings on the first screen
