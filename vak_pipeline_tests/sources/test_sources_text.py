"""iter_text_records: every text source of an upload streamed as canonical records, problems as Issues."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.layout import DataLayout
from vak_pipeline.rules.issue import Issue
from vak_pipeline.schema.record import VakRecord
from vak_pipeline.sources.text import iter_text_records

SAMPLE = Path(__file__).parents[2] / "data" / "raw" / "sample-chats"


def data_root(tmp_path: Path) -> DataLayout:
    shutil.copytree(SAMPLE, tmp_path / "raw" / "sample-chats")
    return DataLayout.at(tmp_path)


def test_sample_chats_stream_six_records_and_write_token_redaction_logs(tmp_path):
    layout = data_root(tmp_path)
    items = list(iter_text_records(layout, "sample-chats"))
    assert [i for i in items if isinstance(i, Issue)] == []
    records = [i for i in items if isinstance(i, VakRecord)]
    assert sorted(r.id for r in records) == [
        "sample-chats-support-chat-hours-003", "sample-chats-support-chat-order-001",
        "sample-chats-support-chat-refund-002", "sample-chats-tickets-c-2001", "sample-chats-tickets-t-1001",
        "sample-chats-tickets-t-1002"]
    for r in records:
        if r.meta.model_extra["origin"]["format"].startswith("aidb"):
            log = json.loads((tmp_path / r.meta.redaction_log).read_text())
            assert log["conversation_id"] == r.id and log["spans"]
    assert sorted(p.name for p in (tmp_path / "redactions").iterdir()) == [
        "sample-chats-tickets-c-2001.json", "sample-chats-tickets-t-1001.json", "sample-chats-tickets-t-1002.json"]


def test_an_upload_without_descriptor_imports_nothing_and_says_why(tmp_path):
    layout = data_root(tmp_path)
    (tmp_path / "raw" / "sample-chats" / "upload.yaml").unlink()
    items = list(iter_text_records(layout, "sample-chats"))
    assert [i.code for i in items] == ["descriptor_missing"]


def test_an_upload_without_text_files_yields_nothing(tmp_path):
    (tmp_path / "raw" / "calls").mkdir(parents=True)
    assert list(iter_text_records(DataLayout.at(tmp_path), "calls")) == []


def test_cli_import_then_export(tmp_path):
    data_root(tmp_path)
    runner = CliRunner()
    res = runner.invoke(app, ["import-text", str(tmp_path / "raw" / "sample-chats"), str(tmp_path / "conv.jsonl")])
    assert res.exit_code == 0, res.output
    assert "wrote 6 records" in res.output
    res = runner.invoke(app, ["export-aidb", str(tmp_path / "conv.jsonl"), str(tmp_path / "out.aidb.jsonl")])
    # the three messages records are real and not yet redacted: refused, the three tickets exported
    assert res.exit_code == 1 and "wrote 3 records" in res.output and "refused 3" in res.output
