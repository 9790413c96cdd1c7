"""`DataLayout` names every file a stage reads or writes; naming a path never downloads; the executor of
`vak run` is an argument, not a change to the process environment."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from vak_pipeline.defs.resources import DataResource
from vak_pipeline.layout import RELEASE_ITEMS, DataLayout

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "raw"


def test_stage_state_reports_and_markers_are_named_by_the_layout():
    layout = DataLayout.at("/d")
    work = Path("/d/work/u1")
    assert layout.speech_report("u1") == work / "speech_report.json"
    assert layout.redaction_report("u1") == work / "redaction_report.json"
    assert layout.text_records("u1") == work / "text_records.jsonl"
    assert layout.stage_ledger("u1", "normalized_audio") == work / "ledger" / "normalized_audio.jsonl"
    assert layout.publish_marker == Path("/d/.publish_done.json")
    assert layout.validation_report == Path("/d/reports/validation.jsonl")
    assert layout.steward_html == Path("/d/reports/steward/index.html")
    assert layout.published_audio("c1") == Path("/d") / layout.audio_rel("c1") == Path("/d/audio/c1.wav")
    # a record's files: kept privately per upload, placed in the candidate's tree, swapped in with the release
    assert layout.release_files("u1") == work / "release"
    assert layout.candidate().published_audio("c1") == Path("/d/work/.release-candidate/audio/c1.wav")
    assert layout.candidate().alignment("c1") == Path("/d/work/.release-candidate/alignments/c1.json")
    assert {"audio", "alignments", "redactions"} <= set(RELEASE_ITEMS)
    assert layout.redaction_report("u1") in layout.stage_reports("u1")
    # what `vak run` reads problems from (cli.upload_problems globs *report.json)
    assert all(p.name.endswith("report.json") for p in layout.stage_reports("u1"))


def test_naming_the_layout_of_a_url_root_downloads_nothing(tmp_path):
    remote = tmp_path / "bucket"
    shutil.copytree(SAMPLE / "sample-chats", remote / "raw" / "sample-chats")
    data = DataResource(root=f"file://{remote}", cache=str(tmp_path / "cache"))
    assert data.layout.root == tmp_path / "cache"
    assert not (tmp_path / "cache" / "raw").exists()
    layout = data.pull()  # the explicit call (a step's resource setup makes it)
    assert layout.root == tmp_path / "cache"
    assert (tmp_path / "cache" / "raw" / "sample-chats").is_dir()  # no partition: the publish scope


def test_the_executor_is_an_argument_of_the_definitions(monkeypatch):
    from vak_pipeline.definitions import build_defs
    from vak_pipeline.orchestrate import INGEST_JOB

    monkeypatch.delenv("VAK_EXECUTOR", raising=False)
    job = build_defs("in_process").resolve_job_def(INGEST_JOB)
    assert job.executor_def.name == "in_process"
    assert build_defs("multiprocess").resolve_job_def(INGEST_JOB).executor_def.name == "multiprocess"
    assert "VAK_EXECUTOR" not in os.environ
