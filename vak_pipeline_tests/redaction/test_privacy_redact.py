"""Redacting a conversation: numbered placeholders, JSON leaves, entity offsets, the redaction log, and the
property that no planted PII value survives anywhere in the redacted record or its log."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vak_pipeline.locales import get_pack
from vak_pipeline.pii import scan_pii
from vak_pipeline.redaction.redact import redact_record, redact_record_full
from vak_pipeline.schema import VakRecord


def record(turns: list[dict], **kw) -> VakRecord:
    base = {"id": "conv_t", "schema_version": "0.1", "locale": kw.pop("locale", "en-IN"),
            "language": {"primary": "en"}, "turns": turns,
            "meta": {"source": "real", "consent": "recorded_verbal", "consent_ref": "p1"}}
    base.update(kw)
    return VakRecord.model_validate(base)


def spoken(text: str, speaker: str = "user", start: float = 0.0, end: float = 2.0, **kw) -> dict:
    return {"speaker": speaker, "start": start, "end": end, "text": text, "lang": "en", **kw}


def test_placeholders_are_numbered_by_first_appearance_and_shared_by_identity():
    rec = record([
        spoken("My name is Rahul Verma, number nine eight seven six five four three two one zero."),
        spoken("Also reach me on 07911 123456 or +91 98765 43210.", start=2.1, end=4.0),
        spoken("Thanks Rahul.", speaker="agent", start=4.1, end=5.0),
    ])
    red, log, _ = redact_record(rec, get_pack("en-IN"))
    texts = [t.text for t in red.turns]
    assert texts[0] == "My name is <PERSON_1>, number <PHONE_1>."
    # a new number gets the next index; +91 98765 43210 is the spoken one again
    assert texts[1] == "Also reach me on <PHONE_2> or <PHONE_1>."
    assert texts[2] == "Thanks <PERSON_1>."
    assert [s.placeholder for s in log.spans] == ["<PERSON_1>", "<PHONE_1>", "<PHONE_2>", "<PHONE_1>", "<PERSON_1>"]


def test_tool_json_leaves_are_redacted_and_schema_misfits_logged():
    tools = [{"name": "lookup", "parameters": {"type": "object", "properties": {
        "phone": {"type": "string", "pattern": "^\\+\\d+$"}, "customer_id": {"type": "string"}}}}]
    rec = record([
        spoken("number is 98765 43210"),
        {"speaker": "agent", "start": 2, "end": 2, "tool_call": {"id": "c1", "name": "lookup", "arguments": {
            "phone": "+919876543210", "customer_id": "SC-4471", "alt": 9876543210}}},
        {"speaker": "tool", "start": 2, "end": 2, "tool_result": {"id": "c1", "content": [
            {"email": "rahul@example.com", "order": "123456789012", "amount": 500}]}},
    ], tools=tools)
    red, log, _ = redact_record(rec, get_pack("en-IN"))
    assert red.turns[1].tool_call.arguments == {"phone": "<PHONE_1>", "customer_id": "SC-4471", "alt": "<PHONE_1>"}
    assert red.turns[2].tool_result.content == [{"email": "<EMAIL_1>", "order": "123456789012", "amount": 500}]
    by_field = {s.field: s for s in log.spans}
    assert by_field["tool_call.arguments.phone"].model_extra["schema_fit"] is False
    assert by_field["tool_call.arguments.alt"].model_extra["schema_fit"] is False  # a number became a string
    assert "schema_fit" not in (by_field["tool_result.content[0].email"].model_extra or {})
    json.loads(json.dumps(red.dump()))  # still valid JSON


def test_tool_json_keys_that_look_like_paths_are_redacted_where_they_are():
    """Keys such as "", "." or "a.b" (found by the fuzzer) make a dotted path ambiguous: the leaf is located by
    its keys, so the right value is replaced and no other."""
    rec = record([
        {"speaker": "tool", "start": 0, "end": 0, "tool_result": {"id": "c1", "content": {
            "": {".": "rahul@example.com", "a.b": "order 123456789012"}, "a": {"b": "ok"}}}},
    ])
    red, log, _ = redact_record(rec, get_pack("en-IN"))
    assert red.turns[0].tool_result.content == {"": {".": "<EMAIL_1>", "a.b": "order 123456789012"}, "a": {"b": "ok"}}
    assert [s.field for s in log.spans] == ["tool_result.content..."]


def test_entity_offsets_follow_the_text():
    text = "My name is Rahul Verma, customer ID SC-4471, phone 98765 43210."
    rec = record([spoken(text, entities=[
        {"type": "person_name", "text": "Rahul Verma", "start_char": 11, "end_char": 22},
        {"type": "customer_id", "text": "SC-4471", "start_char": 36, "end_char": 43},
        {"type": "phone", "text": "98765 43210", "start_char": 51, "end_char": 62, "normalized": "+919876543210"},
    ])])
    red, _, _ = redact_record(rec, get_pack("en-IN"))
    t = red.turns[0]
    assert [(e.type, e.text) for e in t.entities] == [
        ("person_name", "<PERSON_1>"), ("customer_id", "SC-4471"), ("phone", "<PHONE_1>")]
    for e in t.entities:
        assert t.text[e.start_char:e.end_char] == e.text
    assert t.entities[2].normalized == "<PHONE_1>"  # the normalized phone was PII too


def test_annotated_pii_entities_are_redacted_even_without_a_recognizer_hit():
    rec = record([spoken("it is Zorblax", entities=[
        {"type": "person_name", "text": "Zorblax", "start_char": 6, "end_char": 13}])])
    red, log, _ = redact_record(rec, get_pack("en-IN"))
    assert red.turns[0].text == "it is <PERSON_1>" and log.spans[0].model_extra["recognizer"] == "entity"


# ------------------------------------------------------------------ properties
PLANTS = {
    "phone": ["98765 43210", "+91 99887 76655", "nine eight seven six five four three two one zero"],
    "email": ["asha.k@example.com", "ravi_m@mail.co.in", "asha dot k at gmail dot com"],
    "payment_card": ["4111 1111 1111 1111", "5555555555554444"],
    "in_aadhaar": ["2345 6789 0124"],
    "in_pan": ["ABCPE1234F"],
    "in_upi": ["ravi.m@okaxis"],
    "ip_address": ["10.20.30.40"],
    "person_name": ["Rahul Verma", "Sunita Rao"],
}
CUE = {"person_name": "my name is ", "in_aadhaar": "aadhaar ", "in_pan": "PAN ", "phone": "mobile "}
FILLER = ["ok", "haan ji", "your order SC-4471 is confirmed", "the charge is ₹500", "on 2026-09-17 at 10:30",
          "please hold", "thank you", "ek minute"]

plant = st.sampled_from(sorted(PLANTS)).flatmap(lambda t: st.tuples(st.just(t), st.sampled_from(PLANTS[t])))
turn_parts = st.lists(st.one_of(st.sampled_from(FILLER).map(lambda f: ("", f)), plant), min_size=1, max_size=4)


def build(parts_per_turn: list[list[tuple[str, str]]], arg_plant: tuple[str, str]) -> tuple[VakRecord, list[str]]:
    planted, turns = [], []
    for i, parts in enumerate(parts_per_turn):
        text, entities = "", []
        for ptype, val in parts:
            if ptype:
                text += CUE.get(ptype, "")
                entities.append({"type": "phone" if ptype == "phone" else "note", "text": val,
                                 "start_char": len(text), "end_char": len(text) + len(val)})
                planted.append(val)
                text += val
            else:
                entities.append({"type": "order_id", "text": val, "start_char": len(text),
                                 "end_char": len(text) + len(val)})
                text += val
            text += ", "
        turns.append(spoken(text, speaker="user" if i % 2 == 0 else "agent", start=2.0 * i, end=2.0 * i + 1.5,
                            entities=entities))
    n = len(turns)
    turns.append({"speaker": "agent", "start": 2.0 * n, "end": 2.0 * n, "tool_call": {
        "id": "c1", "name": "crm", "arguments": {"query": f"{CUE.get(arg_plant[0], '')}{arg_plant[1]}",
                                                  "nested": {"list": [arg_plant[1], 7]}}}})
    turns.append({"speaker": "tool", "start": 2.0 * n, "end": 2.0 * n, "tool_result": {
        "id": "c1", "content": {"contact": arg_plant[1], "order": "SC-4471"}}})
    planted.append(arg_plant[1])
    rec = record(turns, system_prompt="You are an agent. Caller said: " + f"{CUE.get(arg_plant[0], '')}{arg_plant[1]}")
    return rec, planted


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(turn_parts, min_size=1, max_size=4), plant)
def test_no_planted_value_survives_and_offsets_and_log_hold(parts_per_turn, arg_plant):
    rec, planted = build(parts_per_turn, arg_plant)
    out = redact_record_full(rec, get_pack("en-IN"))
    red, log = out.record, out.log
    blob = json.dumps(red.dump(), ensure_ascii=False) + json.dumps(log.model_dump(mode="json"), ensure_ascii=False)
    for val in planted:
        assert val not in blob, f"a planted {len(val)}-char value survived"
    # every entity with offsets still slices exactly
    for t in red.turns:
        for e in t.entities or []:
            assert t.text[e.start_char:e.end_char] == e.text
    # every log span points at its placeholder in the redacted field
    for sp in log.spans:
        if sp.field == "system_prompt":
            field_text = red.system_prompt
        elif sp.field == "text":
            field_text = red.turns[sp.turn].text
        else:
            field_text = _leaf(red.turns[sp.turn].model_dump(mode="json"), sp.field)
        assert field_text[sp.start:sp.end] == sp.placeholder
    # the validator's scan finds nothing left
    pack = get_pack("en-IN")
    for t in red.turns:
        assert not (t.text and scan_pii(pack, t.text))
    assert not scan_pii(pack, red.system_prompt)


def _leaf(turn: dict, path: str):
    import re

    cur = turn
    for key, idx in re.findall(r"\.?([^.\[\]]+)|\[(\d+)\]", path):
        cur = cur[int(idx)] if idx else cur[key]
    return cur


def test_a_text_repeated_across_a_runs_records_is_given_to_the_recognizers_once(monkeypatch):
    """With the run's memo a text seen before (a chat's "Thanks.", a bot's greeting, a tool's arguments) reuses
    its matches: the same redactions as without the memo; another name list or persona is another scan."""
    from vak_pipeline.redaction import redact

    turns = [spoken("Call me on +91 98765 43210."), spoken("Thanks.", speaker="agent", start=2.1, end=3.0)]
    recs = [record(turns, id=f"conv_{i}") for i in range(3)]
    pack = get_pack("en-IN")
    alone = [redact_record_full(r, pack) for r in recs]
    scanned: list[str] = []
    real = redact.find_pii
    monkeypatch.setattr(redact, "find_pii", lambda p, text, *a: scanned.append(text) or real(p, text, *a))
    memo: redact.TextMemo = {}
    out = [redact_record_full(r, pack, memo=memo) for r in recs]
    assert [(o.record, o.log, o.masks) for o in out] == [(o.record, o.log, o.masks) for o in alone]
    assert sorted(scanned) == sorted(t["text"] for t in turns)  # each text once, for three records
    redact_record_full(recs[0], pack, ("Asha",), memo=memo)
    redact_record_full(recs[0].model_copy(update={"system_prompt": "You are Meera, a support agent."}), pack,
                       memo=memo)
    assert len(scanned) == 3 * len(turns) + 1  # (+ the system prompt, a field of its own)
