"""Chat-style SFT records (messages JSONL) import as canonical conversations with tool call/result turns."""

from __future__ import annotations

import json
from pathlib import Path

from vak_pipeline.rules.context import ValidationContext
from vak_pipeline.rules.engine import validate_record
from vak_pipeline.schema.record import VakRecord
from vak_pipeline.sources.messages import MessagesImportContext, iter_messages_file
from vak_pipeline.uploads.descriptor import RecordingSettings

SAMPLE = Path(__file__).parents[2] / "data" / "raw" / "sample-chats" / "support.messages.jsonl"
TOOLS = [
    {"name": "lookup_order", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}},
                                            "required": ["order_id"]}},
    {"name": "issue_refund", "parameters": {"type": "object", "properties": {
        "order_id": {"type": "string"}, "amount_gbp": {"type": "number"}}, "required": ["order_id", "amount_gbp"]}},
]
SYNTHETIC = RecordingSettings(locale="en-GB", source="synthetic", consent="synthetic", tools=TOOLS)


def run(tmp_path: Path, lines: list[dict | str], settings: RecordingSettings = SYNTHETIC):
    path = tmp_path / "m.messages.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    items = list(iter_messages_file(path, MessagesImportContext(upload="up", file="up/m.messages.jsonl",
                                                                settings=settings)))
    return [i[0] for i in items if isinstance(i, tuple)], [i for i in items if not isinstance(i, tuple)]


def sample(k: int) -> dict:
    return json.loads(SAMPLE.read_text(encoding="utf-8").splitlines()[k])


def kinds(rec: VakRecord) -> list[tuple]:
    out = []
    for t in rec.turns:
        if t.tool_call:
            out.append((t.speaker, "call", t.tool_call.id, t.tool_call.name))
        elif t.tool_result:
            out.append((t.speaker, "result", t.tool_result.id))
        else:
            out.append((t.speaker, "text"))
    return out


def test_two_parallel_tool_calls_keep_their_ids_and_results_match_them(tmp_path):
    [rec], issues = run(tmp_path, [sample(1)])
    assert issues == []
    assert kinds(rec) == [
        ("user", "text"), ("agent", "text"),
        ("agent", "call", "call_a", "lookup_order"), ("agent", "call", "call_b", "lookup_order"),
        ("tool", "result", "call_b"), ("tool", "result", "call_a"),
        ("agent", "call", "call_1", "issue_refund"), ("tool", "result", "call_1"),   # JSON action, id generated
        ("agent", "call", "call_2", "issue_refund"), ("tool", "result", "call_2"),   # tool_calls without id
        ("agent", "text"),
    ]
    assert rec.turns[3].tool_call.arguments == {"order_id": "ORD-60018"}
    assert rec.turns[4].tool_result.content == {"status": "delivered", "payments": 2, "total_gbp": 18.5}
    assert rec.turns[7].tool_result.content == "refund queued"  # plain text stays text
    assert all(t.start == t.end == 0.0 for t in rec.turns)
    assert rec.meta.model_extra["sft_metadata"]["quality"] == {"passed": True}
    result = validate_record(rec.dump(), ValidationContext(base_dir=tmp_path))
    assert result.ok, [i.render() for i in result.issues]


def test_agentic_json_action_becomes_a_call_and_system_becomes_the_prompt(tmp_path):
    [rec], _ = run(tmp_path, [sample(0)])
    assert rec.system_prompt == "You are the support assistant of a fictional office-supplies shop."
    assert kinds(rec) == [("user", "text"), ("agent", "call", "call_1", "lookup_order"),
                          ("tool", "result", "call_1"), ("agent", "text")]
    assert rec.meta.model_extra["sft"]["thoughts"] == {"call_1": "Look the order up first."}
    assert rec.domain == "retail_support" and rec.meta.source == "synthetic"


def test_provenance_comes_from_the_upload(tmp_path):
    real = RecordingSettings(locale="en-GB", consent="written", consent_ref="dpa-7", license="internal")
    [rec], _ = run(tmp_path, [sample(2)], real)
    m = rec.meta
    assert (m.source, m.consent, m.consent_ref, m.license, m.pii_redacted) == ("real", "written", "dpa-7",
                                                                               "internal", False)


def test_broken_records_are_reported_with_line_and_message_index(tmp_path):
    lonely_tool = {"id": "a", "messages": [{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}]}
    wrong_id = {"id": "b", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "lookup_order", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c9", "content": "x"}]}
    bad_role = {"id": "c", "messages": [{"role": "moderator", "content": "hi"}]}
    late_system = {"id": "d", "messages": [{"role": "user", "content": "hi"}, {"role": "system", "content": "x"}]}
    records, issues = run(tmp_path, [lonely_tool, wrong_id, bad_role, late_system, "not json"])
    assert records == []
    got = [(i.code, i.line, i.record_id, i.turn_index) for i in issues]
    assert got == [
        ("messages_tool_not_after_assistant", 1, "a", 1),
        ("messages_tool_result_unmatched", 2, "b", 2),
        ("messages_field_invalid", 3, "c", 0),
        ("messages_system_late", 4, "d", 1),
        ("messages_json_invalid", 5, None, None),
    ]
