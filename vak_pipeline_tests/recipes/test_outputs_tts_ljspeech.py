"""cascaded tts/<voice>/metadata.csv through the two readers that consume it.

- coqui-TTS `ljspeech` formatter, replicated (the TTS package is too heavy for CI), from
  coqui-ai/TTS TTS/tts/datasets/formatters.py @ 0ff939292c49921e96d2936d0d746eca79b0cec3, `ljspeech()`:
  each line split on "|", wav = <root>/wavs/<cols[0]>.wav, text = cols[2] (IndexError with two columns).
- Piper `piper_train.preprocess.ljspeech_dataset`, replicated, from
  rhasspy/piper src/python/piper_train/preprocess.py @ 12ed642edda4983df1114679c815ca85a92c0958: Python's
  csv.reader(delimiter="|") over the file; with --single-speaker, filename = row[0] and text = row[-1];
  the wav is <dir>/<filename>, <dir>/<filename>.wav or wavs/<filename>.wav.
Python's csv module is the real reader Piper uses, so that half is the consumer's own code.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

from vak_pipeline.recipes.cascaded import export_cascaded
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


def piper_ljspeech(dataset_dir: Path) -> list[tuple[str, Path]]:
    """Replica of piper_train.preprocess.ljspeech_dataset with --single-speaker (see module docstring)."""
    out = []
    with open(dataset_dir / "metadata.csv", encoding="utf-8") as fh:
        for row in csv.reader(fh, delimiter="|"):
            assert len(row) >= 2, "Not enough columns"
            filename, text = row[0], row[-1]
            for wav in (
                dataset_dir / filename,
                dataset_dir / f"{filename}.wav",
                dataset_dir / "wavs" / filename,
                dataset_dir / "wavs" / f"{filename}.wav",
            ):
                if wav.exists():
                    break
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
    rows = piper_ljspeech(voice)
    assert len(rows) == result.counts["tts_clips"] == len(TEXTS)
    assert all(wav.is_file() for _, wav in rows)
    for (text, _), original in zip(rows, TEXTS, strict=True):
        assert text.replace("\u201c", '"').replace("\u201d", '"') == original  # no quote swallowed
    assert '"' not in (voice / "metadata.csv").read_text()
