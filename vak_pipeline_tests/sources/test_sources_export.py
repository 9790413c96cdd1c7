"""Canonical manifest -> aidb.conversation/1.0: an imported record comes back equal; others are described."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from vak_pipeline.layout import DataLayout
from vak_pipeline.sources.aidb import AidbImportContext, ImportedRecord, check_aidb_object, iter_aidb_file
from vak_pipeline.sources.aidb_export import export_aidb, iter_aidb_parquet, to_aidb
from vak_pipeline.sources.messages import MessagesImportContext, iter_messages_file
from vak_pipeline.storage import JsonlWriter
from vak_pipeline.uploads.descriptor import RecordingSettings

ROOT = Path(__file__).parents[2]
FIXTURES = Path(__file__).parents[1] / "fixtures" / "sources"
SETTINGS = RecordingSettings(locale="en-GB", consent="written", consent_ref="dpa-1", license="internal")


def imported(tmp_path: Path, src: Path) -> list[ImportedRecord]:
    ctx = AidbImportContext(upload="up", file=f"up/{src.name}", settings=SETTINGS, layout=DataLayout.at(tmp_path))
    items = list(iter_aidb_file(src, ctx))
    assert all(isinstance(i, ImportedRecord) for i in items), items
    return items


def originals(src: Path) -> list[dict]:
    return [json.loads(x) for x in src.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_the_english_example_round_trips_field_for_field(tmp_path):
    src = FIXTURES / "example_en.aidb.jsonl"
    [imp] = imported(tmp_path, src)
    assert to_aidb(imp.record) == originals(src)[0]


def test_sample_tickets_round_trip_through_a_manifest_to_jsonl_and_parquet(tmp_path):
    src = ROOT / "data" / "raw" / "sample-chats" / "tickets.aidb.jsonl"
    manifest = tmp_path / "vakforge.jsonl"
    with JsonlWriter(manifest) as w:
        for imp in imported(tmp_path, src):
            w.write(imp.record.dump())
    summary = export_aidb(manifest, tmp_path / "out.aidb.jsonl", tmp_path / "out.parquet")
    assert (summary.written, summary.refused, summary.issues) == (3, 0, [])
    want = originals(src)
    assert originals(tmp_path / "out.aidb.jsonl") == want
    assert list(iter_aidb_parquet(tmp_path / "out.parquet")) == want  # same layout: same checks apply
    for obj in iter_aidb_parquet(tmp_path / "out.parquet"):
        assert check_aidb_object(obj)[1] == []


def test_the_canonical_text_wins_over_the_original(tmp_path):
    [imp] = imported(tmp_path, FIXTURES / "example_en.aidb.jsonl")
    imp.record.turns[0].text = "Good morning, <PER_1> here."
    out = to_aidb(imp.record)
    assert out["turns"][0]["text"] == "Good morning, <PER_1> here." and out["turns"][0]["n"] == 1


def test_a_record_not_from_aidb_is_described_with_tool_turns_as_bot_events(tmp_path):
    shutil.copy(ROOT / "data" / "raw" / "sample-chats" / "support.messages.jsonl", tmp_path / "s.messages.jsonl")
    settings = RecordingSettings(locale="en-GB", source="synthetic", consent="synthetic", license="internal")
    ctx = MessagesImportContext(upload="up", file="up/s.messages.jsonl", settings=settings)
    rec = next(i[0] for i in iter_messages_file(tmp_path / "s.messages.jsonl", ctx))
    out = to_aidb(rec)
    assert check_aidb_object(out)[1] == []
    assert out["schema"] == "aidb.conversation/1.0" and out["id"] == rec.id and out["language"] == "en-GB"
    assert [p["side"] for p in out["participants"]] == ["customer", "internal"]
    assert [t["kind"] for t in out["turns"]] == ["message", "event", "event", "message"]
    call = out["turns"][1]
    assert call["bot"] is True and call["event"]["field"] == "tool_call"
    assert call["event"]["value"]["name"] == "lookup_order"
    assert out["provenance"]["licence"] == "internal"


def test_unredacted_real_records_are_not_exported(tmp_path):
    shutil.copy(ROOT / "data" / "raw" / "sample-chats" / "support.messages.jsonl", tmp_path / "s.messages.jsonl")
    ctx = MessagesImportContext(upload="up", file="up/s.messages.jsonl", settings=SETTINGS)
    manifest = tmp_path / "m.jsonl"
    with JsonlWriter(manifest) as w:
        for rec, _ in (i for i in iter_messages_file(tmp_path / "s.messages.jsonl", ctx) if isinstance(i, tuple)):
            w.write(rec.dump())
    summary = export_aidb(manifest, tmp_path / "out.jsonl")
    assert summary.written == 0 and summary.refused == 3
    assert {i.code for i in summary.issues} == {"export_not_redacted"}
    assert (tmp_path / "out.jsonl").read_text() == ""
