"""The text import on the stage core: each line of a text source is an item keyed by its bytes, place, upload
settings and the locale packs; an unchanged line is taken from the ledger, a refused one is reported again
(not retried), and its report is read by `vak run` and the funnel like every stage's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from vak_pipeline.cli import upload_problems
from vak_pipeline.core.issue import Issue
from vak_pipeline.core.stage import Ledger
from vak_pipeline.layout import DataLayout
from vak_pipeline.report.stage_reports import stage_issues
from vak_pipeline.schema.record import VakRecord
from vak_pipeline.sources.text import TEXT_STAGE, TextImportResult, TextRecord, import_text, iter_text_records
from vak_pipeline.speech.stage import tag_upload
from vak_pipeline.storage import dumps_line

SAMPLE = Path(__file__).parents[2] / "data" / "raw" / "sample-chats"
UPLOAD = "sample-chats"
NO_TURNS = {"id": "empty-1", "messages": [{"role": "system", "content": "You are helpful."}]}


def data_root(tmp_path: Path, extra: str = "") -> DataLayout:
    shutil.copytree(SAMPLE, tmp_path / "raw" / UPLOAD)
    if extra:
        with open(tmp_path / "raw" / UPLOAD / "support.messages.jsonl", "a", encoding="utf-8") as fh:
            fh.write(extra)
    return DataLayout.at(tmp_path)


def run(layout: DataLayout) -> tuple[TextImportResult, list[VakRecord | Issue]]:
    """The stage's records (and issues); each record comes with its line, checked here to be its JSONL line."""
    result = TextImportResult()
    items: list[VakRecord | Issue] = []
    for x in import_text(layout, UPLOAD, result):
        if isinstance(x, TextRecord):
            assert x.line == dumps_line(x.record.dump())
            x = x.record
        items.append(x)
    return result, items


def test_a_second_run_with_nothing_changed_reuses_every_line_and_yields_the_same_records(tmp_path):
    layout = data_root(tmp_path)
    first, items = run(layout)
    assert (first.lines, first.imported, first.reused, first.records) == (6, 6, 0, 6)
    records_file = layout.text_records(UPLOAD).read_bytes()
    again, items_again = run(layout)
    assert (again.lines, again.imported, again.reused, again.records) == (6, 0, 6, 6)
    assert [r.dump() for r in items_again] == [r.dump() for r in items]
    assert layout.text_records(UPLOAD).read_bytes() == records_file
    assert records_file.decode() == "".join(dumps_line(r.dump()) for r in items)
    report = json.loads(layout.speech_report(UPLOAD).read_text())[TEXT_STAGE]
    assert (report["counts"]["imported"], report["counts"]["reused"]) == (0, 6)
    assert len(Ledger.load(layout.stage_ledger(UPLOAD, TEXT_STAGE)).previous) == 6


def test_the_stage_yields_what_the_plain_import_yields(tmp_path):
    layout = data_root(tmp_path, json.dumps(NO_TURNS) + "\n{broken\n")
    plain = [x.dump() if isinstance(x, VakRecord) else x for x in iter_text_records(layout, UPLOAD)]
    for _ in range(2):  # computed, then reused
        _, items = run(layout)
        assert [x.dump() if isinstance(x, VakRecord) else x for x in items] == plain


def test_a_changed_setting_rekeys_every_line_and_a_changed_line_only_itself(tmp_path):
    layout = data_root(tmp_path)
    run(layout)
    yaml = layout.upload_dir(UPLOAD) / "upload.yaml"
    yaml.write_text(yaml.read_text(encoding="utf-8").replace("scenario: order_issue", "scenario: billing"),
                    encoding="utf-8")
    changed, items = run(layout)
    assert (changed.imported, changed.reused) == (6, 0)
    assert {r.scenario for r in items} == {"billing"}
    src = layout.upload_dir(UPLOAD) / "support.messages.jsonl"
    lines = src.read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].replace("order", "parcel", 1)
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    one, _ = run(layout)
    assert (one.imported, one.reused) == (1, 5)


def test_a_refused_line_is_reported_again_not_retried(tmp_path):
    layout = data_root(tmp_path, json.dumps(NO_TURNS) + "\n")
    first, items = run(layout)
    refused = [i for i in items if isinstance(i, Issue)]
    assert [(i.code, i.line) for i in refused] == [("messages_no_turns", 4)]
    entry = Ledger.load(layout.stage_ledger(UPLOAD, TEXT_STAGE)).previous[f"{UPLOAD}/support.messages.jsonl:4"]
    assert entry.failure is not None and entry.failure.code == "messages_no_turns"
    again, items_again = run(layout)
    assert again.imported == 0 and again.reused == 7
    assert [i for i in items_again if isinstance(i, Issue)] == refused


def test_a_record_whose_output_is_gone_is_imported_again(tmp_path):
    layout = data_root(tmp_path)
    run(layout)
    layout.text_records(UPLOAD).unlink()
    (layout.release_files(UPLOAD) / "redactions" / "sample-chats-tickets-t-1001.json").unlink()
    again, _ = run(layout)
    assert (again.imported, again.reused) == (6, 0)
    assert (layout.release_files(UPLOAD) / "redactions" / "sample-chats-tickets-t-1001.json").is_file()


def test_text_problems_reach_vak_run_and_the_funnel_once(tmp_path):
    layout = data_root(tmp_path, json.dumps(NO_TURNS) + "\n")
    res = tag_upload(layout, UPLOAD)
    assert res.from_text == 6 and [i.code for i in res.issues] == ["messages_no_turns"]
    assert (res.text_imported, res.text_reused) == (7, 0)
    assert [p["code"] for p in upload_problems(layout, UPLOAD)] == ["messages_no_turns"]
    assert [(s.stage, s.issue.code) for s in stage_issues(layout, UPLOAD)] == [("turns", "messages_no_turns")]
    conversations = layout.conversations(UPLOAD).read_bytes()
    again = tag_upload(layout, UPLOAD)
    assert again.from_text == 6 and (again.text_imported, again.text_reused) == (0, 7)
    assert layout.conversations(UPLOAD).read_bytes() == conversations
    assert [p["code"] for p in upload_problems(layout, UPLOAD)] == ["messages_no_turns"]


def test_the_plain_import_keeps_nothing(tmp_path):
    layout = data_root(tmp_path)
    list(iter_text_records(layout, UPLOAD))
    assert not layout.work(UPLOAD).exists()
