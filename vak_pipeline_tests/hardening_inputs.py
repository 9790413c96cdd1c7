"""Generators of hostile inputs shared by the hardening tests and scripts/fuzz.py.

Each target takes bytes or text, feeds it to one real component and returns the Issues it produced; any
exception escaping a target is a crash (a bug), never an expected outcome.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from vak_pipeline.layout import DataLayout
from vak_pipeline.locales import PACKS, get_pack
from vak_pipeline.redaction.redact import redact_record_full
from vak_pipeline.rules.issue import Issue
from vak_pipeline.schema import VakRecord
from vak_pipeline.sources.aidb import AidbImportContext, ImportedRecord, iter_aidb_file
from vak_pipeline.sources.messages import MessagesImportContext, iter_messages_file
from vak_pipeline.sources.text import iter_text_records
from vak_pipeline.uploads.descriptor import RecordingSettings, load_descriptor

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_CHATS = ROOT / "data" / "raw" / "sample-chats"
SETTINGS = RecordingSettings(locale="en-GB", consent="written", consent_ref="dpa-1", license="internal",
                             language_map={"en": "en-GB"})
UPLOAD_YAML = "locale: en-GB\nsource: real\nconsent: written\nconsent_ref: dpa-1\nlicense: internal\n"


def seed_lines(suffix: str) -> list[bytes]:
    """The committed sample upload's lines of one text format: good seeds to mutate."""
    out: list[bytes] = []
    for p in sorted(SAMPLE_CHATS.glob(f"*{suffix}")):
        out += [ln for ln in p.read_bytes().splitlines() if ln.strip()]
    fixtures = ROOT / "vak_pipeline_tests" / "fixtures" / "sources"
    for p in sorted(fixtures.glob(f"*{suffix}")):
        out += [ln for ln in p.read_bytes().splitlines() if ln.strip()]
    return out


HOSTILE_STRINGS = [
    "", " ", "../../etc/x", "/etc/passwd", "C:\\Windows\\x", "..", ".", "a/b", "\x00", "\u202e\u200d",
    "電話 ठीक है 好的", "A" * 5000, "<PHONE_1>", "<SECRET>", "<PER_99999999999999999999>", "+44 20 7946 0958",
    "jane.doe@example.com", "{", "[]", "null", "1e999", "-0", "\ud7ff", "\t\r\n",
]
HOSTILE_VALUES: list[Any] = HOSTILE_STRINGS + [None, True, 0, -1, 2**70, 1.5e308, [], {}, [[[[]]]], {"a": {"b": {}}}]


def _hostile(rng: random.Random) -> Any:
    """A fresh copy of a hostile value (never the shared object: later mutations must not change the table)."""
    return json.loads(json.dumps(rng.choice(HOSTILE_VALUES)))


def mutate_json(obj: Any, rng: random.Random, n: int = 3) -> Any:
    """Replace, delete or retype a few random nodes of a JSON value (returns a new value)."""
    obj = json.loads(json.dumps(obj))
    for _ in range(n):
        paths = list(json_paths(obj))
        if not paths:
            return _hostile(rng)
        path = rng.choice(paths)
        if not path:
            continue
        parent = obj
        for k in path[:-1]:
            parent = parent[k]
        op = rng.random()
        if op < 0.4:
            parent[path[-1]] = _hostile(rng)
        elif op < 0.6:
            del parent[path[-1]]
        elif op < 0.8:
            parent[path[-1]] = [parent[path[-1]]] * rng.randint(0, 3)
        else:
            parent[path[-1]] = {"x": parent[path[-1]]}
    return obj


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        if not b:
            b += bytes([rng.randrange(256)])
            continue
        i = rng.randrange(len(b))
        op = rng.random()
        if op < 0.4:
            b[i] = rng.randrange(256)
        elif op < 0.6:
            del b[i:i + rng.randint(1, 16)]
        elif op < 0.8:
            b[i:i] = rng.choice([b"\n", b'"', b"{", b"]", b"\xff", b"\xef\xbb\xbf", b"\\u0000", b"\r"])
        else:
            j = rng.randrange(len(b))
            b[i:i] = b[j:j + rng.randint(1, 32)]
    return bytes(b)


def json_paths(obj: Any, prefix: tuple = ()):
    """Every key/index path inside a JSON value (the value's own path, (), first)."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from json_paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from json_paths(v, prefix + (i,))


def _check_issue(item: Issue) -> None:
    assert item.code and item.message and item.fix, item


def run_aidb(blob: bytes, work: Path) -> list[Issue]:
    path = work / "f.aidb.jsonl"
    path.write_bytes(blob)
    ctx = AidbImportContext(upload="up", file="up/f.aidb.jsonl", settings=SETTINGS, layout=DataLayout.at(work))
    issues = []
    for item in iter_aidb_file(path, ctx):
        if isinstance(item, ImportedRecord):
            item.record.dump()
            assert "/" not in item.record.id and not item.record.id.startswith(".")
        else:
            _check_issue(item)
            issues.append(item)
    return issues


def run_messages(blob: bytes, work: Path) -> list[Issue]:
    path = work / "f.messages.jsonl"
    path.write_bytes(blob)
    ctx = MessagesImportContext(upload="up", file="up/f.messages.jsonl", settings=SETTINGS)
    issues = []
    for item in iter_messages_file(path, ctx):
        if isinstance(item, Issue):
            _check_issue(item)
            issues.append(item)
        else:
            item[0].dump()
            assert "/" not in item[0].id and not item[0].id.startswith(".")
    return issues


def run_text_upload(files: dict[str, bytes], work: Path) -> list[Issue]:
    """iter_text_records over an upload folder holding `files`; logs must land under redactions/ only."""
    up = work / "raw" / "up"
    up.mkdir(parents=True, exist_ok=True)
    for name in list(up.iterdir()):
        name.unlink()
    for name, data in files.items():
        (up / name).write_bytes(data)
    issues = []
    for item in iter_text_records(DataLayout.at(work), "up"):
        if isinstance(item, Issue):
            _check_issue(item)
            issues.append(item)
        else:
            item.dump()
    return issues


def run_descriptor(yaml_text: bytes, csv_text: bytes | None, work: Path) -> list[Issue]:
    up = work / "desc"
    up.mkdir(parents=True, exist_ok=True)
    (up / "upload.yaml").write_bytes(yaml_text)
    (up / "call.wav").write_bytes(b"")
    csv = up / "recordings.csv"
    if csv_text is None:
        csv.unlink(missing_ok=True)
    else:
        csv.write_bytes(csv_text)
    desc, issues = load_descriptor(up)
    for i in issues:
        _check_issue(i)
    if desc is not None:
        for f in ("call.wav", "other.wav"):
            desc.settings_for(f)
            cid = desc.conv_id_for(f)
            assert cid is None or ("/" not in cid and ".." not in cid)
    return issues


def run_redactor(record: VakRecord, names: list[str] = ()) -> None:
    """redact_record on one record: the output must still be a valid record and its log must point inside."""
    if record.locale not in PACKS:
        return  # the stage reports redaction_unknown_locale before calling the redactor
    out = redact_record_full(record, get_pack(record.locale), tuple(names))
    VakRecord.model_validate(out.record.dump())
    for s in out.log.spans:
        assert s.start <= s.end
