"""normalize_upload: a whole upload to work/<upload>/audio/<conv_id>.wav, audio.jsonl and report.json."""

from __future__ import annotations

import json
import os

import numpy as np
import soundfile as sf

from vak_pipeline.audio.stage import normalize_upload, read_audio_index
from vak_pipeline.layout import DataLayout
from vak_pipeline.uploads.inventory import fingerprint, inventory

from ..ingest_fixtures import UPLOAD_YAML, make_upload, truncate, write_wav


def messy_upload(root):
    """One upload holding every kind of trouble next to good recordings."""
    up = make_upload(root, csv_text="file,conv_id,user_speaker\n"
                                    "good.wav,call-good,cust-1\n"
                                    "gone.wav,,cust-2\n")
    write_wav(up / "good.wav", rate=44100, channels=2)
    write_wav(up / "mono.flac", rate=16000, channels=1, seed=1)
    write_wav(up / "phone8k.wav", rate=8000, channels=2, seed=2)
    write_wav(up / "hires192k.wav", seconds=1.0, rate=192000, channels=2, seed=3)
    write_wav(up / "Anruf Müller 电话.wav", rate=48000, seed=4)
    write_wav(up / "six.wav", seconds=0.5, rate=24000, channels=6, seed=5)
    truncate(write_wav(up / "truncated.wav", seed=6))
    (up / "empty.wav").write_bytes(b"")
    (up / "notes.wav").write_text("meeting notes, not audio\n" * 10, encoding="utf-8")
    (up / "readme.txt").write_text("hello", encoding="utf-8")
    return up


def test_messy_upload_materializes_the_good_files_and_reports_the_bad(tmp_path):
    messy_upload(tmp_path)
    layout = DataLayout.at(tmp_path)
    res = normalize_upload(layout, "up1")

    rows = {r.source_file: r for r in read_audio_index(layout, "up1")}
    assert set(rows) == {"good.wav", "mono.flac", "phone8k.wav", "hires192k.wav", "Anruf Müller 电话.wav"}
    for r in rows.values():
        info = sf.info(str(tmp_path / r.path))
        assert (info.samplerate, info.subtype) == (24000, "PCM_16") and info.channels == r.channels
        assert r.path == f"work/up1/audio/{r.conv_id}.wav" and r.upload == "up1"  # private until redacted
    good = rows["good.wav"]
    assert good.conv_id == "call-good" and good.settings.speakers == {"user": "cust-1"}
    assert good.settings.channel_map == {"0": "user", "1": "agent"} and good.channels == 2
    assert rows["mono.flac"].channels == 1 and rows["mono.flac"].conv_id == "up1-mono"
    # a surname (read through its accent) and a word in a script without an ASCII base: types and the file's tag
    assert rows["Anruf Müller 电话.wav"].conv_id.startswith("up1-name-text-")
    assert any("narrowband" in n for n in rows["phone8k.wav"].inspect.notes)
    assert any("from 192000 Hz" in n for n in rows["hires192k.wav"].inspect.notes)

    report = json.loads((tmp_path / "work/up1/report.json").read_text())
    by_file = {i["file"]: i for i in report["issues"]}
    assert by_file["up1/truncated.wav"]["code"] == "audio_truncated"
    assert by_file["up1/empty.wav"]["code"] == "audio_empty_file"
    assert by_file["up1/notes.wav"]["code"] == "audio_unreadable"
    assert by_file["up1/six.wav"]["code"] == "audio_too_many_channels"
    assert by_file["up1/readme.txt"]["severity"] == "WARN"
    missing = by_file["up1/recordings.csv"]
    assert (missing["line"], missing["field"], missing["code"]) == (3, "file", "descriptor_csv_file_missing")
    assert all(i["fix"] for i in report["issues"])
    assert report["counts"]["recordings"] == 5 and report["counts"]["failed"] == 4
    assert (res.recordings, res.decoded, res.failed) == (5, 9, 4)
    assert any(n["file"] == "up1/phone8k.wav" for n in report["notes"])


def test_second_run_skips_unchanged_recordings_and_redoes_only_what_changed(tmp_path):
    up = make_upload(tmp_path)
    write_wav(up / "a.wav", seed=1)
    write_wav(up / "b.wav", seed=2)
    write_wav(up / "six.wav", seconds=0.5, channels=6, seed=3)
    layout = DataLayout.at(tmp_path)
    first = normalize_upload(layout, "up1")
    assert (first.decoded, first.skipped, first.recordings, first.failed) == (3, 0, 2, 1)

    again = normalize_upload(layout, "up1")
    assert (again.decoded, again.skipped, again.recordings, again.failed) == (0, 3, 2, 1)  # failure remembered

    # metadata-only change: rows refreshed, nothing decoded
    (up / "upload.yaml").write_text(UPLOAD_YAML + "condition: phone\n", encoding="utf-8")
    meta = normalize_upload(layout, "up1")
    assert meta.decoded == 0
    assert {r.settings.condition for r in read_audio_index(layout, "up1")} == {"phone"}

    # new bytes in one file, keep_channels for another: exactly those two are decoded
    write_wav(up / "b.wav", seed=9)
    (up / "recordings.csv").write_text('file,keep_channels\nsix.wav,"[0, 5]"\n', encoding="utf-8")
    changed = normalize_upload(layout, "up1")
    assert (changed.decoded, changed.skipped, changed.recordings, changed.failed) == (2, 1, 3, 0)
    assert {r.source_file: r.kept_channels for r in read_audio_index(layout, "up1")}["six.wav"] == [0, 5]

    # a deleted output wav is rebuilt
    os.unlink(tmp_path / "work" / "up1" / "audio" / "up1-a.wav")
    assert normalize_upload(layout, "up1").decoded == 1


def test_process_pool_gives_the_same_rows(tmp_path):
    up = make_upload(tmp_path)
    for i in range(3):
        write_wav(up / f"c{i}.wav", seconds=1.0, seed=i)
    one = DataLayout.at(tmp_path)
    normalize_upload(one, "up1", workers=1)
    rows1 = [r.model_dump() for r in read_audio_index(one, "up1")]
    two = DataLayout.at(tmp_path / "pool")
    (tmp_path / "pool").mkdir()
    os.symlink(tmp_path / "raw", tmp_path / "pool" / "raw")
    res = normalize_upload(two, "up1", workers=2)
    assert res.decoded == 3 and [r.model_dump() for r in read_audio_index(two, "up1")] == rows1


def test_unknown_locale_reports_the_whole_upload_without_crashing(tmp_path):
    up = make_upload(tmp_path, yaml_text=UPLOAD_YAML.replace("en-US", "tlh-QO"))
    write_wav(up / "a.wav")
    layout = DataLayout.at(tmp_path)
    res = normalize_upload(layout, "up1")
    assert res.recordings == 0 and res.failed == 1 and read_audio_index(layout, "up1") == []
    report = json.loads((tmp_path / "work/up1/report.json").read_text())
    codes = {(i["file"], i.get("field"), i["code"]) for i in report["issues"]}
    assert ("up1/upload.yaml", "locale", "descriptor_value_error") in codes
    assert ("up1/a.wav", None, "audio_upload_descriptor_invalid") in codes
    assert not (tmp_path / "audio").exists()


def test_a_rejected_csv_row_holds_its_file_back(tmp_path):
    up = make_upload(tmp_path, csv_text='file,channel_map\na.wav,{not json}\n')
    write_wav(up / "a.wav")
    write_wav(up / "b.wav", seed=1)
    layout = DataLayout.at(tmp_path)
    res = normalize_upload(layout, "up1")
    assert [r.source_file for r in read_audio_index(layout, "up1")] == ["b.wav"]
    assert {i.code for i in res.issues} == {"descriptor_csv_json_invalid", "audio_settings_row_rejected"}


def test_colliding_conversation_ids_are_reported(tmp_path):
    up = make_upload(tmp_path)
    write_wav(up / "a.wav")
    write_wav(up / "a.flac", seed=1)
    res = normalize_upload(DataLayout.at(tmp_path), "up1")
    assert res.recordings == 1 and [i.code for i in res.issues] == ["audio_conv_id_collision"]


def test_raw_files_are_never_touched(tmp_path):
    up = messy_upload(tmp_path)
    os.chmod(up, 0o755)

    def snapshot():
        return {p.relative_to(up).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
                for p in sorted(up.rglob("*")) if p.is_file()}

    before = snapshot()
    listing = sorted(os.listdir(up))
    layout = DataLayout.at(tmp_path)
    normalize_upload(layout, "up1")
    normalize_upload(layout, "up1", workers=2)
    assert snapshot() == before and sorted(os.listdir(up)) == listing


def test_inventory_kinds_hashes_and_fingerprint(tmp_path):
    up = make_upload(tmp_path, csv_text="file\n")
    write_wav(up / "sub" / "a.wav")
    for name in ("x.aidb.jsonl", "x.messages.jsonl", "x.vakforge.jsonl", "x.events.jsonl", "x.m4a", "y.MP3", "z.bin"):
        (up / name).write_text("{}\n", encoding="utf-8")
    inv = inventory(up)
    kinds = {f.name: f.kind for f in inv.files}
    assert kinds == {"upload.yaml": "descriptor", "recordings.csv": "descriptor", "sub/a.wav": "audio",
                     "x.aidb.jsonl": "aidb", "x.messages.jsonl": "messages", "x.vakforge.jsonl": "vakforge",
                     "x.events.jsonl": "events", "x.m4a": "audio", "y.MP3": "audio", "z.bin": "unknown"}
    assert inv.fingerprint == fingerprint(up)
    f = next(f for f in inv.files if f.name == "upload.yaml")
    import hashlib
    assert f.sha256 == hashlib.sha256((up / "upload.yaml").read_bytes()).hexdigest()
    os.utime(up / "z.bin", ns=(1, 1))
    assert fingerprint(up) != inv.fingerprint  # a touched file changes the fingerprint


def test_inspection_of_output_is_consistent_with_the_wav(tmp_path):
    up = make_upload(tmp_path)
    x = np.zeros((44100, 2), dtype=np.float32)
    x[:, 0] = 0.5
    write_wav(up / "dc.wav", data=x, rate=44100, subtype="FLOAT")
    normalize_upload(DataLayout.at(tmp_path), "up1")
    [row] = read_audio_index(DataLayout.at(tmp_path), "up1")
    assert row.inspect.silence_ratio < 0.05 and row.inspect.rms_dbfs[1] < -90
    assert abs(row.inspect.rms_dbfs[0] - 20 * np.log10(0.5)) < 0.2
