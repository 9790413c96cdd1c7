"""aidb.conversation/1.0 import: the schema's first validation pass, then the mapping to canonical records."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from vak_pipeline.layout import DataLayout
from vak_pipeline.rules.context import ValidationContext
from vak_pipeline.rules.engine import validate_record
from vak_pipeline.sources.aidb import AidbImportContext, ImportedRecord, iter_aidb_file
from vak_pipeline.sources.text import write_redaction_log
from vak_pipeline.uploads.descriptor import RecordingSettings

FIXTURES = Path(__file__).parents[1] / "fixtures" / "sources"
DUTCH = json.loads((FIXTURES / "example_nl.aidb.jsonl").read_text(encoding="utf-8"))
ENGLISH = json.loads((FIXTURES / "example_en.aidb.jsonl").read_text(encoding="utf-8"))
SETTINGS = RecordingSettings(locale="en-GB", consent="written", consent_ref="dpa-1", license="internal")


def run(tmp_path: Path, lines: list[str | dict], settings: RecordingSettings = SETTINGS, **kw):
    path = tmp_path / "up" / "t.aidb.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    ctx = AidbImportContext(upload="up", file="up/t.aidb.jsonl", settings=settings, layout=DataLayout.at(tmp_path),
                            **kw)
    items = list(iter_aidb_file(path, ctx))
    records = [i for i in items if isinstance(i, ImportedRecord)]
    issues = [i for i in items if not isinstance(i, ImportedRecord)]
    return records, issues


def broken(mutate) -> dict:
    rec = copy.deepcopy(ENGLISH)
    mutate(rec)
    return rec


def test_a_language_no_pack_speaks_is_refused_with_the_fix_named(tmp_path):
    italian = copy.deepcopy(DUTCH) | {"language": "it"}
    records, issues = run(tmp_path, [italian])
    assert records == []
    [issue] = issues
    assert (issue.code, issue.line, issue.record_id, issue.field) == ("aidb_language_no_pack", 1, "c-0001", "language")
    assert "add a locale pack or map the language in upload.yaml" in issue.fix


def test_mapping_dutch_to_an_english_pack_is_refused_too(tmp_path):
    settings = SETTINGS.model_copy(update={"language_map": {"nl": "en-GB"}})
    records, issues = run(tmp_path, [DUTCH], settings)
    assert records == [] and [i.code for i in issues] == ["aidb_language_not_declared"]


def test_english_variant_maps_to_a_record_the_validator_accepts(tmp_path):
    [imp], issues = run(tmp_path, [ENGLISH])
    assert issues == []
    rec = imp.record
    assert rec.locale == "en-GB" and rec.language.primary == "en"
    # customer message -> user, reply -> agent; the note and the status event are not spoken turns
    assert [(t.speaker, t.start, t.end) for t in rec.turns] == [("user", 0.0, 0.0), ("agent", 5460.0, 5460.0)]
    assert [n["kind"] for n in rec.meta.model_extra["notes"]] == ["note"]
    assert rec.meta.model_extra["aidb"]["events"][0]["event"] == {"field": "status", "value": "solved"}
    assert rec.meta.model_extra["aidb"]["outcome"]["code"] == "credit_note"
    # the record says it is fictional: synthetic, with the licence trail kept
    m = rec.meta
    assert (m.source, m.consent, m.license, m.consent_ref) == ("synthetic", "synthetic", "LIC-EXAMPLE",
                                                               "L-EXAMPLE/LIC-EXAMPLE")
    assert m.pii_redacted and m.redaction_log == f"redactions/{rec.id}.json"
    write_redaction_log(DataLayout.at(tmp_path), None, imp)  # beside the manifest, as `vak import-text` does
    result = validate_record(rec.dump(), ValidationContext(base_dir=tmp_path))
    assert result.ok, [i.render() for i in result.issues]


def test_every_pseudonym_token_is_a_logged_redaction(tmp_path):
    [imp], _ = run(tmp_path, [ENGLISH])
    spans = imp.redaction_log.spans
    assert [(s.turn, s.type, s.placeholder) for s in spans] == [
        (0, "account_id", "<ID_1>"), (1, "person_name", "<PER_1>"), (1, "account_id", "<ID_1>")]
    for s in spans:
        assert imp.record.turns[s.turn].text[s.start:s.end] == s.placeholder and s.field == "text" and not s.audio


def test_a_real_delivery_takes_consent_from_the_upload_and_the_licence_from_the_record(tmp_path):
    real = broken(lambda r: r.pop("example"))
    [imp], _ = run(tmp_path, [real])
    m = imp.record.meta
    assert (m.source, m.consent, m.consent_ref, m.license) == ("real", "written", "L-EXAMPLE/LIC-EXAMPLE",
                                                               "LIC-EXAMPLE")


def test_keep_notes_false_drops_notes_but_counts_them(tmp_path):
    [imp], _ = run(tmp_path, [ENGLISH], keep_notes=False)
    extra = imp.record.meta.model_extra
    assert "notes" not in extra and extra["aidb"]["notes_dropped"] == 1


@pytest.mark.parametrize(("mutate", "code", "turn", "field"), [
    (lambda r: r.pop("deid"), "aidb_required_missing", None, "deid"),
    (lambda r: r["turns"][0].pop("from"), "aidb_required_missing", 0, "turns[0].from"),
    (lambda r: r.update(schema="aidb.conversation/2.0"), "aidb_schema_unknown", None, "schema"),
    (lambda r: r["turns"][0].update(n=0), "aidb_turn_n_sequence", 0, "n"),
    (lambda r: r["turns"][2].update(n=5), "aidb_turn_n_sequence", 2, "n"),
    (lambda r: r["turns"][2].update(reply_to=4), "aidb_reply_to_forward", 2, "reply_to"),
    (lambda r: r["turns"][2].update(at="2023-03-06T08:00:00Z"), "aidb_timestamps_not_rising", 2, "at"),
    (lambda r: r["turns"][1].update(at="2023-03-06 09:40"), "aidb_timestamp_invalid", 1, "at"),
    (lambda r: r["turns"][0].update(text="Mail me at jan.smit@example.com please"), "aidb_raw_contact", 0, "text"),
    (lambda r: r["turns"][2].update(text="Call me on +44 7911 123456 today"), "aidb_raw_contact", 2, "text"),
    (lambda r: r["turns"][1].update(text="ring 07911 123456"), "aidb_raw_contact", 1, "text"),
    (lambda r: r["turns"][0].update({"from": "<PER_9>"}), "aidb_from_unknown", 0, "from"),
    (lambda r: r["turns"][0].update(kind="comment"), "aidb_kind_unknown", 0, "kind"),
    (lambda r: r["turns"][0].update(n="1"), "aidb_field_invalid", 0, "turns[0].n"),
])
def test_each_first_pass_rule_refuses_its_record_with_a_located_issue(tmp_path, mutate, code, turn, field):
    bad = broken(mutate)
    records, issues = run(tmp_path, [ENGLISH, bad])  # line 1 is fine, line 2 is broken
    assert len(records) == 1 and records[0].line == 1
    assert issues, "the broken record must be reported"
    hit = [i for i in issues if i.code == code]
    assert hit, [i.render() for i in issues]
    i = hit[0]
    assert (i.file, i.line, i.turn_index, i.field) == ("up/t.aidb.jsonl", 2, turn, field)
    assert i.record_id == "c-0001-en" and i.fix
    # a PII value is never repeated into an issue
    for value in ("jan.smit@example.com", "7911", "123456"):
        assert value not in i.message and value not in i.fix


def test_raw_contact_issue_names_type_and_range_only(tmp_path):
    text = "Mail me at jan.smit@example.com please"
    _, issues = run(tmp_path, [broken(lambda r: r["turns"][0].update(text=text))])
    [i] = issues
    assert "email at characters 11-31" in i.message and text[11:31] == "jan.smit@example.com"


def test_pseudonym_tokens_and_plain_numbers_are_not_contacts(tmp_path):
    ok = broken(lambda r: r["turns"][0].update(
        text="Invoice 2023-000123, 40 boxes, contact <PHONE_1> or <EMAIL_1>, ref <ID_12>"))
    records, issues = run(tmp_path, [ok])
    assert len(records) == 1 and issues == []


def test_bad_lines_and_duplicate_ids_are_reported_and_the_rest_imports(tmp_path):
    records, issues = run(tmp_path, ['{"schema": ', ENGLISH, "[1, 2]", ENGLISH])
    assert [r.line for r in records] == [2]
    assert [(i.code, i.line) for i in issues] == [("aidb_json_invalid", 1), ("aidb_not_an_object", 3),
                                                  ("aidb_id_duplicate", 4)]


def test_sample_upload_imports_cleanly(tmp_path):
    shutil.copytree(Path(__file__).parents[2] / "data" / "raw" / "sample-chats", tmp_path / "raw" / "sample-chats")
    from vak_pipeline.uploads.descriptor import load_descriptor

    desc, problems = load_descriptor(tmp_path / "raw" / "sample-chats")
    assert problems == []
    path = tmp_path / "raw" / "sample-chats" / "tickets.aidb.jsonl"
    ctx = AidbImportContext(upload="sample-chats", file="sample-chats/tickets.aidb.jsonl",
                            settings=desc.settings_for("tickets.aidb.jsonl"), layout=DataLayout.at(tmp_path))
    items = list(iter_aidb_file(path, ctx))
    assert all(isinstance(i, ImportedRecord) for i in items) and len(items) == 3
    for imp in items:
        write_redaction_log(DataLayout.at(tmp_path), None, imp)  # beside the manifest, as `vak import-text` does
        assert imp.record.meta.source == "real"
        result = validate_record(imp.record.dump(), ValidationContext(base_dir=tmp_path))
        assert result.ok, [i.render() for i in result.issues]
