"""No planted PII value leaks out of the whole graph: not to logs, reports, Dagster metadata or exports.

PII is planted in every field of a real upload: upload.yaml's system_prompt, recordings.csv names, aidb and
messages texts, tool arguments and results, a call's events.jsonl. The whole graph runs (run_pipeline on a
persistent test instance); then every captured log line (stdout, stderr, Python logging), every event of the
instance's event log (materialization and check metadata included) and every file under data/ except raw/
(the untouched uploads) and work/ (pre-redaction intermediates, by design) is scanned for the planted values:
exact, case-insensitive, and digits-only for numbers.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path

import dagster as dg
from dagster._serdes import serialize_value

from vak_pipeline.orchestrate import run_pipeline

ROOT = Path(__file__).resolve().parents[2]
PHONE = "+44 7700 900461"
EMAIL = "zelda.quarrington@example.org"
NAME = "Zelda Quarrington"
CARD = "4111 1111 1111 1111"
PHONE2 = "+44 7700 900872"
EMAIL2 = "o.fairweather@example.net"
NAME2 = "Ottoline Fairweather"
PLANTED = [PHONE, EMAIL, NAME, CARD, PHONE2, EMAIL2, NAME2]


def _forms(value: str) -> set[str]:
    forms = {value.lower()}
    digits = re.sub(r"\D", "", value)
    if len(digits) >= 7:
        forms |= {digits, digits[2:]}  # with and without the country code
    if " " in value and not digits:
        forms |= {part.lower() for part in value.split() if len(part) > 5}  # surnames alone
    return forms


FORMS = sorted({f for v in PLANTED for f in _forms(v)})


def _leaks(text: str) -> list[str]:
    low = text.lower()
    return [f for f in FORMS if f in low]


def _plant(data: Path) -> None:
    raw = ROOT / "data" / "raw"
    chats = data / "raw" / "sample-chats"
    shutil.copytree(raw / "sample-chats", chats)
    yaml_text = (chats / "upload.yaml").read_text()
    yaml_text = yaml_text.replace("system_prompt: >-\n", f"system_prompt: >-\n  Escalations go to {NAME2} on "
                                  f"{PHONE2} or {EMAIL2}.\n", 1)
    # a name with no cue ("my name is", "Mr") is found through the names the uploader declares (or NER)
    (chats / "upload.yaml").write_text(yaml_text + f"names: [{NAME2}]\n")
    msgs = [
        {"id": "leak-1", "messages": [
            {"role": "user", "content": f"Hi, I'm {NAME}, call me on {PHONE} or mail {EMAIL}."},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "lookup_order", "arguments": json.dumps({"order_id": "ORD-1", "phone": PHONE,
                                                                 "email": EMAIL})}}]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps(
                {"customer": NAME, "card": CARD, "contact": {"phone": PHONE2}})},
            {"role": "assistant", "content": f"Thanks {NAME}, the card ending {CARD[-4:]} is refunded."}],
         "metadata": {"note": "ticket"}}]
    (chats / "planted.messages.jsonl").write_text("".join(json.dumps(m) + "\n" for m in msgs))
    aidb = json.loads((chats / "tickets.aidb.jsonl").read_text().splitlines()[0])
    aidb["id"] = "leak-aidb"
    aidb["turns"][0]["text"] = f"Order for {NAME}: reach me at {EMAIL} or {PHONE}."
    (chats / "planted.aidb.jsonl").write_text(json.dumps(aidb) + "\n")

    calls = data / "raw" / "sample-calls"
    calls.mkdir(parents=True)
    for name in ("upload.yaml", "call_003.flac"):
        shutil.copy2(raw / "sample-calls" / name, calls / name)
    (calls / "recordings.csv").write_text(
        "file,conv_id,channel_map,user_speaker,names\n"
        f'call_003.flac,sample_call_003,"{{""0"": ""user"", ""1"": ""agent""}}",cust-4471,"[""{NAME}""]"\n')
    events = [{"t": 12.262, "tool_call": {"id": "call_1", "name": "check_status",
                                          "arguments": {"customer_id": "4471", "phone": PHONE, "email": EMAIL}}},
              {"t": 12.562, "tool_result": {"id": "call_1", "content": {"status": "complete", "owner": NAME,
                                                                        "card": CARD}}}]
    (calls / "call_003.events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))


def _file_text(p: Path) -> str:
    if p.suffix == ".parquet":
        import pyarrow.parquet as pq

        return json.dumps(pq.read_table(p).to_pylist(), default=str, ensure_ascii=False)
    if p.suffix in (".wav", ".png", ".flac"):
        return ""
    return p.read_bytes().decode("utf-8", "replace")


def test_planted_pii_never_leaves_the_raw_upload(tmp_path, capfd, caplog):
    data = tmp_path / "data"
    _plant(data)
    caplog.set_level(logging.DEBUG)
    lines: list[str] = []
    with dg.instance_for_test() as inst:
        report = run_pipeline(data, instance=inst, echo=lines.append, log_level="DEBUG")
        assert report.success or report.runs, report
        events = [serialize_value(ev) for run in report.runs for ev in inst.all_logs(run.run_id)]
    out, err = capfd.readouterr()
    found: dict[str, list[str]] = {}
    sources = {"echo": "\n".join(lines), "stdout": out, "stderr": err,
               "logging": "\n".join(r.getMessage() for r in caplog.records)}
    sources |= {f"event {i}": e for i, e in enumerate(events)}
    for p in sorted(data.rglob("*")):
        rel = p.relative_to(data)
        if p.is_file() and rel.parts[0] not in ("raw", "work"):
            sources[rel.as_posix()] = _file_text(p)
    for where, text in sources.items():
        if hits := _leaks(text):
            found[where] = hits
    assert len(events) > 50 and (data / "vakforge.jsonl").stat().st_size > 0
    assert found == {}, json.dumps(found, indent=0)
