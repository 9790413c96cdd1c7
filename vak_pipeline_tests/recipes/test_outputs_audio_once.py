"""Audio stored once: an export whose consumer reads a path links to the release's recording instead of
writing another copy (hard links; a copy where the file system cannot link), and a linked export survives
the audio being re-released: never a dangling file, always the audio of its own release."""

from __future__ import annotations

import errno
import json
import os

import numpy as np
import pytest
import soundfile as sf

from vak_pipeline.layout import DataLayout
from vak_pipeline.recipes.moshi_lora import MoshiConfig, export_moshi_lora
from vak_pipeline.recipes.parquet import ParquetConfig, export_parquet
from vak_pipeline.release import begin_candidate, promote
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import (
    make_audio,
    make_record,
    tone,
    turn,
    write_manifest,
    write_phone_redaction_log,
    write_wav,
)

pytestmark = pytest.mark.timeout(120)
ALL_TRAIN = SplitConfig(ratios={"train": 1.0, "validation": 0.0, "test": 0.0})


def _candidate(root, agent_hz: float, masked: bool = False) -> DataLayout:
    """A release candidate of one agent-left call whose agent speaks a tone of `agent_hz` (`masked`: with a
    redacted span on the agent's channel, as the redaction stage logs it)."""
    cand = begin_candidate(DataLayout.at(root))
    base = cand.release_root
    write_wav(base / "audio" / "c1.wav", [tone(agent_hz, 3.0), tone(440, 3.0)])
    log = {}
    if masked:
        write_phone_redaction_log(base, "c1", 11, 20, (1.5, 2.3), channel=0)
        log = {"redaction_log": "redactions/c1.json"}
    turns = [turn("user", 0.0, 1.0, "hello there"), turn("agent", 1.1, 2.5, "my number is <PHONE_1>")]
    rec = make_record("c1", {"agent": "a1", "user": "u1"}, turns, audio=make_audio("c1", 3.0), **log)
    write_manifest(cand.manifest, [rec])
    if not cand.splits.exists():
        split_manifest(cand.manifest, cand.splits, ALL_TRAIN)
    return cand


def _ino(path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


def test_moshi_links_the_release_audio_and_survives_a_re_release(tmp_path):
    cand = _candidate(tmp_path, 1000.0)
    res = export_moshi_lora(cand)
    assert res.counts["audio_files_shared"] == 1
    promote(DataLayout.at(tmp_path))
    exported, published = tmp_path / "exports/moshi_lora/train/c1.wav", tmp_path / "audio/c1.wav"
    assert _ino(exported) == _ino(published)  # one copy on disk
    index = [json.loads(x) for x in (tmp_path / "exports/moshi_lora/train.jsonl").read_text().splitlines()]
    assert index == [{"path": "train/c1.wav", "duration": 3.0}]
    old = sf.read(exported, dtype="int16")[0]

    cand2 = _candidate(tmp_path, 700.0)  # the next delivery changes this call's audio
    assert np.array_equal(sf.read(exported, dtype="int16")[0], old)  # the live release is untouched meanwhile
    export_moshi_lora(cand2)
    promote(DataLayout.at(tmp_path))
    new, _ = sf.read(exported, dtype="int16")
    assert not np.array_equal(new, old)
    assert np.array_equal(new, sf.read(published, dtype="int16")[0])  # the new release's audio, not the old one
    assert _ino(exported) == _ino(published)
    for wav in (tmp_path / "exports").rglob("*.wav"):  # nothing dangling, nothing of the old release left
        assert wav.is_file() and not wav.is_symlink()


def test_where_the_file_system_cannot_link_the_export_gets_a_copy(tmp_path, monkeypatch):
    cand = _candidate(tmp_path, 1000.0)

    def no_link(src, dst, *a, **k):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", no_link)
    res = export_moshi_lora(cand)
    exported, published = res.out_dir / "train/c1.wav", cand.release_root / "audio/c1.wav"
    assert _ino(exported) != _ino(published)
    assert exported.read_bytes() == published.read_bytes()
    assert res.counts["audio_files_shared"] == 1  # build.json says the same whatever the file system did


def test_audio_the_export_changes_is_written_not_linked(tmp_path):
    cand = _candidate(tmp_path, 1000.0)
    rec = make_record("c1", {"agent": "a1", "user": "u1"},
                      audio=make_audio("c1", 3.0, channel_map={"0": "user", "1": "agent"}))  # agent on the right
    write_manifest(cand.manifest, [rec])
    res = export_moshi_lora(cand)
    exported = res.out_dir / "train/c1.wav"
    assert _ino(exported) != _ino(cand.release_root / "audio/c1.wav")
    assert res.counts.get("audio_files_shared", 0) == 0
    res = export_moshi_lora(cand, MoshiConfig(), out_dir=tmp_path / "again")
    assert (tmp_path / "again/train/c1.wav").read_bytes() == exported.read_bytes()


def test_a_recording_with_redacted_spans_is_re_masked_in_a_copy_of_its_own(tmp_path):
    cand = _candidate(tmp_path, 1000.0, masked=True)
    published = cand.release_root / "audio/c1.wav"
    before = published.read_bytes()
    res = export_moshi_lora(cand)
    exported = res.out_dir / "train/c1.wav"
    assert _ino(exported) != _ino(published) and res.counts.get("audio_files_shared", 0) == 0
    assert not sf.read(exported, dtype="int16")[0][int(1.6 * 24000):int(2.2 * 24000), 0].any()  # silence
    assert published.read_bytes() == before  # the release's file is never edited
    ref = export_parquet(cand, ParquetConfig(embed_audio=False))
    assert _ino(ref.out_dir / "audio/c1.wav") != _ino(published)


def test_a_re_masked_recording_is_stored_once_for_every_export_that_writes_it(tmp_path):
    """moshi_lora, parquet by reference and duplex_s2s by reference each need the call with its span re-masked
    (silence): inside a candidate the three files are one inode, not the published one."""
    pytest.importorskip("lhotse")
    from vak_pipeline.recipes.duplex_s2s import DuplexS2SConfig, export_duplex_s2s

    cand = _candidate(tmp_path, 1000.0, masked=True)
    moshi = export_moshi_lora(cand).out_dir / "train/c1.wav"
    parquet = export_parquet(cand, ParquetConfig(embed_audio=False)).out_dir / "audio/c1.wav"
    duplex = export_duplex_s2s(cand, DuplexS2SConfig(audio="reference")).out_dir / "audio/train/c1.wav"
    assert _ino(moshi) == _ino(parquet) == _ino(duplex) != _ino(cand.release_root / "audio/c1.wav")
    assert not sf.read(duplex, dtype="int16")[0][int(1.6 * 24000):int(2.2 * 24000), 0].any()  # silence


def test_parquet_by_reference_links_the_recordings_and_embedding_counts_its_bytes(tmp_path):
    cand = _candidate(tmp_path, 1000.0)
    ref = export_parquet(cand, ParquetConfig(embed_audio=False))
    assert _ino(ref.out_dir / "audio/c1.wav") == _ino(cand.release_root / "audio/c1.wav")
    assert ref.counts["audio_files_shared"] == 1 and not ref.counts.get("audio_bytes_embedded")
    wav = export_parquet(cand, ParquetConfig(audio_format="wav"), out_dir=tmp_path / "embedded-wav")
    assert wav.counts["audio_bytes_embedded"] == (cand.release_root / "audio/c1.wav").stat().st_size
    flac = export_parquet(cand, ParquetConfig(), out_dir=tmp_path / "embedded")  # the default: lossless FLAC
    assert 0 < flac.counts["audio_bytes_embedded"] < wav.counts["audio_bytes_embedded"]


def test_turn_based_and_cascaded_share_each_clip_they_both_cut_and_the_store_is_never_released(tmp_path):
    from vak_pipeline.recipes.cascaded import export_cascaded
    from vak_pipeline.recipes.turn_based import export_turn_based

    cand = _candidate(tmp_path, 1000.0)
    turns = [turn("user", 0.0, 1.0, "hello there"), turn("agent", 1.1, 2.5, "how can I help")]
    write_manifest(cand.manifest, [make_record("c1", {"agent": "a1", "user": "u1"}, turns,
                                               audio=make_audio("c1", 3.0))])
    export_turn_based(cand)
    export_cascaded(cand)
    tb = cand.release_root / "exports/turn_based/audio/train/c1/0000_user.wav"
    stt = cand.release_root / "exports/cascaded/stt/audio/train/c1/0000_user.wav"
    assert tb.read_bytes() == stt.read_bytes() and _ino(tb) == _ino(stt)  # one copy on disk
    assert sf.read(stt, dtype="int16")[1] == 24000  # the consumers read them as before
    promote(DataLayout.at(tmp_path))
    assert not (tmp_path / ".shared-clips").exists() and not DataLayout.at(tmp_path).candidate_dir.exists()
    published = tmp_path / "exports/cascaded/stt/audio/train/c1/0000_user.wav"
    assert published.is_file()
    apart = export_cascaded(tmp_path, out_dir=tmp_path / "elsewhere")  # outside a candidate: its own files
    mine = apart.out_dir / "stt/audio/train/c1/0000_user.wav"
    assert mine.read_bytes() == published.read_bytes() and _ino(mine) != _ino(published)
