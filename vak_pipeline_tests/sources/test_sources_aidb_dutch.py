"""The aidb document's own Dutch example: imported with no language_map through the nl-NL pack, its
pseudonym tokens kept, valid for `vak validate`, and exported back field for field."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.layout import DataLayout
from vak_pipeline.sources.aidb import AidbImportContext, ImportedRecord, iter_aidb_file
from vak_pipeline.sources.aidb_export import export_aidb
from vak_pipeline.sources.text import write_redaction_log
from vak_pipeline.storage import JsonlWriter
from vak_pipeline.uploads.descriptor import RecordingSettings

FIXTURE = Path(__file__).parents[1] / "fixtures" / "sources" / "example_nl.aidb.jsonl"
SETTINGS = RecordingSettings(locale="en-GB", consent="written", consent_ref="dpa-1", license="internal")


def import_dutch(tmp_path: Path, settings: RecordingSettings = SETTINGS) -> list:
    ctx = AidbImportContext(
        upload="up", file="up/example_nl.aidb.jsonl", settings=settings, layout=DataLayout.at(tmp_path)
    )
    return list(iter_aidb_file(FIXTURE, ctx))


def test_the_dutch_example_imports_through_the_nl_pack_without_a_language_map(tmp_path):
    [imp] = import_dutch(tmp_path)
    assert isinstance(imp, ImportedRecord)
    rec = imp.record
    assert rec.locale == "nl-NL" and rec.language.primary == "nl"
    assert [t.lang for t in rec.turns] == ["nl"]
    # the pseudonym token stays as written, logged as the redaction it stands for
    assert "<ID_1>" in rec.turns[0].text
    assert [(s.type, s.placeholder) for s in imp.redaction_log.spans] == [("account_id", "<ID_1>")]


def test_the_dutch_example_round_trips_through_validate_and_export(tmp_path):
    [imp] = import_dutch(tmp_path)
    write_redaction_log(DataLayout.at(tmp_path), None, imp)  # beside the manifest, as `vak import-text` does
    manifest = tmp_path / "vakforge.jsonl"
    with JsonlWriter(manifest) as w:
        w.write(imp.record.dump())
    result = CliRunner().invoke(app, ["validate", str(manifest), "--no-audio"])
    assert result.exit_code == 0, result.output
    assert "1 records, 1 valid, 0 invalid" in result.output
    summary = export_aidb(manifest, tmp_path / "back.aidb.jsonl")
    assert (summary.written, summary.refused) == (1, 0)
    back = json.loads((tmp_path / "back.aidb.jsonl").read_text(encoding="utf-8"))
    assert back == json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_dutch_mapped_to_a_pack_that_does_not_speak_it_is_still_refused(tmp_path):
    [issue] = import_dutch(tmp_path, SETTINGS.model_copy(update={"language_map": {"nl": "de-DE"}}))
    assert issue.code == "aidb_language_not_declared" and issue.field == "language"


def test_dutch_mapped_to_the_nl_pack_explicitly_imports_too(tmp_path):
    [imp] = import_dutch(tmp_path, SETTINGS.model_copy(update={"language_map": {"nl": "nl-NL"}}))
    assert isinstance(imp, ImportedRecord) and imp.record.locale == "nl-NL"
