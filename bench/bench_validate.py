"""`vak validate` throughput against plain jsonschema type-checking of the same file; memory 100k vs 1M."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from .common import peak_rss_mb, row, timed

TOOLS = [
    {"name": "check_status", "description": "Look up an installation",
     "parameters": {"type": "object", "properties": {"customer_id": {"type": "string"}}, "required": ["customer_id"]}},
    {"name": "book_appointment", "description": "Book a visit",
     "parameters": {"type": "object", "properties": {"customer_id": {"type": "string"},
                                                     "date": {"type": "string", "format": "date"},
                                                     "slot": {"type": "string", "enum": ["morning", "afternoon"]}},
                    "required": ["customer_id", "date", "slot"]}},
]
PHRASES = ["Namaste, SunCare Solar se Priya bol rahi hoon.", "Haan, mera inverter kal se off hai.",
           "Ek minute, check karti hoon.", "The technician will visit tomorrow morning.",
           "Can you confirm the customer ID please?", "Ji, fault already logged hai."]


def make_record(i: int, rng: random.Random) -> dict:
    cid = f"SC-{rng.randint(1000, 9999)}"
    text = f"Haan, customer ID {cid} hai."
    turns = [{"speaker": "agent", "start": 0.0, "end": 2.5, "text": rng.choice(PHRASES), "lang": "hi-Latn"},
             {"speaker": "user", "start": 2.6, "end": 5.0, "text": text, "lang": "hi-Latn",
              "entities": [{"type": "customer_id", "text": cid, "start_char": 18, "end_char": 25}]},
             {"speaker": "agent", "start": 5.1, "end": 5.1,
              "tool_call": {"id": "call_1", "name": "check_status", "arguments": {"customer_id": cid}}},
             {"speaker": "tool", "start": 5.1, "end": 5.1,
              "tool_result": {"id": "call_1", "content": {"status": "ok", "visits": [1, 2]}}},
             {"speaker": "agent", "start": 5.3, "end": 8.0, "text": rng.choice(PHRASES), "lang": "hi-Latn"}]
    return {"id": f"conv_{i:07d}", "schema_version": "0.1", "locale": "hi-Latn-IN",
            "language": {"primary": "hi-Latn", "mix": ["hi", "en"]}, "domain": "field_service",
            "system_prompt": "You are Priya from SunCare Solar support.", "tools": TOOLS, "turns": turns,
            "meta": {"source": "real", "consent": "written", "consent_ref": "policy-v3", "license": "internal",
                     "pii_redacted": True, "redaction_log": "redactions/shared.json",
                     "speakers": {"agent": f"agent-{i % 50}", "user": f"cust-{i}"}}}


def write_manifest(root: Path, n: int) -> Path:
    (root / "redactions").mkdir(parents=True, exist_ok=True)
    (root / "redactions" / "shared.json").write_text(json.dumps({"conversation_id": "x", "spans": []}))
    rng = random.Random(7)
    path = root / "vakforge.jsonl"
    with open(path, "w") as fh:
        for i in range(n):
            fh.write(json.dumps(make_record(i, rng)) + "\n")
    return path


def vak_validate(path: Path) -> int:
    from vak_pipeline.rules import ValidationContext, validate_manifest

    ctx = ValidationContext(base_dir=path.parent)
    return sum(1 for r in validate_manifest(path, ctx) if r.ok)


def jsonschema_validate(path: Path) -> int:
    import jsonschema

    from vak_pipeline.schema import record_json_schema

    validator = jsonschema.Draft202012Validator(record_json_schema())
    ok = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            ok += not any(True for _ in validator.iter_errors(json.loads(line)))
    return ok


MEM_CODE = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
from bench.bench_validate import vak_validate
n = vak_validate(Path(sys.argv[1]))
"""


def run(quick: bool) -> list[dict]:
    n = 10_000 if quick else 100_000
    small, big = (10_000, 100_000) if quick else (100_000, 1_000_000)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = write_manifest(Path(tmp) / "a", n)
        t_vak, ok_vak = timed(lambda: vak_validate(path))
        t_js, ok_js = timed(lambda: jsonschema_validate(path))
        assert ok_js == n and ok_vak == n, (ok_js, ok_vak)  # both must accept every record, or it is no race
        rows.append(row("validate", f"vak validate, {n:,} records", n / t_vak, "records/s", n / t_js,
                        (n / t_vak) / (n / t_js),
                        f"reference: jsonschema types only; {ok_vak:,} of {n:,} valid by every rule"))
        root = str(Path(__file__).resolve().parent.parent)
        mems = []
        for count in (small, big):
            p = write_manifest(Path(tmp) / f"m{count}", count)
            mems.append(peak_rss_mb(MEM_CODE.format(root=root), str(p)))
            p.unlink()
        rows.append(row("validate", f"peak RSS {big:,} records", mems[1], "MiB", mems[0], mems[1] / mems[0],
                        f"reference: {small:,} records (flat = ratio near 1)"))
    return rows
