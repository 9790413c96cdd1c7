"""The steward's view after a real `vak run` on the sample plus a bad upload (broken JSON lines, an unmapped
stereo call, a corrupt file, canonical rows that break rules): every dropped file and rejected row is named by what the
customer uploaded, in the funnel, the asset checks and the report; report.json agrees with the manifest;
the HTML page has every section; the sensor and the nightly schedule ask for nothing `vak run` already did.

One pipeline run (module scope) on a temp copy of the data, with a temp Dagster instance.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import dagster as dg
import pytest

from vak_pipeline.layout import DataLayout
from vak_pipeline.orchestrate import run_pipeline
from vak_pipeline.report.steward import SECTIONS
from vak_pipeline_tests.report_fixtures import (
    BAD_UPLOAD,
    BROKEN_LINES,
    CORRUPT_FILE,
    MESSAGES_FILE,
    MONO_FILE,
    REJECTED_LINES,
    UNREDACTABLE_LINE,
    VAKFORGE_FILE,
    make_dataset,
)

NIGHT = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)
CALLS = {f"sample-calls/call_00{i}.flac" for i in (1, 2, 3)} | {"sample-calls/call_004.wav"}  # the real recordings
DROPPED_FILES = {  # uploaded file -> (check that must list it, partition, reason code)
    f"{BAD_UPLOAD}/{MONO_FILE}": ("transcripts_no_files_dropped", BAD_UPLOAD, "channel_map_missing"),
    f"{BAD_UPLOAD}/{CORRUPT_FILE}": ("normalized_audio_no_files_dropped", BAD_UPLOAD, None),
    f"{BAD_UPLOAD}/{MESSAGES_FILE}": ("tagged_turns_no_rows_dropped", BAD_UPLOAD, "messages_json_invalid"),
}


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory):
    root = make_dataset(tmp_path_factory.mktemp("report") / "data")
    with dg.instance_for_test(temp_dir=str(tmp_path_factory.mktemp("dagster_home"))) as instance:
        result = run_pipeline(root, instance=instance, echo=lambda _msg: None)
        assert result.success, [(r.name, r.partition, r.failed_steps) for r in result.runs]
        yield root, result, instance


def _checks(instance: dg.DagsterInstance, result) -> list[tuple[str | None, dg.AssetCheckEvaluation]]:
    """(partition, evaluation) of every asset check of every run of the pipeline."""
    out = []
    for run in result.runs:
        for rec in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION):
            out.append((run.partition, rec.dagster_event.event_specific_data))
    return out


def _table_rows(evaluation: dg.AssetCheckEvaluation, key: str) -> list[dict]:
    return [dict(r.data) for r in evaluation.metadata[key].value.records]


def _report(root: Path) -> dict:
    return json.loads((root / "reports/steward/report.json").read_text())


def test_each_dropped_file_is_named_in_the_funnel_the_check_and_the_report(release):
    root, result, instance = release
    report = _report(root)
    funnel_files = {d["file"]: d for d in report["funnel"]["drops"]}
    page = (root / "reports/steward/index.html").read_text()
    checks = _checks(instance, result)
    for file, (check_name, partition, code) in DROPPED_FILES.items():
        assert file in funnel_files, file
        assert funnel_files[file]["fix"], file
        if code:
            assert funnel_files[file]["code"] == code
        assert file in page, file
        [evaluation] = [e for p, e in checks if e.check_name == check_name and p == partition]
        assert not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.WARN
        assert file in {r["file"] for r in _table_rows(evaluation, "drops")}
    lines = sorted(d["line"] for d in report["funnel"]["drops"] if d["file"] == f"{BAD_UPLOAD}/{MESSAGES_FILE}")
    assert lines == list(BROKEN_LINES)
    # a record the redaction stage could not redact is named by its uploaded file and line, not work/
    [unredacted] = [d for d in report["funnel"]["drops"] if d["stage"] == "redacted"]
    assert (unredacted["file"], unredacted["line"]) == (f"{BAD_UPLOAD}/{VAKFORGE_FILE}", UNREDACTABLE_LINE)
    assert unredacted["code"] == "redaction_unknown_locale"


def test_the_funnel_counts_audio_and_text_apart_per_upload(release):
    root, _result, _instance = release
    uploads = {u["upload"]: u for u in _report(root)["funnel"]["uploads"]}
    calls = uploads["sample-calls"]["audio"]
    assert calls["in"]["recordings"] == 4 and calls["decoded"]["recordings"] == 4
    # the mono call is diarized offline (issue 15), so every sample call is transcribed and published
    assert calls["transcribed"]["recordings"] == 4 and calls["published"]["recordings"] == 4
    bad = uploads[BAD_UPLOAD]
    assert bad["audio"]["in"]["recordings"] == 2 and bad["audio"]["decoded"]["recordings"] == 1
    assert bad["text"]["in"] == 5 + 4  # 5 messages lines + 4 canonical rows
    assert bad["text"]["redacted"] == bad["text"]["turns"] - 1
    assert bad["text"]["valid"] == bad["text"]["redacted"] - len(REJECTED_LINES)
    # synth renders the chats as calls: they stay text conversations, their audio is counted apart; the rows
    # validation rejects were not rendered (synth leaves a record that breaks its own rules as it is)
    synth = bad["synthesized"]
    assert bad["audio"]["valid"]["recordings"] == 0 and bad["audio"]["published"]["recordings"] == 0
    assert synth["synthesized"]["recordings"] == synth["valid"]["recordings"] == bad["text"]["valid"] > 0
    assert synth["valid"]["hours"] > 0 and synth["published"]["recordings"] <= bad["text"]["published"]
    assert bad["drops_by_reason"]["channel_map_missing"] == 1
    assert uploads["sample-chats"]["audio"]["in"]["recordings"] == 0  # tickets are not audio
    assert uploads["sample-chats"]["audio"]["published"]["recordings"] == 0  # not even once synthesized


def test_every_rejected_row_names_its_uploaded_file_line_rule_and_fix(release):
    root, result, instance = release
    rows = [json.loads(x) for x in (root / "reports/rejected.jsonl").read_text().splitlines()]
    assert {(r["file"], r["line"]) for r in rows} == {(f"{BAD_UPLOAD}/{VAKFORGE_FILE}", n) for n in REJECTED_LINES}
    for r in rows:
        assert not r["file"].startswith("work/")
        assert all(i["fix"] and i["message"] and i["code"] for i in r["issues"])
    families = {i["family"] for r in rows for i in r["issues"] if i["severity"] == "ERROR"}
    assert set(REJECTED_LINES.values()) <= families
    checks = {e.check_name: e for _p, e in _checks(instance, result) if e.check_name.startswith("rules_")}
    for line, family in REJECTED_LINES.items():
        evaluation = checks[f"rules_{family}"]
        # rows a rule rejects fail its check as ERROR (the tool-call rule's check included)
        assert not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.ERROR, family
        failing = _table_rows(evaluation, "failing_rows")
        assert {(r["file"], r["line"]) for r in failing if r["severity"] == "ERROR"} == {
            (f"{BAD_UPLOAD}/{VAKFORGE_FILE}", line)  # an int column in the one issues table of every check
        }
        assert all(r["fix"] for r in failing)
    shown = _report(root)["rejected_rows"]["shown"]
    assert {(r["file"], r["line"]) for r in shown} == {(f"{BAD_UPLOAD}/{VAKFORGE_FILE}", n) for n in REJECTED_LINES}


def test_report_json_numbers_equal_the_manifest(release):
    root, _result, _instance = release
    records = [json.loads(x) for x in (root / "vakforge.jsonl").read_text().splitlines()]
    # audio = real recordings; chats and tickets synth rendered as calls (audio.synthesis set) are text
    audio = [r for r in records if r.get("audio") and not r["audio"].get("synthesis")]
    text = [r for r in records if r not in audio]
    synthesized = [r for r in text if r.get("audio")]
    spoken = sum(1 for r in audio for t in r["turns"] if not t.get("tool_call") and not t.get("tool_result"))
    hours = sum(r["audio"]["duration_s"] for r in audio) / 3600
    synth_hours = sum(r["audio"]["duration_s"] for r in synthesized) / 3600
    report = _report(root)
    s, total = report["summary"], report["funnel"]["total"]
    assert s["conversations"] == len(records) and s["with_audio"] == len(audio)
    assert s["text_conversations"] == len(text) and s["spoken_turns"] == spoken
    assert s["audio_hours"] == pytest.approx(hours, abs=1e-4)
    assert s["synthesized"] == len(synthesized) > 0 and s["synthesized_hours"] == pytest.approx(synth_hours, abs=1e-4)
    assert total["audio"]["valid"]["recordings"] == len(audio) and total["text"]["valid"] == len(text)
    assert total["audio"]["valid"]["hours"] == pytest.approx(hours, abs=1e-6)
    assert total["synthesized"]["valid"]["recordings"] == len(synthesized)
    assert total["synthesized"]["valid"]["hours"] == pytest.approx(synth_hours, abs=1e-6)
    by_split = Counter(json.loads((root / "splits.json").read_text())["assignment"].values())
    published = {k: int(v["audio"] + v["text"]) for k, v in total["published_by_split"].items()}
    assert published == dict(by_split)
    assert report["manifest_hash"] and report["generated_at"].endswith("Z")
    assert report["verdict"]["status"] == "review" and report["verdict"]["reasons"]
    assert len(report["quality"]["recordings"]) == len(audio)
    assert report["turn_taking"]["total"]["conversations"] == len(audio)
    assert report["turn_taking"]["synthesized"]["conversations"] == len(synthesized)  # apart, labelled
    # one language per pack tag: en-GB, en-IN and en are "en"
    assert set(s["by"]["language"]) <= {"en", "hi-Latn", "hi"} and "en" in s["by"]["language"]
    assert len(set(s["by"]["language.primary"])) > len(set(s["by"]["language"]))


def test_quality_per_recording_is_measured_for_every_call(release):
    root, _result, _instance = release
    rows = _report(root)["quality"]["recordings"]
    # real recordings only (no synthesized chat or ticket); the mono call_004.wav is diarized offline (issue 15)
    assert {r["file"] for r in rows} == CALLS
    for r in rows:
        assert 0 < r["speech_ratio"] <= 1 and r["snr_db"] is not None and r["clipping_ratio"] is not None
        assert 0 < r["asr_confidence"] <= 1 and r["words_per_s"] > 0 and 0 <= r["lang_fallback_share"] <= 1
        # the speech stage measures both since issue 15: the sample calls leak nothing into the other channel
        # (call_004 is mono: nothing to leak), and a count of hallucinated segments dropped is recorded
        assert r["cross_talk_db"] is None and isinstance(r["hallucination_drops"], int)
        assert "hallucination_drops" not in r["flags"]
    assert (root / "reports/steward/quality.csv").read_text().count("\n") == len(rows) + 1


def test_quality_flags_warn_and_excluded_metrics_reject(release, tmp_path):
    from vak_pipeline.quality.recordings import QualityThresholds, quality_rules
    from vak_pipeline.rules.publish import publish_manifest

    root = tmp_path / "data"
    shutil.copytree(release[0], root, ignore=shutil.ignore_patterns("exports"))
    layout = DataLayout.at(root)
    # what validated_manifest reads: synth's output, so synthesized chats are there and must not be flagged
    inputs = [layout.manifest_input(u) for u in layout.uploads()]
    assert any(p.name == "synthesized.jsonl" for p in inputs)
    strict = QualityThresholds(min_words_per_s=100.0)
    flagged = publish_manifest(layout, inputs, extra_rules=quality_rules(layout, strict))
    # the four real calls (call_004.wav is diarized offline since issue 15), no synthesized call
    assert flagged.issues_by_code["quality_words_per_s"] == len(CALLS) and flagged.rejected == len(REJECTED_LINES)
    excluded = publish_manifest(
        layout, inputs, extra_rules=quality_rules(layout, strict.model_copy(update={"exclude": ["words_per_s"]}))
    )
    assert excluded.rejected == len(REJECTED_LINES) + len(CALLS) and excluded.valid == flagged.valid - len(CALLS)
    rows = [json.loads(x) for x in layout.rejected.read_text().splitlines()]
    quality_rows = [r for r in rows if any(i["code"] == "quality_words_per_s" for i in r["issues"])]
    assert sorted(r["file"] for r in quality_rows) == sorted(CALLS)
    assert all(r["kind"] == "audio" for r in quality_rows)


class _Sections(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.images: list[str] = []
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "section":
            self.sections.append(a.get("id", ""))
        elif tag == "img":
            self.images.append(a.get("src", ""))
        elif tag == "a" and "dagster" in (a.get("class") or ""):
            self.links.append(a.get("href", ""))


def test_the_html_page_has_every_section_with_embedded_charts_and_asset_links(release):
    root, _result, _instance = release
    page = _Sections()
    page.feed((root / "reports/steward/index.html").read_text())
    assert [x for x in SECTIONS if x in page.sections] == page.sections  # in order; an empty section is left out
    assert {"verdict", "funnel", "uploads", "rejected", "quality", "charts"} <= set(page.sections)
    assert {"generated-at", "verdict-status", "manifest-hash"} <= page.ids
    assert len(page.images) >= 6 and all(src.startswith("data:image/png;base64,") for src in page.images)
    assert "http://localhost:3000/assets/normalized_audio" in page.links
    assert "http://localhost:3000/assets/validated_manifest" in page.links


def test_sensor_and_nightly_schedule_request_nothing_vak_run_already_ingested(release):
    from vak_pipeline.defs.ingest import nightly_reingest, upload_sensor
    from vak_pipeline.defs.resources import DataResource

    root, _result, instance = release
    resources = {"data": DataResource(root=str(root))}
    with dg.build_sensor_context(instance=instance, cursor=None, resources=resources) as ctx:
        first = upload_sensor(ctx)
    assert not first.run_requests
    with dg.build_schedule_context(instance=instance, scheduled_execution_time=NIGHT, resources=resources) as ctx:
        assert isinstance(nightly_reingest(ctx), dg.SkipReason)


def test_headless_chromium_shows_the_verdict_first_and_clips_no_table(release, tmp_path):
    from vak_pipeline_tests.chromium import VIEWPORT, look_at

    root = release[0]
    seen = look_at((root / "reports/steward/index.html").resolve(), tmp_path, "good-report")
    assert seen["tables"] > 5 and not seen["clipped"], seen["clipped"]
    assert seen["page_width"] <= VIEWPORT[0]  # the page never scrolls sideways; wide tables scroll inside
    assert 0 <= seen["verdict"][0] and seen["verdict"][1] <= VIEWPORT[1]  # the whole verdict block on one screen
    assert all(Path(p).stat().st_size > 10_000 for p in seen["screenshots"])


def test_no_real_audio_in_train_is_a_training_warning_on_the_sample(release):
    """The shipped sample's four real recordings share one agent voice: they land in one split, train holds none."""
    root = release[0]
    report = _report(root)
    by_split = report["funnel"]["total"]["published_by_split"]
    assert by_split.get("train", {}).get("audio", 0) == 0  # the situation the warning is about
    warnings = report["training_warnings"]
    assert any(w.startswith("train holds no real audio") for w in warnings), warnings
    page = (root / "reports/steward/index.html").read_text(encoding="utf-8")
    top = page[: page.index("<nav>")]  # in the status block, before the detail
    assert "train holds no real audio" in top and "nothing left out, nothing flagged" not in top


def test_the_page_reads_durations_as_clock_times_and_has_no_empty_table_or_chart(release):
    import re

    root = release[0]
    page = (root / "reports/steward/index.html").read_text(encoding="utf-8")
    assert not re.search(r"\d\.\d{3,} ?h\b", page) and "hours" not in page.split("<nav>")[1]
    assert re.search(r"<td class='n'>0:\d\d:\d\d</td>", page)  # audio durations as h:mm:ss
    tables = re.findall(r"<table.*?</table>", page, re.S)
    assert tables and all(t.count("<tr>") >= 2 for t in tables)  # a header and at least one row
    assert "colspan" not in page  # no "(none)" placeholder row: an empty table is left out
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", page)
    assert len(captions) == len(set(captions)) == page.count("<img ")  # one caption per chart
    charts = {p.name for p in (root / "reports/steward").glob("*.png")}
    assert charts == set(re.findall(r"data-file='([^']+)'", page))


def test_dagster_links_take_their_base_from_config_and_name_the_run_and_partition(release, tmp_path):
    from vak_pipeline.report.steward import ReportSettings, build_steward_report

    root, result, _instance = release
    page = (root / "reports/steward/index.html").read_text(encoding="utf-8")
    publish = [r for r in result.runs if r.name == "publish_job"][-1]
    assert f"http://localhost:3000/runs/{publish.run_id}" in page
    assert "http://localhost:3000/assets/normalized_audio?partition=sample-calls" in page
    out = build_steward_report(root, tmp_path / "other", ReportSettings(dagster_url="https://dagster.example/x/"))
    other = out.html.read_text(encoding="utf-8")
    assert "https://dagster.example/x/assets/validated_manifest" in other and "localhost:3000" not in other


def test_failing_turns_of_the_gx_checks_name_their_uploaded_file(release, tmp_path):
    from vak_pipeline.defs.resources import DataResource
    from vak_pipeline.defs.speech import tagged_turns, tagged_turns_gx

    root = tmp_path / "data"
    shutil.copytree(release[0], root, ignore=shutil.ignore_patterns("exports"))
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["sample-calls"])
        res = dg.materialize(
            [tagged_turns, tagged_turns_gx],
            partition_key="sample-calls",
            instance=instance,
            resources={"data": DataResource(root=str(root))},
            run_config={"ops": {"tagged_turns_gx": {"config": {"max_words_per_s": 0.5}}}},
        )
    [wps] = [e for e in res.get_asset_check_evaluations() if e.check_name == "turn_words_per_second"]
    rows = _table_rows(wps, "failing_turns")
    assert not wps.passed and rows  # every turn is faster than 0.5 words/s
    assert {r["file"] for r in rows} == CALLS  # call_004.wav too: mono calls are diarized offline (issue 15)
