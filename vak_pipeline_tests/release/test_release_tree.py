"""The published tree is the release: a record's audio, word timings and redaction log reach data/ only with
a release that keeps the record, and leave it with the first release that does not. Release files are
readable by other accounts (the user's umask, not mkstemp's 0600)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import zlib
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.layout import DataLayout
from vak_pipeline_tests.builders import make_record, turn

UPLOAD = "calls"
DESCRIPTOR = """locale: en-GB
source: real
consent: recorded_verbal
consent_ref: policy-v3-2026
voice_consent_ref: voice-consent-v1-2026
license: proprietary-internal
domain: retail_support
"""
TURNS = [turn("agent", 0.1, 1.4, "Hello, how can I help you today?"),
         turn("user", 1.6, 2.8, "My parcel has not arrived yet.")]


def _call(root: Path, conv_id: str, **meta) -> str:
    """A real, consented stereo call imported as a canonical record whose audio sits in its own upload."""
    rel = f"raw/{UPLOAD}/{conv_id}.wav"
    t = np.arange(3 * 24000) / 24000
    base = 200 + zlib.crc32(conv_id.encode()) % 300  # each call its own sound: two calls, not one delivered twice
    sf.write(root / rel, np.stack([0.2 * np.sin(2 * np.pi * f * t) for f in (base, base * 1.5)], axis=1), 24000,
             subtype="PCM_16")
    os.chmod(root / rel, 0o644)  # as delivered (libsndfile itself creates 0755)
    kw = {"source": "real", "consent": "recorded_verbal", "consent_ref": "policy-v3-2026",
          "voice_consent_ref": "voice-consent-v1-2026", "license": "proprietary-internal", **meta}
    rec = make_record(conv_id, {"agent": "a-1", "user": f"u-{conv_id}"}, TURNS, locale="en-GB", **kw).dump()
    rec["audio"] = {"path": rel, "sample_rate": 24000, "channels": 2, "channel_map": {"0": "agent", "1": "user"},
                    "duration_s": 3.0}
    return json.dumps(rec) + "\n"


def _upload(root: Path, *lines: str) -> None:
    up = root / "raw" / UPLOAD
    up.mkdir(parents=True, exist_ok=True)
    (up / "upload.yaml").write_text(DESCRIPTOR, encoding="utf-8")
    (up / "calls.vakforge.jsonl").write_text("".join(lines), encoding="utf-8")


def _published(root: Path) -> dict[str, str]:
    """sha256 of every file of data/ outside raw/ and work/ (the published tree), by path."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if p.is_file() and rel.parts[0] not in ("raw", "work"):
            out[rel.as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _run(root: Path) -> tuple[int, str]:
    out = CliRunner().invoke(app, ["run", "--data", str(root)])
    return out.exit_code, out.output


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.mark.timeout(600)
def test_only_released_records_have_files_in_data_and_a_swap_removes_the_rest(tmp_path, umask_022):
    root = tmp_path / "data"
    (root / "raw" / UPLOAD).mkdir(parents=True)
    _upload(root, _call(root, "call-one"), _call(root, "call-two"))
    code, output = _run(root)
    assert code == 0, output
    layout = DataLayout.at(root)
    assert sorted(p.name for p in layout.audio_dir.iterdir()) == ["call-one.wav", "call-two.wav"]
    assert sorted(p.name for p in (root / "redactions").iterdir()) == ["call-one.json", "call-two.json"]
    records = [json.loads(x) for x in layout.manifest.read_text().splitlines()]
    assert {r["audio"]["path"] for r in records} == {"audio/call-one.wav", "audio/call-two.wav"}
    validate = CliRunner().invoke(app, ["validate", str(root)])
    assert validate.exit_code == 0, validate.output  # records' paths resolve in the published release

    # a release written under umask 022 is readable by every account: files 0644, folders 0755
    for p in [layout.manifest, layout.splits, layout.steward_html, layout.published_audio("call-one"),
              *(root / "exports").rglob("*")]:
        want = 0o755 if p.is_dir() else 0o644
        assert stat.S_IMODE(p.stat().st_mode) == want, (p, oct(p.stat().st_mode))

    # a consent-blocked recording: the release is blocked, the published tree does not move by one byte,
    # and the recording's audio appears nowhere in it (nor in the blocked candidate)
    before = _published(root)
    _upload(root, _call(root, "call-one"), _call(root, "call-two"), _call(root, "call-none", consent="none"))
    code, output = _run(root)
    assert code == 1, output
    assert "Release BLOCKED" in " ".join(output.split())
    after = _published(root)
    page = "reports/steward/index.html"  # the one file that moves: the live page says a newer candidate was blocked
    assert {k: v for k, v in after.items() if k != page} == {k: v for k, v in before.items() if k != page}
    assert "A newer candidate was blocked" in (root / page).read_text(encoding="utf-8")
    assert not any("call-none" in p for p in _published(root))
    cand = layout.candidate()
    assert not cand.published_audio("call-none").exists()
    assert (layout.release_files(UPLOAD) / "audio" / "call-none.wav").is_file()  # kept privately, under work/

    # withdrawn from raw/: the next release swaps call-two's files out with its row
    _upload(root, _call(root, "call-one"))
    code, output = _run(root)
    assert code == 0, output
    assert [p.name for p in layout.audio_dir.iterdir()] == ["call-one.wav"]
    assert [p.name for p in (root / "redactions").iterdir()] == ["call-one.json"]
    assert not any("call-two" in p or "call-none" in p for p in _published(root))
    assert not layout.candidate_dir.exists()


@pytest.mark.timeout(600)
def test_a_full_disk_while_publishing_is_one_sentence_and_the_previous_release_stays(tmp_path, monkeypatch):
    import errno

    from vak_pipeline import storage

    root = tmp_path / "data"
    (root / "raw" / UPLOAD).mkdir(parents=True)
    _upload(root, _call(root, "call-one"))
    code, output = _run(root)
    assert code == 0, output
    before = _published(root)
    candidate = DataLayout.at(root).candidate_dir
    real_open = storage.atomic_open

    def full_in_candidate(path, *args, **kwargs):  # the disk fills up once the candidate is written
        if Path(path).resolve().is_relative_to(candidate.resolve()):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(storage, "atomic_open", full_in_candidate)
    _upload(root, _call(root, "call-one"), _call(root, "call-two"))
    code, output = _run(root)
    text = " ".join(output.split())
    assert code == 1, output
    assert "Traceback" not in output and "Stack Trace" not in output
    assert f"validated_manifest: The disk holding {candidate}" in text
    assert "is full (no space left on device) while running validated_manifest" in text
    assert "Free space on that disk, or run `vak run --data` on a directory with more room" in text
    assert "Release BLOCKED" in text  # the graph's block could not write its verdict either: said, no traceback
    assert _published(root) == before  # the previous release is intact
