"""Transcription on the stage core: one ledger entry per recording (key: audio sha + ASR, clean-up and
diarizer settings + TRANSCRIBE_VERSION; outputs: where its transcript line is). A second run transcribes
nothing, a changed setting re-keys, and a failed recording is reported again, not retried."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vak_pipeline.audio.stage import normalize_upload
from vak_pipeline.core.stage import Ledger
from vak_pipeline.layout import DataLayout
from vak_pipeline.speech.asr import AsrSettings
from vak_pipeline.speech.stage import STAGE, cache_key, read_audio_rows, transcribe_upload

pytestmark = pytest.mark.slow  # real tiny.en

FIX = Path(__file__).parents[1] / "fixtures" / "speech"
FAST = AsrSettings(beam_size=1, cpu_threads=2, device="cpu")
UPLOAD = "calls"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three runs: the first (one recording's wav unreadable), an unchanged second run after that wav was
    repaired, and a third with another beam size. Returns the layout, the results and the files in between."""
    root = tmp_path_factory.mktemp("data")
    up = root / "raw" / UPLOAD
    up.mkdir(parents=True)
    shutil.copy(FIX / "stereo_two_voices.flac", up / "a.flac")
    shutil.copy(FIX / "stereo_two_voices.flac", up / "b.flac")
    shutil.copy(FIX / "mono_two_voices.flac", up / "mono.flac")
    (up / "upload.yaml").write_text('locale: en-US\nsource: synthetic\nconsent: synthetic\n'
                                    'channel_map: {"0": "user", "1": "agent"}\n', encoding="utf-8")
    layout = DataLayout.at(root)
    assert normalize_upload(layout, UPLOAD).recordings == 3
    rows = {r.source_file: r for r in read_audio_rows(layout, UPLOAD, [])}
    wav_b = root / rows["b.flac"].path
    good_b = wav_b.read_bytes()
    wav_b.write_bytes(b"RIFF not really a wav")
    first = transcribe_upload(layout, UPLOAD, FAST)
    snapshot = {"transcripts": layout.transcripts(UPLOAD).read_bytes(),
                "ledger": Ledger.load(layout.stage_ledger(UPLOAD, STAGE)).previous}
    wav_b.write_bytes(good_b)  # repaired, but its key did not change
    second = transcribe_upload(layout, UPLOAD, FAST)
    snapshot["transcripts_second"] = layout.transcripts(UPLOAD).read_bytes()
    snapshot["report_second"] = json.loads(layout.speech_report(UPLOAD).read_text())[STAGE]
    third = transcribe_upload(layout, UPLOAD, FAST.model_copy(update={"beam_size": 2}))
    return layout, rows, (first, second, third), snapshot


def test_the_ledger_has_one_entry_per_recording_keyed_like_its_transcript(runs):
    layout, rows, (first, _, _), snap = runs
    assert (first.transcribed, first.failed, first.needs_diarization, first.conversations) == (1, 1, 1, 1)
    ledger = snap["ledger"]
    assert set(ledger) == {r.conv_id for r in rows.values()}
    a, b, mono = (ledger[rows[f].conv_id] for f in ("a.flac", "b.flac", "mono.flac"))
    assert a.key == cache_key(rows["a.flac"], FAST, None) and a.failure is None
    assert json.loads(snap["transcripts"])["cache_key"] == a.key
    assert b.failure.code == "transcription_failed" and mono.failure.code == "needs_diarization"
    place = a.outputs["line"]  # where its transcript line is
    assert snap["transcripts"][place["at"]:place["at"] + place["len"]] == snap["transcripts"]


def test_a_second_run_with_nothing_changed_transcribes_nothing_and_writes_the_same_bytes(runs):
    _, _, (_, second, _), snap = runs
    assert (second.transcribed, second.skipped, second.conversations) == (0, 1, 1)
    assert snap["transcripts_second"] == snap["transcripts"]
    assert (snap["report_second"]["counts"]["transcribed"], snap["report_second"]["counts"]["skipped"]) == (0, 1)


def test_a_failed_recording_is_reported_again_not_retried(runs):
    _, _, (first, second, _), _ = runs
    # its wav was repaired before the second run: a retry would have transcribed it
    assert second.failed == 1 and second.transcribed == 0
    assert [(i.code, i.file) for i in second.issues] == [(i.code, i.file) for i in first.issues]
    assert {i.code for i in second.issues} == {"transcription_failed", "needs_diarization"}


def test_a_changed_setting_rekeys_every_recording(runs):
    layout, rows, (_, _, third), _ = runs
    assert (third.transcribed, third.skipped, third.failed, third.conversations) == (2, 0, 0, 2)
    beam2 = FAST.model_copy(update={"beam_size": 2})
    keys = {k: e.key for k, e in Ledger.load(layout.stage_ledger(UPLOAD, STAGE)).previous.items()}
    assert keys[rows["a.flac"].conv_id] == cache_key(rows["a.flac"], beam2, None)
    assert keys[rows["a.flac"].conv_id] != cache_key(rows["a.flac"], FAST, None)
