"""Nothing fed to the importers, the upload descriptor or the redactor crashes them.

Property-based: thousands of generated and mutated inputs per run (aidb and messages lines mutated from the
committed samples, arbitrary bytes, random YAML and CSV, records with random text and tool JSON). Every
rejection must be an Issue with a code, a message and a fix; every accepted record must serialize, keep a
safe id, and survive redaction as a valid record. `scripts/fuzz.py` runs the same targets for longer.
"""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vak_pipeline.schema import SCHEMA_VERSION, Language, Meta, Tool, ToolCall, ToolResult, Turn, VakRecord
from vak_pipeline_tests.hardening_inputs import (
    HOSTILE_STRINGS,
    UPLOAD_YAML,
    mutate_bytes,
    mutate_json,
    run_aidb,
    run_descriptor,
    run_messages,
    run_redactor,
    run_text_upload,
    seed_lines,
)
from vak_pipeline_tests.script_modules import load_script

FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                                     HealthCheck.data_too_large])
AIDB_SEEDS = [json.loads(b) for b in seed_lines(".aidb.jsonl")]
MESSAGES_SEEDS = [json.loads(b) for b in seed_lines(".messages.jsonl")]

text = st.text(st.characters(codec="utf-8"), max_size=40) | st.sampled_from(HOSTILE_STRINGS)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(text, kids, max_size=4), max_leaves=25)


def _lines(objs: list) -> bytes:
    return b"".join(json.dumps(o, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n" for o in objs)


# ------------------------------------------------------------------------------------------ importers

@settings(FAST, max_examples=400)
@given(seed=st.sampled_from(AIDB_SEEDS), rng=st.randoms(use_true_random=False), n=st.integers(1, 5))
def test_mutated_aidb_records_become_records_or_issues(tmp_path_factory, seed, rng, n):
    run_aidb(_lines([mutate_json(seed, rng, n), seed]), tmp_path_factory.mktemp("aidb"))


@settings(FAST, max_examples=400)
@given(seed=st.sampled_from(MESSAGES_SEEDS), rng=st.randoms(use_true_random=False), n=st.integers(1, 5))
def test_mutated_messages_records_become_records_or_issues(tmp_path_factory, seed, rng, n):
    run_messages(_lines([mutate_json(seed, rng, n)]), tmp_path_factory.mktemp("msg"))


messages = st.lists(st.fixed_dictionaries(
    {"role": st.sampled_from(["system", "user", "assistant", "tool", "bot"])},
    optional={"content": json_values, "tool_call_id": text, "name": text,
              "tool_calls": st.lists(st.fixed_dictionaries(
                  {"function": st.fixed_dictionaries({"name": text}, optional={"arguments": json_values | text})},
                  optional={"id": text, "type": text}), max_size=3)}), max_size=6)


@settings(FAST, max_examples=300)
@given(st.fixed_dictionaries({"messages": messages}, optional={"id": text, "metadata": json_values,
                                                                "tools": json_values, "domain": text}))
def test_generated_chat_records_become_records_or_issues(tmp_path_factory, rec):
    run_messages(_lines([rec]), tmp_path_factory.mktemp("gen"))


@settings(FAST, max_examples=300)
@given(seed=st.sampled_from(AIDB_SEEDS + MESSAGES_SEEDS), rng=st.randoms(use_true_random=False))
def test_byte_mutations_of_text_sources_give_line_numbered_issues(tmp_path_factory, seed, rng):
    blob = mutate_bytes(_lines([seed]), rng)
    work = tmp_path_factory.mktemp("bytes")
    for issue in run_aidb(blob, work) + run_messages(blob, work):
        assert issue.line is not None or issue.code.endswith("empty_file")


@settings(FAST, max_examples=80)
@given(aidb=st.lists(st.sampled_from(AIDB_SEEDS), max_size=2), msgs=st.lists(st.sampled_from(MESSAGES_SEEDS),
                                                                               max_size=2),
       rng=st.randoms(use_true_random=False), yaml_ok=st.booleans())
def test_text_upload_folders_import_or_report(tmp_path_factory, aidb, msgs, rng, yaml_ok):
    work = tmp_path_factory.mktemp("text")
    files = {"a.aidb.jsonl": _lines([mutate_json(o, rng, 2) for o in aidb]),
             "b.messages.jsonl": _lines([mutate_json(o, rng, 2) for o in msgs]),
             "upload.yaml": UPLOAD_YAML.encode() if yaml_ok else mutate_bytes(UPLOAD_YAML.encode(), rng)}
    run_text_upload(files, work)
    written = [p for p in work.rglob("*") if p.is_file() and "raw" not in p.relative_to(work).parts]
    assert all(p.parent == work / "redactions" for p in written), written


# ----------------------------------------------------------------------------------------- descriptor

SETTING_KEYS = ["locale", "source", "consent", "consent_ref", "voice_consent_ref", "license", "condition", "domain",
                "scenario", "system_prompt", "tools", "channel_map", "keep_channels", "speakers",
                "agent_speaker_hint", "names", "allow_unconsented", "language_map", "keep_notes", "bogus"]
yaml_docs = st.dictionaries(st.sampled_from(SETTING_KEYS) | text, json_values, max_size=8)
CSV_COLUMNS = ["file", "conv_id", "channel_map", "speakers", "keep_channels", "names", "tools", "locale",
               "consent", "agent_speaker", "user_speaker", "scenario", "extra"]


def _csv(header: list[str], rows: list[list[str]]) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue().encode("utf-8", "surrogatepass")


@settings(FAST, max_examples=300)
@given(doc=yaml_docs | json_values)
def test_random_upload_yaml_gives_a_descriptor_or_issues(tmp_path_factory, doc):
    body = yaml.safe_dump(doc, allow_unicode=True).encode("utf-8", "surrogatepass")
    run_descriptor(body, None, tmp_path_factory.mktemp("yaml"))


@settings(FAST, max_examples=300)
@given(blob=st.binary(max_size=300) | st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_random_yaml_bytes_give_issues(tmp_path_factory, blob):
    run_descriptor(blob, None, tmp_path_factory.mktemp("yamlb"))


@settings(FAST, max_examples=300)
@given(header=st.lists(st.sampled_from(CSV_COLUMNS) | text, max_size=6),
       rows=st.lists(st.lists(st.sampled_from(["call.wav", "../call.wav", "/etc/passwd", '{"0": "user"}', "[0, 1]",
                                               '["Priya"]', "x"]) | text, max_size=7), max_size=4),
       raw=st.binary(max_size=200), use_raw=st.booleans())
def test_random_recordings_csv_gives_overrides_or_issues(tmp_path_factory, header, rows, raw, use_raw):
    run_descriptor(UPLOAD_YAML.encode(), raw if use_raw else _csv(header, rows), tmp_path_factory.mktemp("csv"))


# ------------------------------------------------------------------------------------------- redactor

pii_text = st.lists(st.sampled_from([
    "call me on +91 98765 43210", "jane.doe@example.com", "Priya Sharma", "nine eight seven six five",
    "ORD-58213", "GB82 WEST 1234 5698 7654 32", "192.168.0.1", "<PHONE_1>", "<PER_3>", "<SECRET>", "ठीक है",
    "好的", "\x00\x07\u202e", "12 Baker Street, London NW1 6XE", "4111 1111 1111 1111"]) | text,
    max_size=5).map(" ".join)


@st.composite
def records(draw):
    turns, t = [], 0.0
    calls: list[str] = []
    for i in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["user", "agent", "call", "result"]))
        if kind == "call":
            cid = f"c{i}"
            calls.append(cid)
            turns.append(Turn(speaker="agent", start=t, end=t, tool_call=ToolCall(
                id=cid, name="lookup", arguments=draw(st.dictionaries(text, json_values | pii_text, max_size=4)))))
        elif kind == "result" and calls:
            turns.append(Turn(speaker="tool", start=t, end=t,
                              tool_result=ToolResult(id=calls.pop(0), content=draw(json_values | pii_text))))
        else:
            turns.append(Turn(speaker="user" if kind == "user" else "agent", start=t, end=t + 1,
                              text=draw(pii_text) or "hello", lang="en"))
        t += 1.5
    tool = Tool(name="lookup", parameters=draw(st.just({"type": "object", "properties": {}}) | st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(text, st.fixed_dictionaries(
            {"type": st.sampled_from(["string", "integer", "number", "object"])}), max_size=3)})))
    return VakRecord(id="r1", schema_version=SCHEMA_VERSION, locale=draw(st.sampled_from(["en-US", "en-IN", "zh-CN"])),
                     language=Language(primary="en", mix=["en"]), system_prompt=draw(pii_text | st.none()),
                     tools=[tool], turns=turns, meta=Meta(source="real", consent="written", consent_ref="x"))


@settings(FAST, max_examples=300)
@given(rec=records(), names=st.lists(st.sampled_from(["Priya Sharma", "Rahul", "", " ", "a", "(", "*"]) | text,
                                     max_size=3))
def test_redactor_never_crashes_and_keeps_records_valid(rec, names):
    run_redactor(rec, names)


def test_the_fuzz_targets_run_from_one_seed_deterministically(tmp_path):
    """A fixed-seed slice of scripts/fuzz.py's loop, so the script's code path stays tested."""
    fuzz = load_script(Path(__file__).resolve().parents[2] / "scripts" / "fuzz.py")
    counts = fuzz.run_all(n=20, seed=7, work=tmp_path)
    assert set(counts) == {"validate", "aidb", "messages", "descriptor", "redactor"}
    assert all(c["crashes"] == 0 and c["inputs"] >= 20 for c in counts.values()), counts
    assert random.Random(7).random() == random.Random(7).random()
