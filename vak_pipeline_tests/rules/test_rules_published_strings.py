"""Issue 26 (2): `pii_redacted` is re-checked on every published string, not only turns and system prompt.

Speaker ids, descriptor fields (domain, scenario, tool descriptions) and free-form metadata carried from
messages and aidb sources are scanned with the same list the redaction stage cleans (pii.fields), so a
record whose metadata or speaker id still holds an e-mail address fails `vak validate`, naming the field,
the type and the character range, never the value.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.rules import ValidationContext, validate_record

EMAIL = "devika.r@example.com"


def _pii(record: dict, root) -> list:
    return [i for i in validate_record(record, ValidationContext(base_dir=root)).issues if i.code == "pii_present"]


def test_an_email_speaker_id_fails_the_recheck(example_dataset, example_record):
    assert _pii(example_record, example_dataset) == []
    example_record["meta"]["speakers"] = {"user": EMAIL, "agent": "agent-7"}
    (issue,) = _pii(example_record, example_dataset)
    assert issue.field == "meta.speakers.user" and "email at characters 0-20" in issue.message
    assert "devika" not in issue.render().lower()


def test_pii_in_free_form_metadata_and_descriptor_fields_fails_the_recheck(example_dataset, example_record):
    example_record["meta"]["sft_metadata"] = {"participants": [EMAIL], "note": "ticket"}
    example_record["meta"]["aidb"] = {"labels": {EMAIL: "vip"}, "links": ["call +91 98765 43210"]}
    example_record["tools"][0]["description"] = f"escalate to {EMAIL}"
    issues = _pii(example_record, example_dataset)
    assert {i.field for i in issues} == {"meta.sft_metadata.participants[0]", "meta.aidb.labels.{key}",
                                         "meta.aidb.links[0]", "tools[0].description"}
    assert not any("devika" in i.render().lower() or "98765" in i.render() for i in issues)


def test_vak_validate_exits_1_on_an_email_left_in_metadata(tmp_path, example_record):
    example_record["meta"]["sft_metadata"] = {"contact": EMAIL}
    path = tmp_path / "vakforge.jsonl"
    path.write_text(json.dumps(example_record) + "\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["validate", str(path), "--no-audio", "--format", "json"])
    issues = [json.loads(x) for x in res.stdout.splitlines() if x.strip().startswith("{")]
    assert res.exit_code == 1
    assert any(i["code"] == "pii_present" and i.get("field") == "meta.sft_metadata.contact" for i in issues), issues
    assert EMAIL not in res.stdout


def test_a_conversation_id_that_carries_a_phone_number_fails_the_recheck(example_dataset, example_record):
    example_record["id"] = "call_4155550123"
    (issue,) = _pii(example_record, example_dataset)
    assert issue.field == "id" and "phone at characters 5-15" in issue.message and "4155" not in issue.message


def test_a_synthetic_record_s_speaker_ids_and_metadata_are_rechecked_but_not_its_turns(example_dataset,
                                                                                      example_record):
    example_record["meta"].update({"source": "synthetic", "consent": "synthetic", "pii_redacted": False,
                                   "speakers": {"user": EMAIL, "agent": "agent-7"},
                                   "sft_metadata": {"contact": "+91 98765 43210"}})
    example_record["turns"][0]["text"] = "my number is 98765 43210"  # a synthetic turn is nobody's number
    issues = _pii(example_record, example_dataset)
    assert {i.field for i in issues} == {"meta.speakers.user", "meta.sft_metadata.contact"}
    assert all("synthetic" in i.message for i in issues)
