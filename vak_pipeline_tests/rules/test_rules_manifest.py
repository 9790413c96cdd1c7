"""`vak validate`: streamed, line-numbered, machine-readable, and never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.schema import record_json_schema

runner = CliRunner()


def write_manifest(root: Path, lines: list[str | bytes], name: str = "vakforge.jsonl") -> Path:
    path = root / name
    with open(path, "wb") as fh:
        for line in lines:
            fh.write(line if isinstance(line, bytes) else line.encode("utf-8"))
            fh.write(b"\n")
    return path


def run_json(path: Path, *args: str) -> tuple[int, list[dict]]:
    res = runner.invoke(app, ["validate", str(path), "--format", "json", *args])
    return res.exit_code, [json.loads(x) for x in res.stdout.splitlines() if x.strip()]


def test_a_valid_dataset_directory_exits_0(example_dataset):
    res = runner.invoke(app, ["validate", str(example_dataset)])
    assert res.exit_code == 0, res.stdout
    assert "1 records, 1 valid, 0 invalid" in res.stdout


def test_a_missing_path_is_a_usage_error(tmp_path):
    res = runner.invoke(app, ["validate", str(tmp_path / "nope.jsonl")])
    assert res.exit_code == 2


def test_bad_lines_get_line_numbered_errors_and_the_rest_is_still_checked(example_dataset, example_record):
    good = json.dumps(example_record, ensure_ascii=False)
    broken = dict(example_record, id="conv_2", turns=[])
    path = write_manifest(example_dataset, [
        good,
        "{not json",
        b"\xff\xfe bad bytes",
        "[1, 2, 3]",
        json.dumps(broken),
        "x" * (len(good.encode()) + 500),
    ], name="mixed.jsonl")
    code, issues = run_json(path, "--max-line-bytes", str(len(good.encode()) + 100))
    assert code == 1
    by_line = {i["line"]: i["code"] for i in issues}
    assert by_line == {2: "json_invalid", 3: "not_utf8", 4: "not_an_object", 5: "turns_empty", 6: "line_too_long"}
    assert all(i["fix"] for i in issues)


def test_a_bom_is_reported_on_line_1(example_dataset, example_record):
    path = write_manifest(example_dataset, [b"\xef\xbb\xbf" + json.dumps(example_record).encode()], name="bom.jsonl")
    code, issues = run_json(path)
    assert code == 1 and [(i["line"], i["code"]) for i in issues] == [(1, "bom")]


def test_an_empty_file_is_an_error(tmp_path):
    path = write_manifest(tmp_path, [], name="empty.jsonl")
    code, issues = run_json(path)
    assert code == 1 and [i["code"] for i in issues] == ["empty_file"]


def test_duplicate_ids_are_reported_at_the_later_line(example_dataset, example_record):
    line = json.dumps(example_record)
    path = write_manifest(example_dataset, [line, line, line], name="dups.jsonl")
    code, issues = run_json(path)
    assert code == 1
    assert [(i["code"], i["line"]) for i in issues] == [("id_duplicate", 2), ("id_duplicate", 3)]


def test_splits_must_be_complete_and_leak_free(tmp_path, example_dataset, example_record):
    a = dict(example_record, id="a")
    b = dict(example_record, id="b")
    c = dict(example_record, id="c")
    for r, spk in ((a, "cust-1"), (b, "cust-1"), (c, "cust-2")):
        r["meta"] = dict(r["meta"], speakers={"agent": f"agent-{r['id']}", "user": spk})
    path = write_manifest(example_dataset, [json.dumps(r) for r in (a, b, c)], name="split_me.jsonl")
    splits = tmp_path / "splits.json"
    splits.write_text(json.dumps({"seed": 1, "assignment": {"a": "train", "b": "test"}}))
    code, issues = run_json(path, "--splits", str(splits))
    assert code == 1
    assert {(i["code"], i.get("record_id")) for i in issues} == {("split_leak", "b"), ("split_missing", "c")}


def test_text_output_names_record_turn_field_and_fix(example_dataset, example_record):
    example_record["turns"][6]["text"] = ""
    path = write_manifest(example_dataset, [json.dumps(example_record)], name="one.jsonl")
    res = runner.invoke(app, ["validate", str(path)])
    assert res.exit_code == 1
    assert "turn_text_missing" in res.stdout and "id=conv_000123 turn=6 field=text" in res.stdout
    assert "fix:" in res.stdout


def test_the_exported_json_schema_accepts_the_example_record(tmp_path, example_record):
    res = runner.invoke(app, ["schema", "--out", str(tmp_path / "vakforge.schema.json")])
    assert res.exit_code == 0
    schema = json.loads((tmp_path / "vakforge.schema.json").read_text())
    assert schema == record_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(example_record, schema)
    bad = dict(example_record, turns="nope")
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(bad))


def test_each_leaking_speaker_is_reported_once_at_the_record_that_leaks_it(tmp_path, example_dataset, example_record):
    rows = [("a", "v1", "c1", "train"), ("b", "v1", "c2", "train"), ("c", "v2", "c3", "train"),
            ("d", "v2", "c4", "test"), ("e", "v1", "c5", "test"), ("f", "v1", "c6", "test")]
    records = []
    for rid, agent, user, _ in rows:
        r = dict(example_record, id=rid)
        r["meta"] = dict(r["meta"], speakers={"agent": agent, "user": user})
        records.append(json.dumps(r))
    path = write_manifest(example_dataset, records, name="leaks.jsonl")
    splits = tmp_path / "splits.json"
    splits.write_text(json.dumps({"seed": 1, "assignment": {rid: split for rid, _, _, split in rows}}))
    res = runner.invoke(app, ["validate", str(path), "--splits", str(splits), "--format", "json"])
    leaks = [json.loads(x) for x in res.stdout.splitlines() if x.strip()]
    assert [(i["record_id"], i["line"], i["field"]) for i in leaks] == [
        ("d", 4, "meta.speakers.agent"), ("e", 5, "meta.speakers.agent")]  # v2 leaks at d, v1 at e; f not again
    assert all("v1" not in i["message"] and "v2" not in i["message"] for i in leaks)
    text = runner.invoke(app, ["validate", str(path), "--splits", str(splits)])
    assert text.exit_code == 1 and "6 records, 4 valid, 2 invalid" in text.stdout
