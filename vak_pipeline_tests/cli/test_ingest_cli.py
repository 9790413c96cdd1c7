"""`vak inspect`: the inspection table for a file or a folder, and --format json."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from vak_pipeline.cli import app

from ..ingest_fixtures import write_wav


def test_inspect_json_for_a_folder_reports_good_and_bad_files(tmp_path):
    write_wav(tmp_path / "a.wav", seconds=1.5, rate=16000, channels=1)
    write_wav(tmp_path / "sub" / "b.flac", seconds=1.0, rate=8000)
    (tmp_path / "bad.wav").write_bytes(b"")
    res = CliRunner().invoke(app, ["inspect", str(tmp_path), "--format", "json"])
    assert res.exit_code == 1  # one file could not be inspected
    lines = [json.loads(x) for x in res.output.splitlines() if x.strip()]
    by_file = {d["file"]: d for d in lines}
    assert by_file["a.wav"]["sample_rate"] == 16000 and by_file["a.wav"]["duration_s"] == 1.5
    assert by_file["sub/b.flac"]["channels"] == 2 and any("narrowband" in n for n in by_file["sub/b.flac"]["notes"])
    assert by_file["bad.wav"]["code"] == "audio_empty_file" and by_file["bad.wav"]["fix"]


def test_inspect_table_for_one_file(tmp_path):
    write_wav(tmp_path / "a.wav", seconds=1.0)
    res = CliRunner().invoke(app, ["inspect", str(tmp_path / "a.wav")], env={"COLUMNS": "200"})
    assert res.exit_code == 0 and "a.wav" in res.output and "44100" in res.output
