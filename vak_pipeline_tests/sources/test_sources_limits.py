"""Bounded input (issue 26): a hostile descriptor (alias bomb, deep nesting, oversize) or an oversized line or
turn fails fast, in under 1 GiB, with a reason in the upload's report; the rest of the file is processed.
The limits are settings (`InputLimits`; every stage's: test_sources_limits_everywhere)."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from vak_pipeline.core.issue import Issue
from vak_pipeline.layout import DataLayout
from vak_pipeline.sources.text import iter_text_records
from vak_pipeline.speech.stage import TagSettings, tag_upload
from vak_pipeline.uploads.descriptor import load_descriptor
from vak_pipeline.uploads.limits import InputLimits
from vak_pipeline_tests import processes
from vak_pipeline_tests.builders import make_record
from vak_pipeline_tests.hardening_inputs import UPLOAD_YAML, seed_lines

pytestmark = pytest.mark.timeout(180)
REPO = Path(__file__).resolve().parents[2]

# 9 levels of 10 aliases each: 10^9 leaves in about 1.3 KB
ALIAS_BOMB = UPLOAD_YAML + "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10)) + \
    "tools: [{name: t, parameters: {type: object, properties: {p: *a9}}}]\n"


def _in_one_gib(code: str, timeout: float = 90) -> dict:
    """Run `code` (which prints one JSON line) in a fresh interpreter limited to 1 GiB of address space."""
    prelude = textwrap.dedent("""
        import json, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    """)
    env = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    out = processes.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                         timeout=timeout, env=env, cwd=REPO)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _upload(root: Path, files: dict[str, str | bytes], yaml: str = UPLOAD_YAML) -> Path:
    up = root / "raw" / "up"
    up.mkdir(parents=True, exist_ok=True)
    (up / "upload.yaml").write_text(yaml)
    for rel, data in files.items():
        (up / rel).write_bytes(data if isinstance(data, bytes) else data.encode())
    return up


def test_a_yaml_alias_bomb_fails_fast_in_under_1_gib(tmp_path):
    assert len(ALIAS_BOMB) < 1600
    up = _upload(tmp_path / "data", {}, ALIAS_BOMB)
    got = _in_one_gib(f"""
        from vak_pipeline.uploads.descriptor import load_descriptor
        desc, issues = load_descriptor({str(up)!r})
        print(json.dumps({{"desc": desc is not None, "issues": [i.model_dump(mode="json") for i in issues]}}))
    """)
    assert got["desc"] is False
    (issue,) = got["issues"]
    assert issue["code"] == "descriptor_yaml_aliases" and issue["file"] == "up/upload.yaml" and issue["line"]
    assert "max_yaml_aliases" in issue["fix"]


def test_a_few_aliases_are_still_a_valid_descriptor(tmp_path):
    up = _upload(tmp_path / "data", {}, UPLOAD_YAML + "speakers: {agent: &p priya, user: *p}\n")
    desc, issues = load_descriptor(up)
    assert desc is not None and issues == [] and desc.defaults.speakers == {"agent": "priya", "user": "priya"}


def test_deep_nesting_and_an_oversized_descriptor_are_refused_unread(tmp_path):
    deep = _upload(tmp_path / "a", {}, UPLOAD_YAML + "tools: " + "[" * 100 + "]" * 100 + "\n")
    desc, issues = load_descriptor(deep)
    assert desc is None and [i.code for i in issues] == ["descriptor_too_deep"]
    big = _upload(tmp_path / "b", {}, UPLOAD_YAML + "system_prompt: '" + "x" * (1 << 20) + "'\n")
    desc, issues = load_descriptor(big)
    assert desc is None and [i.code for i in issues] == ["descriptor_too_large"]
    assert "max_descriptor_bytes" in issues[0].fix
    assert load_descriptor(big, InputLimits(max_descriptor_bytes=2 << 20))[0] is not None  # a setting, not a wall


def test_a_huge_recordings_csv_cell_is_an_issue_not_a_traceback(tmp_path):
    up = _upload(tmp_path / "data", {"a.wav": b"", "recordings.csv": "file,system_prompt\na.wav,ok\nb.wav,\""
                                     + "y" * 200_000 + "\"\n"})
    desc, issues = load_descriptor(up)
    assert desc is not None and "a.wav" in desc.overrides
    assert "descriptor_csv_invalid" in {i.code for i in issues}


def test_a_20_mb_chat_message_and_an_oversized_turn_are_refused_in_under_1_gib_and_the_rest_imported(tmp_path):
    good = json.loads(seed_lines(".messages.jsonl")[0])
    huge = dict(good, id="huge", messages=[{"role": "user", "content": "blah " * (4 << 20)},
                                           {"role": "assistant", "content": "ok"}])
    long = dict(good, id="long", messages=[{"role": "user", "content": "word " * 5000},
                                           {"role": "assistant", "content": "ok"}])
    lines = [json.dumps(huge), json.dumps(long), json.dumps(good)]
    _upload(tmp_path / "data", {"chat.messages.jsonl": "\n".join(lines) + "\n"})
    got = _in_one_gib(f"""
        from vak_pipeline.layout import DataLayout
        from vak_pipeline.sources.text import iter_text_records
        from vak_pipeline.core.issue import Issue
        out = list(iter_text_records(DataLayout.at({str(tmp_path / "data")!r}), "up"))
        print(json.dumps({{"records": [x.id for x in out if not isinstance(x, Issue)],
                          "issues": [x.model_dump(mode="json") for x in out if isinstance(x, Issue)]}}))
    """)
    assert len(got["records"]) == 1
    by_line = {i["line"]: i for i in got["issues"]}
    assert by_line[1]["code"] == "messages_line_too_long" and "max_line_bytes" in by_line[1]["fix"]
    t = by_line[2]
    assert (t["code"], t["record_id"], t["turn_index"], t["field"]) == (
        "messages_turn_too_long", "long", 0, "messages[0].content")
    assert "max_turn_chars" in t["fix"] and "word" not in t["message"]


def _aidb_with_long_turn() -> str:
    rec = json.loads(seed_lines(".aidb.jsonl")[0])
    rec["id"] = "aidb-long"
    rec["turns"][0]["text"] = "x" * 25_000
    return json.dumps(rec)


def _vakforge_with_long_turn() -> str:
    rec = make_record("vak-long", turns=[("user", 0.0, 1.0, "y" * 25_000), ("agent", 1.1, 2.0, "ok")]).dump()
    return json.dumps(rec)


@pytest.mark.parametrize(("name", "line", "code", "field"), [
    ("t.aidb.jsonl", _aidb_with_long_turn, "aidb_turn_too_long", "turns[0].text"),
    ("t.vakforge.jsonl", _vakforge_with_long_turn, "vakforge_turn_too_long", "turns[0].text"),
])
def test_every_import_refuses_an_oversized_turn_with_its_reason_in_the_report(tmp_path, name, line, code, field):
    ok = make_record("fine-1").dump()
    _upload(tmp_path / "data", {name: line() + "\n" + (json.dumps(ok) + "\n" if "vakforge" in name else "")})
    layout = DataLayout.at(tmp_path / "data")
    res = tag_upload(layout, "up")
    (issue,) = [i for i in res.issues if i.code == code]
    assert (issue.line, issue.turn_index, issue.field, issue.file) == (1, 0, field, f"up/{name}")
    report = json.loads(layout.speech_report("up").read_text())
    assert code in json.dumps(report)  # the refused row's reason is in the upload's report
    if "vakforge" in name:
        assert res.from_vakforge == 1  # the rest of the file is imported


def test_the_limits_are_settings_of_the_tagged_turns_config(tmp_path):
    assert TagSettings().limits == InputLimits()
    msg = json.loads(seed_lines(".messages.jsonl")[0])
    _upload(tmp_path / "data", {"m.messages.jsonl": json.dumps(msg) + "\n"})
    layout = DataLayout.at(tmp_path / "data")
    assert tag_upload(layout, "up").from_text == 1
    strict = tag_upload(layout, "up", limits=InputLimits(max_turn_chars=3))
    assert strict.from_text == 0 and "messages_turn_too_long" in {i.code for i in strict.issues}
    assert [x for x in iter_text_records(layout, "up") if not isinstance(x, Issue)]  # default limits again

    from vak_pipeline.defs.speech import TagConfig

    assert TagConfig().limits.max_turn_chars == InputLimits().max_turn_chars


def test_a_record_with_too_many_turns_is_refused_before_it_is_mapped(tmp_path):
    good = json.loads(seed_lines(".messages.jsonl")[0])
    many = dict(good, id="many", messages=[{"role": "user" if i % 2 == 0 else "assistant", "content": "hi"}
                                           for i in range(InputLimits().max_turns + 1)])
    _upload(tmp_path / "data", {"m.messages.jsonl": json.dumps(many) + "\n" + json.dumps(good) + "\n"})
    out = list(iter_text_records(DataLayout.at(tmp_path / "data"), "up"))
    (issue,) = [x for x in out if isinstance(x, Issue)]
    assert (issue.code, issue.record_id, issue.line, issue.field) == ("messages_too_many_turns", "many", 1, "messages")
    assert "max_turns" in issue.fix and len(out) == 2
