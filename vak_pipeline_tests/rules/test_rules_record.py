"""Every rule of the canonical format: the example record passes; each broken variant fails with its code."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

import pytest

from vak_pipeline.rules import Severity, ValidationContext, validate_record


def codes(record: dict, root: Path, **ctx) -> set[str]:
    result = validate_record(record, ValidationContext(base_dir=root, **ctx))
    return {i.code for i in result.issues}


def test_the_format_documents_example_record_is_valid(example_dataset, example_record):
    result = validate_record(example_record, ValidationContext(base_dir=example_dataset))
    assert result.issues == []
    assert result.ok


def test_audio_is_optional(example_dataset, example_record):
    del example_record["audio"]
    del example_record["meta"]["voice_consent_ref"]
    assert codes(example_record, example_dataset) == set()


def test_a_call_in_the_final_turn_may_go_unanswered(example_dataset, example_record):
    assert example_record["turns"][-1]["tool_call"]["id"] == "call_2"
    assert "tool_call_unanswered" not in codes(example_record, example_dataset)


@pytest.mark.parametrize("content", [[1, 2], "ok", 3.5, None, {"a": {"b": [True]}}])
def test_tool_result_content_may_be_any_json_value(example_dataset, example_record, content):
    example_record["turns"][4]["tool_result"]["content"] = content
    assert codes(example_record, example_dataset) == set()


def test_consent_none_passes_with_an_explicit_override(example_dataset, example_record):
    example_record["meta"]["consent"] = "none"
    assert codes(example_record, example_dataset) == {"consent_none_without_override"}
    assert codes(example_record, example_dataset, allow_unconsented=True) == set()
    example_record["meta"]["allow_unconsented"] = True
    assert codes(example_record, example_dataset) == set()


def test_synthetic_rows_are_exempt_from_redaction_rules(example_dataset, example_record):
    m = example_record["meta"]
    m.update(source="synthetic", consent="synthetic", pii_redacted=False)
    del m["redaction_log"], m["voice_consent_ref"], m["consent_ref"]
    assert codes(example_record, example_dataset) == set()


def _set(path: str, value) -> Callable[[dict], None]:
    def mutate(rec: dict) -> None:
        *head, last = path.split(".")
        obj = rec
        for k in head:
            obj = obj[int(k)] if k.isdigit() else obj[k]
        obj[int(last) if last.isdigit() else last] = value
    return mutate


def _del(path: str) -> Callable[[dict], None]:
    def mutate(rec: dict) -> None:
        *head, last = path.split(".")
        obj = rec
        for k in head:
            obj = obj[int(k)] if k.isdigit() else obj[k]
        del obj[int(last) if last.isdigit() else last]
    return mutate


def _do(*fns: Callable[[dict], None]) -> Callable[[dict], None]:
    def mutate(rec: dict) -> None:
        for f in fns:
            f(rec)
    return mutate


def _dup_turn(i: int) -> Callable[[dict], None]:
    return lambda rec: rec["turns"].insert(i + 1, copy.deepcopy(rec["turns"][i]))


BROKEN: dict[str, tuple[Callable[[dict], None], set[str]]] = {
    # structure
    "unknown schema version": (_set("schema_version", "9.9"), {"schema_version_unknown"}),
    "no schema version": (_del("schema_version"), {"schema_version_missing"}),
    "no id": (_del("id"), {"field_missing"}),
    "empty id": (_set("id", ""), {"value_empty"}),
    "rate is a word": (_set("audio.sample_rate", "fast"), {"field_type"}),
    "unknown top-level field": (_set("colour", "blue"), {"field_unknown"}),
    "unknown source": (_set("meta.source", "scraped"), {"value_not_allowed"}),
    "unknown condition": (_set("audio.condition", "underwater"), {"value_not_allowed"}),
    "zero channels": (_set("audio.channels", 0), {"value_out_of_range"}),
    "bad tool name": (_set("tools.0.name", "check status!"), {"value_pattern"}),
    "unregistered locale": (_set("locale", "xx-YY"), {"locale_unknown"}),
    # audio
    "absolute audio path": (_set("audio.path", "/etc/passwd"), {"audio_path_absolute"}),
    "parent segment in audio path": (_set("audio.path", "audio/../../x.wav"), {"audio_path_parent"}),
    "stereo without channel map": (_del("audio.channel_map"), {"audio_channel_map_missing"}),
    "both channels user": (_set("audio.channel_map", {"0": "user", "1": "user"}), {"audio_channel_map_invalid"}),
    "mono mapping channel 1": (_do(_set("audio.channels", 1), _set("audio.channel_map", {"1": "agent"})),
                               {"audio_channel_map_invalid", "audio_channels_mismatch"}),
    "six channels": (_set("audio.channels", 6), {"audio_channels_unsupported", "audio_channels_mismatch"}),
    "missing audio file": (_set("audio.path", "audio/missing.wav"), {"audio_file_missing"}),
    "audio is text": (_set("audio.path", "audio/not_audio.wav"), {"audio_decode_failed"}),
    "wrong sample rate": (_set("audio.sample_rate", 16000), {"audio_sample_rate_mismatch"}),
    "wrong duration": (_set("audio.duration_s", 50.0), {"audio_duration_mismatch"}),
    # turns
    "no turns": (_set("turns", []), {"turns_empty"}),
    "turns out of order": (_do(_set("turns.4.start", 8.0), _set("turns.4.end", 8.0)), {"turns_unsorted"}),
    "end before start": (_do(_set("turns.0.start", 2.5), _set("turns.0.end", 2.0)), {"turn_end_before_start"}),
    "spoken turn without text": (_set("turns.6.text", "  "), {"turn_text_missing"}),
    "spoken turn without lang": (_del("turns.6.lang"), {"turn_lang_missing"}),
    "lang not in the pack": (_set("turns.6.lang", "zh"), {"turn_lang_undeclared", "language_mix_incomplete"}),
    "overlap flag without overlap": (_set("turns.5.overlap", True), {"turn_overlap_inconsistent"}),
    "overlap not flagged": (_del("turns.2.overlap"), {"turn_overlap_unflagged"}),
    "mix misses a language": (_set("language.mix", ["en"]), {"language_mix_incomplete"}),
    "primary not in pack": (_set("language.primary", "fr"), {"language_primary_undeclared"}),
    "speaker tool with speech": (_set("turns.6.speaker", "tool"), {"turn_tool_speaker_spoken"}),
    "call and result in one turn": (_set("turns.7.tool_result", {"id": "call_2", "content": 1}),
                                    {"turn_kind_ambiguous", "tool_result_speaker"}),
    # tools
    "duplicate call id": (_set("turns.7.tool_call.id", "call_1"), {"tool_call_id_duplicate"}),
    "result for an unknown call": (_set("turns.4.tool_result.id", "call_9"),
                                   {"tool_result_unknown_call", "tool_call_unanswered"}),
    "call answered twice": (_dup_turn(4), {"tool_result_duplicate"}),
    "call left hanging": (lambda rec: rec["turns"].pop(4), {"tool_call_unanswered"}),
    "parameters not JSON Schema": (_set("tools.0.parameters", {"type": "objekt"}), {"tool_schema_invalid"}),
    "arguments break the schema": (_set("turns.7.tool_call.arguments.slot", "evening"), {"tool_arguments_invalid"}),
    "missing required argument": (_del("turns.7.tool_call.arguments.date"), {"tool_arguments_invalid"}),
    "call to an undeclared tool": (_set("turns.7.tool_call.name", "cancel_visit"), {"tool_call_unknown_tool"}),
    "tool declared twice": (lambda rec: rec["tools"].append(copy.deepcopy(rec["tools"][0])), {"tool_name_duplicate"}),
    "user issues a call": (_set("turns.7.speaker", "user"), {"tool_call_speaker"}),
    "call with a duration": (_set("turns.7.end", 16.0), {"tool_call_not_instant"}),
    "agent carries a result": (_set("turns.4.speaker", "agent"), {"tool_result_speaker"}),
    # entities
    "one offset only": (_del("turns.1.entities.0.end_char"), {"entity_offsets_partial"}),
    "stale offsets": (_do(_set("turns.1.entities.0.start_char", 47), _set("turns.1.entities.0.end_char", 54)),
                      {"entity_offsets_mismatch"}),
    "offsets past the text": (_set("turns.1.entities.0.end_char", 500), {"entity_offsets_out_of_range"}),
    # provenance
    "verbal consent without ref": (_del("meta.consent_ref"), {"consent_ref_missing"}),
    "public licence without licence": (_do(_set("meta.consent", "public_license"), _del("meta.license")),
                                       {"license_missing"}),
    "synthetic consent on real data": (_set("meta.consent", "synthetic"), {"consent_synthetic_not_synthetic_source"}),
    "consent none": (_set("meta.consent", "none"), {"consent_none_without_override"}),
    "real data not redacted": (_set("meta.pii_redacted", False), {"real_not_redacted"}),
    "real data without a log": (_del("meta.redaction_log"), {"redaction_log_missing"}),
    "log that does not exist": (_set("meta.redaction_log", "redactions/nope.json"), {"redaction_log_not_found"}),
    "log that is a list": (_set("meta.redaction_log", "redactions/list.json"), {"redaction_log_invalid"}),
    "log outside the dataset": (_set("meta.redaction_log", "../etc/log.json"), {"redaction_log_path_unsafe"}),
    "real audio without voice consent": (_del("meta.voice_consent_ref"), {"voice_consent_missing"}),
    "redaction skipped": (_set("meta.skip_redaction", True), {"real_redaction_skipped"}),
}


@pytest.mark.parametrize("case", sorted(BROKEN), ids=lambda c: c.replace(" ", "_"))
def test_each_broken_record_fails_with_exactly_its_code(example_dataset, example_record, case):
    mutate, expected = BROKEN[case]
    mutate(example_record)
    assert codes(example_record, example_dataset) == expected


def test_there_are_at_least_30_distinct_codes_covered():
    assert len({c for _, exp in BROKEN.values() for c in exp}) >= 30


def test_warnings_do_not_reject_the_record(example_dataset, example_record):
    example_record["language"]["mix"] = ["en"]
    result = validate_record(example_record, ValidationContext(base_dir=example_dataset))
    assert [i.severity for i in result.issues] == [Severity.WARN]
    assert result.ok


def test_issues_point_at_record_turn_and_field_and_suggest_a_fix(example_dataset, example_record):
    example_record["turns"][6]["text"] = ""
    (issue,) = validate_record(example_record, ValidationContext(base_dir=example_dataset), line=7).issues
    assert (issue.record_id, issue.turn_index, issue.field, issue.line) == ("conv_000123", 6, "text", 7)
    assert issue.fix


def test_audio_linked_from_outside_the_dataset_is_refused(example_dataset, example_record, tmp_path):
    outside = tmp_path / "outside.wav"
    outside.write_bytes((example_dataset / "audio" / "conv_000123.wav").read_bytes())
    link = example_dataset / "audio" / "linked.wav"
    if not link.exists():
        link.symlink_to(outside)
    example_record["audio"]["path"] = "audio/linked.wav"
    assert codes(example_record, example_dataset) == {"audio_path_outside"}


def test_pii_redacted_is_rechecked_naming_type_and_range_only(example_dataset, example_record):
    example_record["turns"][6]["text"] = "Haan theek hai, mail me at rahul.verma@example.com"
    (issue,) = validate_record(example_record, ValidationContext(base_dir=example_dataset)).issues
    assert (issue.code, issue.turn_index, issue.field) == ("pii_present", 6, "text")
    assert "email" in issue.message and "27-50" in issue.message
    assert "rahul" not in issue.render().lower()


def test_the_agent_persona_from_the_system_prompt_is_not_pii(example_dataset, example_record):
    assert "Priya" in example_record["turns"][0]["text"]
    assert codes(example_record, example_dataset) == set()
    example_record["system_prompt"] = "Verify the customer and book a visit."
    assert codes(example_record, example_dataset) == {"pii_present"}
