"""Issue 26 (7): a release file gets the mode the user's umask gives (0644 under 022) even when its bytes come
from raw/ (a vakforge import's recording, hard-linked where it can be): a hard link shares the inode and so
the mode, so a file whose mode is not the release's is copied instead, and the raw file's mode never changes."""

from __future__ import annotations

import json
import os
import stat

import numpy as np
import pytest
import soundfile as sf

from vak_pipeline.layout import DataLayout
from vak_pipeline.redaction.audio import publish_copy
from vak_pipeline.redaction.stage import RedactionSettings, redact_upload
from vak_pipeline.storage import link_or_copy


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


@pytest.mark.parametrize("place", [publish_copy, link_or_copy])
@pytest.mark.parametrize("raw_mode", [0o600, 0o444, 0o640])
def test_a_file_of_another_mode_is_copied_with_the_release_mode_and_the_source_keeps_its_own(
        tmp_path, umask_022, place, raw_mode):
    src = tmp_path / "raw" / "call.wav"
    src.parent.mkdir()
    src.write_bytes(b"RIFF recording")
    os.chmod(src, raw_mode)
    dst = tmp_path / "release" / "audio" / "c.wav"
    place(src, dst)
    assert dst.read_bytes() == b"RIFF recording" and _mode(dst) == 0o644
    assert _mode(src) == raw_mode and os.stat(src).st_ino != os.stat(dst).st_ino


@pytest.mark.parametrize("place", [publish_copy, link_or_copy])
def test_a_file_with_the_release_mode_is_still_linked(tmp_path, umask_022, place):
    src = tmp_path / "call.wav"
    src.write_bytes(b"RIFF")
    os.chmod(src, 0o644)
    place(src, tmp_path / "out" / "c.wav")
    assert os.stat(src).st_ino == os.stat(tmp_path / "out" / "c.wav").st_ino  # no bytes copied


def test_a_vakforge_import_s_raw_recording_is_published_0644_and_raw_keeps_0600(tmp_path, umask_022):
    layout = DataLayout.at(tmp_path / "data")
    up = layout.upload_dir("u1")
    up.mkdir(parents=True)
    (up / "upload.yaml").write_text("locale: en-GB\nconsent: recorded_verbal\nconsent_ref: p1\n")
    t = np.arange(24000) / 24000
    sf.write(up / "imported.wav", np.stack([0.2 * np.sin(2 * np.pi * 300 * t)] * 2, axis=1), 24000)
    os.chmod(up / "imported.wav", 0o600)
    rec = {"id": "imp-1", "schema_version": "0.1", "locale": "en-GB", "language": {"primary": "en"},
           "audio": {"path": "raw/u1/imported.wav", "sample_rate": 24000, "channels": 2,
                     "channel_map": {"0": "user", "1": "agent"}, "duration_s": 1.0},
           "turns": [{"speaker": "user", "start": 0.1, "end": 0.9, "text": "hello there", "lang": "en"}],
           "meta": {"source": "real", "consent": "recorded_verbal", "consent_ref": "p1"}}
    layout.conversations("u1").parent.mkdir(parents=True, exist_ok=True)
    layout.conversations("u1").write_text(json.dumps(rec) + "\n")
    assert redact_upload(layout, "u1", RedactionSettings()).redacted == 1
    published = layout.release_files("u1") / "audio" / "imp-1.wav"
    assert _mode(published) == 0o644 and _mode(up / "imported.wav") == 0o600
