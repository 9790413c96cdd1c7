"""Hostile files: each gives a clear Issue, stays in bounded memory, and never makes a stage write outside data/.

Covers hostile ids and paths (ids become file names under audio/, alignments/, redactions/), symlinks out of
the dataset, a WAV header claiming 10 hours over 1 KB, a FLAC "decompression bomb" of hours of silence, a 2 GB
JSONL line in every text source, deeply nested tool JSON, and control characters with mixed scripts.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from vak_pipeline.audio.decode import AudioError
from vak_pipeline.audio.normalize import normalize_recording
from vak_pipeline.audio.stage import normalize_upload
from vak_pipeline.layout import DataLayout
from vak_pipeline.redaction.stage import redact_upload
from vak_pipeline.rules import ValidationContext, validate_record
from vak_pipeline.rules.issue import Issue
from vak_pipeline.sources.text import iter_text_records
from vak_pipeline.speech.stage import tag_upload
from vak_pipeline.storage import iter_jsonl
from vak_pipeline.uploads.inventory import inventory
from vak_pipeline_tests.builders import make_record
from vak_pipeline_tests.hardening_inputs import UPLOAD_YAML, seed_lines

HOSTILE_IDS = ["../../etc/x", "/etc/passwd", "..", ".hidden", "a/b", "C:\\x", "x\x00y", "..\\..\\x"]


def _files_outside(root: Path, before: set[Path]) -> list[Path]:
    """Files that appeared anywhere under root's parent but not under root (escapes)."""
    return [p for p in root.parent.rglob("*") if p.is_file() and p not in before and root not in p.parents]


def _upload(root: Path, files: dict[str, str | bytes], name: str = "up") -> Path:
    up = root / "raw" / name
    up.mkdir(parents=True, exist_ok=True)
    (up / "upload.yaml").write_text(UPLOAD_YAML)
    for rel, data in files.items():
        (up / rel).write_bytes(data if isinstance(data, bytes) else data.encode())
    return up


# ------------------------------------------------------------------------------ ids and paths

@pytest.mark.parametrize("rid", HOSTILE_IDS)
def test_hostile_record_ids_in_text_sources_never_become_paths(tmp_path, rid):
    root = tmp_path / "data"
    aidb = json.loads(seed_lines(".aidb.jsonl")[0])
    msgs = json.loads(seed_lines(".messages.jsonl")[0])
    aidb["id"], msgs["id"] = rid, rid
    _upload(root, {"t.aidb.jsonl": json.dumps(aidb) + "\n", "m.messages.jsonl": json.dumps(msgs) + "\n"})
    before = {p for p in tmp_path.rglob("*") if p.is_file()}
    records = [r for r in iter_text_records(DataLayout.at(root), "up") if not isinstance(r, Issue)]
    assert len(records) == 2
    for r in records:
        assert "/" not in r.id and "\\" not in r.id and not r.id.startswith(".") and ".." not in r.id
    logs = list((root / "redactions").iterdir())
    assert len(logs) == 1 and logs[0].parent == root / "redactions"
    assert _files_outside(root, before) == []


def test_a_vakforge_import_with_a_traversal_id_is_refused_and_nothing_escapes(tmp_path):
    root = tmp_path / "data"
    rec = make_record("../../escaped").dump()
    rec["meta"].update(source="real", consent="written", consent_ref="x")
    ok = make_record("fine-1").dump()
    ok["meta"].update(source="real", consent="written", consent_ref="x")
    _upload(root, {"imp.vakforge.jsonl": json.dumps(rec) + "\n" + json.dumps(ok) + "\n"})
    before = {p for p in tmp_path.rglob("*") if p.is_file()}
    res = tag_upload(DataLayout.at(root), "up")
    assert res.records == 1
    assert "id_unsafe" in {i.code for i in res.issues}
    redact_upload(DataLayout.at(root), "up")
    logs = DataLayout.at(root).release_files("up") / "redactions"  # the private release files of the upload
    assert sorted(p.name for p in logs.iterdir()) == ["fine-1.json"]
    assert _files_outside(root, before) == []


@pytest.mark.parametrize("path", ["../outside.wav", "/etc/passwd", "audio/../../outside.wav", "C:\\audio\\x.wav"])
def test_traversal_and_absolute_audio_paths_are_rule_violations(example_dataset, example_record, path):
    example_record["audio"]["path"] = path
    codes = {i.code for i in validate_record(example_record, ValidationContext(base_dir=example_dataset)).issues}
    assert codes & {"audio_path_absolute", "audio_path_parent", "audio_path_outside"}, codes


@pytest.mark.parametrize("path", ["../x.json", "/etc/x.json", "redactions/../../x.json"])
def test_traversal_redaction_log_paths_are_rule_violations(example_dataset, example_record, path):
    example_record["meta"]["redaction_log"] = path
    codes = {i.code for i in validate_record(example_record, ValidationContext(base_dir=example_dataset)).issues}
    assert "redaction_log_path_unsafe" in codes, codes


def test_redaction_never_masks_audio_outside_the_data_dir(tmp_path):
    root = tmp_path / "data"
    outside = tmp_path / "outside.wav"
    sf.write(outside, np.full((24000, 2), 0.25, dtype=np.float32), 24000, subtype="PCM_16")
    before = outside.read_bytes()
    rec = make_record("c1", turns=[("user", 0.0, 1.0, "call me on +1 415 555 0100 please")]).dump()
    rec["meta"].update(source="real", consent="written", consent_ref="x")
    rec["audio"] = {"path": "../outside.wav", "sample_rate": 24000, "channels": 2,
                    "channel_map": {"0": "agent", "1": "user"}, "duration_s": 1.0}
    work = root / "work" / "up"
    work.mkdir(parents=True)
    (work / "conversations.jsonl").write_text(json.dumps(rec) + "\n")
    res = redact_upload(DataLayout.at(root), "up")
    assert "redaction_audio_missing" in {i.code for i in res.issues}
    assert outside.read_bytes() == before


# ---------------------------------------------------------------------------------------- symlinks

def test_symlinks_out_of_the_upload_are_never_read(tmp_path):
    root = tmp_path / "data"
    up = _upload(root, {})
    secret_dir = tmp_path / "secret"
    secret_dir.mkdir()
    msgs = seed_lines(".messages.jsonl")[0] + b"\n"
    (secret_dir / "s.messages.jsonl").write_bytes(msgs)
    sf.write(secret_dir / "s.wav", np.zeros((8000, 1), dtype=np.float32), 8000)
    (up / "linked.messages.jsonl").symlink_to(secret_dir / "s.messages.jsonl")
    (up / "linked.aidb.jsonl").symlink_to(secret_dir / "s.messages.jsonl")
    (up / "linked.vakforge.jsonl").symlink_to(secret_dir / "s.messages.jsonl")
    (up / "call.wav").symlink_to(secret_dir / "s.wav")
    (up / "dir").symlink_to(secret_dir, target_is_directory=True)
    assert [f.name for f in inventory(up).files] == ["upload.yaml"]
    layout = DataLayout.at(root)
    text = list(iter_text_records(layout, "up"))
    assert all(isinstance(x, Issue) for x in text)  # no record; each linked source is refused by name
    assert sorted(i.file for i in text) == ["up/linked.aidb.jsonl", "up/linked.messages.jsonl"]
    normalized = normalize_upload(layout, "up")
    assert normalized.recordings == 0
    assert {i.file for i in normalized.issues if i.code == "audio_symlink"} == {"up/call.wav", "up/dir"}
    assert tag_upload(layout, "up").records == 0


# ------------------------------------------------------------------------------------------- audio

def test_a_wav_header_claiming_10_hours_over_1kb_is_refused_in_bounded_memory(tmp_path):
    wav = tmp_path / "liar.wav"
    claimed = 10 * 3600 * 24000 * 2 * 2
    header = b"RIFF" + struct.pack("<I", 36 + claimed) + b"WAVEfmt " + struct.pack(
        "<IHHIIHH", 16, 1, 2, 24000, 24000 * 4, 4, 16) + b"data" + struct.pack("<I", claimed)
    wav.write_bytes(header + b"\x00\x01" * 512)
    tracemalloc.start()
    with pytest.raises(AudioError) as err:
        normalize_recording(wav, tmp_path / "out.wav")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert err.value.code in {"audio_truncated", "audio_too_long"} and err.value.fix
    assert peak < 50 * 2**20
    assert not (tmp_path / "out.wav").exists()


@pytest.fixture(scope="module")
def silence_bomb(tmp_path_factory) -> Path:
    """5 hours of 8 kHz digital silence: a few hundred KB of FLAC that decodes to 144 M samples."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.flac"
    zeros = np.zeros(1 << 20, dtype=np.int16)
    total = 5 * 3600 * 8000
    with sf.SoundFile(path, "w", samplerate=8000, channels=1, subtype="PCM_16", format="FLAC") as f:
        for start in range(0, total, len(zeros)):
            f.write(zeros[: min(len(zeros), total - start)])
    assert path.stat().st_size < 2 * 2**20
    return path


def test_a_flac_bomb_of_hours_of_silence_is_refused_before_decoding(tmp_path, silence_bomb):
    tracemalloc.start()
    with pytest.raises(AudioError) as err:
        normalize_recording(silence_bomb, tmp_path / "out.wav")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert err.value.code == "audio_too_long" and "max_duration_s" in err.value.fix
    assert peak < 50 * 2**20 and not (tmp_path / "out.wav").exists()


def test_the_duration_cap_also_holds_while_decoding_and_is_reported_by_the_stage(tmp_path, silence_bomb):
    root = tmp_path / "data"
    up = _upload(root, {})
    shutil.copy(silence_bomb, up / "bomb.flac")
    tracemalloc.start()
    res = normalize_upload(DataLayout.at(root), "up", max_duration_s=600)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    (issue,) = [i for i in res.issues if i.code == "audio_too_long"]
    assert issue.file == "up/bomb.flac" and res.recordings == 0 and res.failed == 1
    assert peak < 100 * 2**20
    report = json.loads(DataLayout.at(root).upload_report("up").read_text())
    assert report["failures"][0]["issue"]["code"] == "audio_too_long"
    # raising the cap is a new decision: the cached failure is not reused
    res2 = normalize_upload(DataLayout.at(root), "up", max_duration_s=700)
    assert res2.decoded == 1


def test_decoding_stops_at_the_cap_even_when_the_header_says_nothing(tmp_path):
    """A header that under-reports (or omits) the length cannot sneak past max_duration_s."""
    src = tmp_path / "long.wav"
    sf.write(src, np.zeros((8000 * 30, 1), dtype=np.float32), 8000, subtype="PCM_16")
    with pytest.raises(AudioError) as err:
        normalize_recording(src, tmp_path / "o.wav", max_duration_s=10)
    assert err.value.code == "audio_too_long"
    # the streaming check on its own: a reader whose header claims 5 s (as a lying or absent header would)
    from vak_pipeline.audio import normalize as norm
    from vak_pipeline.audio.decode import AudioReader, SourceInfo

    class LyingHeader(AudioReader):
        def _open_sf(self) -> None:
            super()._open_sf()
            self.info = SourceInfo(8000, 1, 8000 * 5, "WAV/PCM_16")

    real_open = norm.open_audio
    norm.open_audio = LyingHeader
    try:
        with pytest.raises(AudioError) as err:
            normalize_recording(src, tmp_path / "o.wav", max_duration_s=10)
    finally:
        norm.open_audio = real_open
    assert err.value.code == "audio_too_long" and not (tmp_path / "o.wav").exists()


# ------------------------------------------------------------------------------------- huge lines

def _sparse_line_file(path: Path, prefix: bytes, size: int, tail: bytes) -> Path:
    """A file whose first line is `size` bytes (NULs in a sparse hole: no disk used), then `tail`."""
    with open(path, "wb") as fh:
        fh.write(prefix)
        fh.seek(size - 3)
        fh.write(b'"}\n' + tail)
    return path


@pytest.mark.parametrize(("suffix", "size"), [(".messages.jsonl", 2 * 2**30), (".aidb.jsonl", 80 * 2**20),
                                              (".vakforge.jsonl", 80 * 2**20)])
def test_a_2gb_line_in_a_text_source_is_skipped_without_loading_it(tmp_path, suffix, size):
    """2 GB for one source (a sparse file: no disk used), just over the 64 MB cap for the others (same code)."""
    root = tmp_path / "data"
    up = _upload(root, {})
    good = seed_lines(".messages.jsonl")[2] if suffix == ".messages.jsonl" else b""
    if suffix == ".aidb.jsonl":
        good = seed_lines(".aidb.jsonl")[0]
    _sparse_line_file(up / f"big{suffix}", b'{"id": "', size, good + b"\n")
    layout = DataLayout.at(root)
    tracemalloc.start()
    if suffix == ".vakforge.jsonl":
        res = tag_upload(layout, "up")
        items: list = res.issues
    else:
        items = list(iter_text_records(layout, "up"))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    codes = [i.code for i in items if isinstance(i, Issue)]
    assert any(c.endswith("line_too_long") for c in codes), codes
    (too_long,) = [i for i in items if isinstance(i, Issue) and i.code.endswith("line_too_long")]
    assert too_long.line == 1 and too_long.fix
    if suffix != ".vakforge.jsonl":
        assert any(not isinstance(i, Issue) for i in items), "the good line after the huge one is still imported"
    assert peak < 200 * 2**20  # the 64 MB line cap plus working set, never the 2 GB line


def test_the_line_cap_is_the_same_code_path_at_a_small_limit(tmp_path):
    path = _sparse_line_file(tmp_path / "x.jsonl", b'{"id": "', 5000, b'{"id": "ok"}\n')
    assert [(x.line, x.code) for x in iter_jsonl(path, max_line_bytes=1000)] == [(1, "line_too_long"), (2, None)]


# ------------------------------------------------------------------------------ nesting and text

@pytest.mark.parametrize("depth", [70, 300, 5000, 200_000])
def test_deeply_nested_tool_json_is_a_clear_issue_in_every_importer(tmp_path, depth):
    root = tmp_path / "data"
    nested = "[" * depth + "]" * depth
    msg = {"id": "deep", "messages": [
        {"role": "user", "content": "look it up"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": '{"a": ' + nested
                                                                        + "}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": nested}]}
    rec = make_record("deep-vak").dump()
    line = json.dumps(rec)[:-1] + ', "extra_deep": ' + nested + "}"
    _upload(root, {"d.messages.jsonl": json.dumps(msg) + "\n", "d.vakforge.jsonl": line + "\n"})
    layout = DataLayout.at(root)
    res = tag_upload(layout, "up")  # text sources and vakforge imports both
    assert res.records == 0
    assert len(res.issues) >= 2 and all(i.fix for i in res.issues)


def test_control_characters_and_mixed_scripts_survive_import_and_redaction(tmp_path):
    root = tmp_path / "data"
    text = "Haan \x00\x07\u202e theek 好的 ठीक है \ud7ff call +91 98765 43210 \x1b[31m"
    msg = {"id": "ctl", "messages": [{"role": "user", "content": text}, {"role": "assistant", "content": "ok 好"}]}
    _upload(root, {"c.messages.jsonl": json.dumps(msg) + "\n"})
    layout = DataLayout.at(root)
    assert tag_upload(layout, "up").records == 1
    red = redact_upload(layout, "up")
    assert red.redacted == 1 and red.failed == 0
    (out,) = [json.loads(x) for x in layout.redacted("up").read_text().splitlines()]
    assert "98765" not in json.dumps(out) and "好的" in out["turns"][0]["text"]
    assert os.path.exists(DataLayout.at(root).release_files("up") / "redactions" / f"{out['id']}.json")
