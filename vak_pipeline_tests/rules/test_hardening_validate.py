"""Nothing fed to `vak validate` crashes it: generated, mutated and hostile inputs all become clear issues."""

from __future__ import annotations

import copy
import json
import os
import struct
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vak_pipeline.rules import ValidationContext, validate_manifest, validate_record
from vak_pipeline.storage import iter_jsonl
from vak_pipeline_tests.hardening_inputs import json_paths

EXAMPLE = json.loads((Path(__file__).parents[1] / "fixtures" / "format" / "example_record.json").read_text())

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


ALL_PATHS = [p for p in json_paths(EXAMPLE) if p]


@st.composite
def mutated_records(draw):
    rec = copy.deepcopy(EXAMPLE)
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(ALL_PATHS))
        parent = rec
        try:
            for k in path[:-1]:
                parent = parent[k]
            if draw(st.booleans()):
                parent[path[-1]] = draw(json_values)
            else:
                del parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue
    return rec


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_records())
def test_mutated_records_never_crash_the_validator(tmp_path_factory, rec):
    root = tmp_path_factory.getbasetemp()
    result = validate_record(rec, ValidationContext(base_dir=root, check_audio=True))
    for issue in result.issues:
        assert issue.code and issue.message and issue.fix


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_arbitrary_json_never_crashes_the_validator(tmp_path_factory, value):
    obj = value if isinstance(value, dict) else {"id": "x", "schema_version": "0.1", "turns": value}
    result = validate_record(obj, ValidationContext(base_dir=tmp_path_factory.getbasetemp()))
    assert result.record is None or isinstance(result.record.id, str)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_give_line_numbered_errors(tmp_path_factory, blob):
    path = tmp_path_factory.mktemp("bytes") / "m.jsonl"
    path.write_bytes(blob)
    for r in validate_manifest(path, ValidationContext(base_dir=path.parent)):
        for issue in r.issues:
            assert issue.code


def test_a_huge_line_is_skipped_in_bounded_memory(tmp_path):
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as fh:
        fh.write(b'{"id": "' + b"a" * (8 * 1024 * 1024) + b'"}\n')
        fh.write(json.dumps(EXAMPLE).encode() + b"\n")
    lines = list(iter_jsonl(path, max_line_bytes=1024 * 1024))
    assert [(x.line, x.code) for x in lines] == [(1, "line_too_long"), (2, None)]


def test_deeply_nested_tool_json_is_a_clear_error(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_text('{"id": "x", "tools": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    (res,) = list(validate_manifest(path, ValidationContext(base_dir=tmp_path)))
    assert [i.code for i in res.issues] == ["json_too_deep"]


def test_a_wav_header_claiming_hours_over_1kb_of_data_is_caught(tmp_path, example_record):
    (tmp_path / "audio").mkdir()
    wav = tmp_path / "audio" / "liar.wav"
    data = b"\x00\x01" * 512
    claimed = 10 * 3600 * 24000 * 2 * 2  # 10 hours of 24 kHz stereo 16-bit
    header = b"RIFF" + struct.pack("<I", 36 + claimed) + b"WAVEfmt " + struct.pack(
        "<IHHIIHH", 16, 1, 2, 24000, 24000 * 4, 4, 16) + b"data" + struct.pack("<I", claimed)
    wav.write_bytes(header + data)
    example_record["audio"]["path"] = "audio/liar.wav"
    del example_record["meta"]["redaction_log"]
    example_record["meta"]["pii_redacted"] = False
    codes = {i.code for i in validate_record(example_record, ValidationContext(base_dir=tmp_path)).issues}
    assert codes & {"audio_decode_failed", "audio_duration_mismatch"}


def test_control_characters_and_mixed_scripts_are_just_text(example_dataset, example_record):
    example_record["turns"][6]["text"] = "Haan \x00\x07\u202e theek 好的 ठीक है \ud7ff"
    result = validate_record(example_record, ValidationContext(base_dir=example_dataset))
    assert result.record is not None


def test_a_symlinked_redaction_log_out_of_the_dataset_is_refused(tmp_path, example_dataset, example_record):
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"conversation_id": "x", "spans": []}))
    link = example_dataset / "redactions" / "escape.json"
    if not os.path.lexists(link):
        link.symlink_to(secret)
    example_record["meta"]["redaction_log"] = "redactions/escape.json"
    codes = {i.code for i in validate_record(example_record, ValidationContext(base_dir=example_dataset)).issues}
    assert codes == {"redaction_log_path_unsafe"}
