"""Issue 26 (1, 2): no value from a source file or folder name, a speaker id or free-form metadata leaves raw/.

A caller-named upload (phone numbers and names in file and sub-folder names, e-mail and phone speaker ids,
PII in messages `metadata`, in an aidb record's participants, labels, links and extra fields, and in the
descriptor's domain, scenario and tool descriptions) runs through the whole graph (run_pipeline, a test
instance). Then no planted value (exact, lower-cased, digits only, a surname alone) is in any published file
(the data root except raw/ and work/), any event of the instance's event log, or any captured output at DEBUG;
and `vak lookup` still finds the raw file behind each published id.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import dagster as dg
import pytest
from dagster._serdes import serialize_value
from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.orchestrate import run_pipeline

from .test_hardening_leaks import _file_text, _forms

ROOT = Path(__file__).resolve().parents[2]
PHONE_A, NAME_A, EMAIL_A = "+919876543210", "Devika Raghunathan", "devika.r@example.com"
PHONE_B, NAME_B = "+1 415 555 0123", "Zelda Quarrington"
PHONE_C, NAME_C, EMAIL_C = "+919812345678", "Ottoline Fairweather", "ottoline.f@example.net"
PLANTED = [PHONE_A, NAME_A, EMAIL_A, PHONE_B, NAME_B, PHONE_C, NAME_C, EMAIL_C]
FORMS = sorted({f for v in PLANTED for f in _forms(v)} | {"devika-raghunathan", "zelda-quarrington",
                                                          "ottoline-fairweather"})
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # two real calls through Whisper, then publish
CALL_A = "2026-09-16_+919876543210_devika-raghunathan.flac"
CALL_B = "zelda-quarrington/call_4155550123.flac"


def _plant(data: Path) -> None:
    raw = ROOT / "data" / "raw"
    calls = data / "raw" / "calls-sept"
    (calls / "zelda-quarrington").mkdir(parents=True)
    yaml_text = (raw / "sample-calls" / "upload.yaml").read_text()
    yaml_text = yaml_text.replace("Look up the current status of a customer's installation",
                                  f"Look up the status; escalate to {EMAIL_C}")
    (calls / "upload.yaml").write_text(yaml_text)
    shutil.copy2(raw / "sample-calls" / "call_003.flac", calls / CALL_A)
    shutil.copy2(raw / "sample-calls" / "call_002.flac", calls / CALL_B)
    (calls / "recordings.csv").write_text(
        "file,channel_map,user_speaker,agent_speaker\n"
        f'{CALL_A},"{{""0"": ""user"", ""1"": ""agent""}}",{EMAIL_A},anjali\n'
        f'{CALL_B},"{{""0"": ""user"", ""1"": ""agent""}}",{PHONE_B},anjali\n')
    events = [{"t": 12.262, "tool_call": {"id": "c1", "name": "check_status", "arguments": {"customer_id": "4471"}}},
              {"t": 12.562, "tool_result": {"id": "c1", "content": {"status": "complete", "owner": NAME_A}}}]
    (calls / CALL_A.replace(".flac", ".events.jsonl")).write_text("".join(json.dumps(e) + "\n" for e in events))

    chats = data / "raw" / "chats-sept"
    (chats / "ottoline-fairweather").mkdir(parents=True)
    yaml_text = (raw / "sample-chats" / "upload.yaml").read_text()
    (chats / "upload.yaml").write_text(yaml_text)
    line = json.loads((raw / "sample-chats" / "support.messages.jsonl").read_text().splitlines()[0])
    line["metadata"] = {"participants": [EMAIL_C, NAME_C], "callback": PHONE_C, EMAIL_C: "vip"}
    (chats / f"support_{PHONE_C}.messages.jsonl").write_text(json.dumps(line) + "\n")
    aidb = json.loads((raw / "sample-chats" / "tickets.aidb.jsonl").read_text().splitlines()[0])
    aidb["participants"][0]["role"] = f"office manager, reach on {PHONE_A}"
    aidb["labels"] = {"priority": "normal", "contact": EMAIL_A}
    aidb["links"] = [f"mailto:{EMAIL_A}"]
    aidb["crm_note"] = f"{NAME_A} called from {PHONE_A}"
    (chats / "ottoline-fairweather" / "tickets.aidb.jsonl").write_text(json.dumps(aidb) + "\n")


def _leaks(text: str) -> list[str]:
    low = text.lower()
    return [f for f in FORMS if f in low]


def test_caller_named_upload_publishes_no_planted_value_and_lookup_finds_the_source(tmp_path, capfd, caplog):
    data = tmp_path / "data"
    _plant(data)
    caplog.set_level(logging.DEBUG)
    lines: list[str] = []
    with dg.instance_for_test() as inst:
        report = run_pipeline(data, instance=inst, echo=lines.append, log_level="DEBUG")
        events = [serialize_value(ev) for run in report.runs for ev in inst.all_logs(run.run_id)]
    out, err = capfd.readouterr()
    sources = {"echo": "\n".join(lines), "stdout": out, "stderr": err,
               "logging": "\n".join(r.getMessage() for r in caplog.records)}
    sources |= {f"event {i}": e for i, e in enumerate(events)}
    for p in sorted(data.rglob("*")):
        rel = p.relative_to(data)
        if rel.parts[0] in ("raw", "work"):
            continue
        sources[f"name {rel.as_posix()}"] = rel.as_posix()
        if p.is_file():
            sources[rel.as_posix()] = _file_text(p)
    found = {where: hits for where, text in sources.items() if (hits := _leaks(text))}
    records = [json.loads(x) for x in (data / "vakforge.jsonl").read_text().splitlines()]
    assert found == {}, json.dumps(found, indent=0)
    assert len(events) > 50 and len(records) >= 3, (len(events), len(records))

    # speakers are pseudonymised the same way everywhere (speaker-disjoint splits still hold)
    calls = [r for r in records if r["meta"].get("upload") == "calls-sept"]
    assert len(calls) == 2 and all(r["meta"]["speakers"]["user"].startswith("spk-") for r in calls)
    assert calls[0]["meta"]["speakers"]["agent"] == calls[1]["meta"]["speakers"]["agent"]
    assert all("phone" in r["id"] or "name" in r["id"] for r in calls)

    # the operator finds the raw file behind every published id (the private map under work/)
    runner = CliRunner()
    for rec in records:
        res = runner.invoke(app, ["lookup", rec["id"], "--data", str(data), "--format", "json"])
        assert res.exit_code == 0, (rec["id"], res.output)
        hit = json.loads(res.output.splitlines()[0])
        assert (data / "raw" / hit["upload"] / hit["file"]).is_file()
    by_file = {json.loads(runner.invoke(app, ["lookup", r["id"], "--data", str(data), "--format", "json"]
                                        ).output)["file"] for r in calls}
    assert by_file == {CALL_A, CALL_B}
