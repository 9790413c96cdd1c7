"""Paths stay in their room (issue 26): an imported record's audio comes only from its own upload, and a
symbolic link at any level of an upload (folder, upload.yaml, recordings.csv, events, text source, audio,
vakforge import) is refused with an issue that names the link, relative to the data root. Nothing outside
the data directory is read."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from vak_pipeline.audio.stage import normalize_upload
from vak_pipeline.core.issue import Issue
from vak_pipeline.layout import DataLayout
from vak_pipeline.sources.text import iter_text_records
from vak_pipeline.sources.vakforge import audio_path_problem
from vak_pipeline.speech.stage import tag_upload
from vak_pipeline.speech.turns import load_events
from vak_pipeline.uploads.descriptor import load_descriptor
from vak_pipeline.uploads.inventory import fingerprint, inventory
from vak_pipeline_tests.builders import make_record
from vak_pipeline_tests.hardening_inputs import UPLOAD_YAML, seed_lines

pytestmark = pytest.mark.timeout(120)


def _wav(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, np.zeros((2400, 2), dtype=np.float32), 24000, subtype="PCM_16")
    return path


def _upload(root: Path, name: str = "up") -> Path:
    up = root / "raw" / name
    up.mkdir(parents=True, exist_ok=True)
    (up / "upload.yaml").write_text(UPLOAD_YAML)
    return up


def _imported(rid: str, audio_path: str | None) -> str:
    rec = make_record(rid).dump()
    rec["meta"].update(source="real", consent="written", consent_ref="x")
    if audio_path is not None:
        rec["audio"] = {"path": audio_path, "sample_rate": 24000, "channels": 2,
                        "channel_map": {"0": "user", "1": "agent"}, "duration_s": 0.1}
    return json.dumps(rec)


# ------------------------------------------------------------------------------ imports name their own upload

HOSTILE = {
    "private": ("work/up/audio/c1.wav", "vakforge_audio_path_private"),
    "foreign": ("raw/other/x.wav", "vakforge_audio_path_foreign_upload"),
    "published": ("audio/someone-else.wav", "vakforge_audio_path_published"),
    "parent": ("raw/up/../other/x.wav", "vakforge_audio_path_parent"),
    "linked": ("raw/up/linked.wav", "vakforge_audio_path_symlink"),
}


def test_a_hostile_vakforge_import_is_refused_record_by_record_and_the_rest_is_imported(tmp_path):
    root = tmp_path / "data"
    up = _upload(root)
    _wav(up / "call.wav")
    _wav(root / "raw" / "other" / "x.wav")
    _wav(root / "work" / "up" / "audio" / "c1.wav")  # the unredacted private recording
    _wav(root / "audio" / "someone-else.wav")  # another record's published audio
    _wav(tmp_path / "secret.wav")
    (up / "linked.wav").symlink_to(tmp_path / "secret.wav")
    hostile = dict(HOSTILE, absolute=(str(tmp_path / "secret.wav"), "vakforge_audio_path_absolute"))
    lines = [_imported("good-audio", "raw/up/call.wav")]
    lines += [_imported(f"bad-{name}", path) for name, (path, _) in hostile.items()]
    lines.append(_imported("good-text", None))
    (up / "imp.vakforge.jsonl").write_text("\n".join(lines) + "\n")

    res = tag_upload(DataLayout.at(root), "up")

    assert sorted(json.loads(x)["id"] for x in DataLayout.at(root).conversations("up").read_text().splitlines()) \
        == ["good-audio", "good-text"]
    refused = {i.record_id: i for i in res.issues if i.code.startswith("vakforge_audio_path")}
    for line, (name, (path, code)) in enumerate(hostile.items(), start=2):
        issue = refused[f"bad-{name}"]
        assert (issue.code, issue.file, issue.line, issue.field) == (code, "up/imp.vakforge.jsonl", line, "audio.path")
        assert "raw/up/" in issue.fix
        if name == "linked":  # a link is named, relative to the data root
            assert "raw/up/linked.wav" in issue.message and "symbolic link" in issue.message
        else:
            assert path not in issue.message  # the rule and the fix, never the path


@pytest.mark.parametrize(("path", "code"), [
    ("/etc/passwd", "audio_path_absolute"), ("C:\\x.wav", "audio_path_absolute"), ("\\\\host\\x.wav",
                                                                                 "audio_path_absolute"),
    ("../outside.wav", "audio_path_parent"), ("raw/up/a/../../other/x.wav", "audio_path_parent"),
    ("work/up/audio/c.wav", "audio_path_private"), ("./work/up/x.wav", "audio_path_private"),
    ("alignments/c.json", "audio_path_published"), ("exports/moshi_lora/train/c.wav", "audio_path_published"),
    ("raw/other/x.wav", "audio_path_foreign_upload"), ("raw/up", "audio_path_foreign_upload"),
    ("somewhere/x.wav", "audio_path_outside_upload"), ("raw/up/notes.txt", "audio_path_not_audio"),
    ("raw/up/absent.wav", "audio_path_missing"), ("raw/up/call.wav", None), ("raw/up/sub/b.flac", None),
])
def test_only_a_recording_of_the_records_own_upload_is_accepted(tmp_path, path, code):
    up = _upload(tmp_path)
    _wav(up / "call.wav")
    _wav(up / "sub" / "b.flac")
    (up / "notes.txt").write_text("x")
    problem = audio_path_problem(path, "up", up)
    assert (problem[0] if problem else None) == code


# ---------------------------------------------------------------------------------- symlinks at every level

@pytest.fixture
def outside(tmp_path) -> Path:
    """A folder outside the data directory with everything an upload could hold."""
    out = tmp_path / "outside"
    out.mkdir()
    (out / "upload.yaml").write_text(UPLOAD_YAML)
    (out / "recordings.csv").write_text("file,user_speaker\ncall.wav,secret-caller\n")
    (out / "s.messages.jsonl").write_bytes(seed_lines(".messages.jsonl")[0] + b"\n")
    (out / "s.vakforge.jsonl").write_text(_imported("outside-1", None) + "\n")
    (out / "call.events.jsonl").write_text('{"t": 0.5, "tool_call": {"id": "c", "name": "f"}}\n')
    _wav(out / "call.wav")
    return out


def test_a_linked_upload_folder_is_refused_by_name_and_nothing_in_it_is_read(tmp_path, outside):
    root = tmp_path / "data"
    (root / "raw").mkdir(parents=True)
    (root / "raw" / "linked").symlink_to(outside, target_is_directory=True)
    layout = DataLayout.at(root)
    up = layout.upload_dir("linked")
    desc, issues = load_descriptor(up)
    assert desc is None and [i.code for i in issues] == ["descriptor_upload_symlink"]
    assert "raw/linked" in issues[0].message and issues[0].fix
    inv = inventory(up)
    assert inv.files == [] and inv.links == ["."]
    assert fingerprint(up) == inv.fingerprint
    assert [x for x in iter_text_records(layout, "linked") if not isinstance(x, Issue)] == []
    normalized = normalize_upload(layout, "linked")
    assert normalized.recordings == 0 and "descriptor_upload_symlink" in {i.code for i in normalized.issues}
    assert tag_upload(layout, "linked").records == 0


@pytest.mark.parametrize("name", ["upload.yaml", "recordings.csv"])
def test_a_linked_descriptor_is_refused_by_name(tmp_path, outside, name):
    up = _upload(tmp_path / "data")
    _wav(up / "call.wav")
    (up / name).unlink(missing_ok=True)
    (up / name).symlink_to(outside / name)
    desc, issues = load_descriptor(up)
    assert desc is None
    (issue,) = issues
    assert issue.code == "descriptor_symlink" and f"raw/up/{name}" in issue.message and issue.fix
    normalized = normalize_upload(DataLayout.at(tmp_path / "data"), "up")
    assert normalized.recordings == 0 and "descriptor_symlink" in {i.code for i in normalized.issues}


def test_linked_text_sources_imports_and_recordings_are_refused_by_name(tmp_path, outside):
    root = tmp_path / "data"
    up = _upload(root)
    (up / "chat.messages.jsonl").symlink_to(outside / "s.messages.jsonl")
    (up / "imp.vakforge.jsonl").symlink_to(outside / "s.vakforge.jsonl")
    (up / "call.wav").symlink_to(outside / "call.wav")
    layout = DataLayout.at(root)
    text = list(iter_text_records(layout, "up"))
    assert [(i.code, i.file) for i in text] == [("text_source_symlink", "up/chat.messages.jsonl")]
    assert "raw/up/chat.messages.jsonl is a symbolic link" in text[0].message
    normalized = normalize_upload(layout, "up")
    assert normalized.recordings == 0
    assert [(i.code, i.file) for i in normalized.issues if "symlink" in i.code] == [("audio_symlink", "up/call.wav")]
    res = tag_upload(layout, "up")
    assert res.records == 0
    assert {(i.code, i.file) for i in res.issues if "symlink" in i.code} == {
        ("text_source_symlink", "up/chat.messages.jsonl"), ("vakforge_symlink", "up/imp.vakforge.jsonl")}


def test_a_linked_events_file_is_refused_by_name(tmp_path, outside):
    up = _upload(tmp_path / "data")
    (up / "call.events.jsonl").symlink_to(outside / "call.events.jsonl")
    events, issues = load_events(up / "call.events.jsonl", "up/call.events.jsonl", "c1")
    assert events == []
    assert [(i.code, i.file, i.record_id) for i in issues] == [("events_symlink", "up/call.events.jsonl", "c1")]
