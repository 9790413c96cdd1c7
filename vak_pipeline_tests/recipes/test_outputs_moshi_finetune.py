"""moshi_lora through moshi-finetune's data loading: its data-source parsing (replicated) and `sphn`
(the real reader it calls, from PyPI).

Replicated from kyutai-labs/moshi-finetune finetune/data/dataset.py @ 2acc879fe7c48f885a18f6cc9548bccb2674d87b:
`parse_data_sources` (a path is a DataDir when it is a folder: every `rglob("*jsonl")` file under it; else a
DataFile), `get_dataset_iterator` (sphn.dataset_jsonl(..., sample_rate=24000 [Mimi], duration_sec,
pad_last_segment=True).seq(...), then `sample["data"][..., :sample["unpadded_len"]]`) and, from
finetune/data/interleaver.py, `InterleavedTokenizer.__call__` (alignments read from
splitext(path)[0] + ".json", binary-searched by start time, so they must be sorted).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import yaml

from vak_pipeline.recipes.moshi_lora import MoshiConfig, export_moshi_lora
from vak_pipeline.splits import split_manifest
from vak_pipeline_tests.builders import (
    make_audio,
    make_record,
    tone,
    turn,
    write_manifest,
    write_phone_redaction_log,
    write_wav,
)

sphn = pytest.importorskip("sphn")  # the dev extra; moshi-finetune's own audio reader
MIMI_RATE = 24000
MASK = (1.5, 2.3)  # where the redaction stage put its 1 kHz tone, on the agent channel (0)


def moshi_sources(data: str) -> list[Path]:
    """Replica of parse_data_sources + DataDir/DataFile.jsonl_files (weights ignored)."""
    files: list[Path] = []
    for source in data.strip().split(","):
        if not source:
            continue
        path = Path(source.strip().split(":")[0])
        if path.is_dir():
            found = list(path.rglob("*jsonl"))
            assert found, f"{path} does not seem to have any files ending with '.jsonl'"
            files += found
        else:
            assert path.exists()
            files.append(path)
    return files


def moshi_samples(jsonl: Path, duration_sec: float = 100.0) -> list[tuple[np.ndarray, float, str, list]]:
    """get_dataset_iterator (one finite pass, rank 0 of 1) + the alignment read of InterleavedTokenizer."""
    out = []
    dataset = sphn.dataset_jsonl(
        str(jsonl), duration_sec=duration_sec, num_threads=1, sample_rate=MIMI_RATE, pad_last_segment=True
    )
    for sample in dataset.seq(skip=0, step_by=1):
        wav = sample["data"][..., : sample["unpadded_len"]]
        with open(os.path.splitext(sample["path"])[0] + ".json") as f:
            alignments = json.load(f)["alignments"]
        out.append((wav, sample["start_time_sec"], sample["path"], alignments))
    return out


def call(root: Path, n: int) -> object:
    agent = tone(300, 4.0)
    a, b = int(MASK[0] * 24000), int(MASK[1] * 24000)
    agent[a:b] = tone(1000, MASK[1] - MASK[0])[: b - a]  # what the published (redacted) recording holds
    write_wav(root / "audio" / f"c{n}.wav", [agent, tone(500, 4.0)])
    write_phone_redaction_log(root, f"c{n}", 11, 20, MASK, channel=0)
    turns = [
        turn("user", 0.0, 1.0, "hello there"),
        turn("agent", 1.1, 2.5, "my number is <PHONE_1>"),
        turn("user", 2.6, 3.0, "ok"),
        turn("agent", 3.1, 4.0, "anything else"),
    ]
    return make_record(
        f"c{n}",
        {"agent": f"agent{n}", "user": f"user{n}"},
        turns,
        audio=make_audio(f"c{n}", 4.0),
        redaction_log=f"redactions/c{n}.json",
    )


@pytest.fixture
def export(tmp_path):
    records = [call(tmp_path, n) for n in range(3)] + [make_record(f"t{n}", {"user": f"tu{n}"}) for n in range(9)]
    write_manifest(tmp_path / "vakforge.jsonl", records)
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json")  # default ratios, speaker-disjoint
    return export_moshi_lora(tmp_path)


def test_the_export_folder_as_a_data_dir_reads_only_split_indexes(export):
    files = sorted(p.name for p in moshi_sources(str(export.out_dir)))
    assert files == ["test.jsonl", "train.jsonl", "validation.jsonl"]  # diagnostics are .ndjson
    assert export.skipped_path.name == "skipped.ndjson" and export.skipped_path.is_file()


def test_every_split_has_speech_and_the_yaml_points_at_train_and_validation(export, monkeypatch):
    block = yaml.safe_load((export.out_dir / "moshi_finetune.yaml").read_text())
    assert block["data"] == {"train_data": "train.jsonl", "eval_data": "validation.jsonl", "shuffle": True}
    monkeypatch.chdir(export.out_dir)  # the yaml's paths are relative to the export folder
    for key in ("train_data", "eval_data"):
        (jsonl,) = moshi_sources(block["data"][key])
        assert len(moshi_samples(jsonl)) == 1
    assert len(moshi_samples(Path("test.jsonl"))) == 1
    assert json.loads(Path("build.json").read_text())["empty_splits"] == {}


def test_the_agent_channel_is_silent_where_a_number_was_said_and_no_word_is_timed_there(export):
    samples = [s for split in ("train", "validation", "test") for s in moshi_samples(export.out_dir / f"{split}.jsonl")]
    for wav, start, _, alignments in samples:
        assert wav.shape[0] == 2 and start == 0.0
        a, b = int(MASK[0] * MIMI_RATE), int(MASK[1] * MIMI_RATE)
        assert np.abs(wav[0, a:b]).max() == 0.0  # no 1 kHz beep for Moshi to learn
        assert np.abs(wav[0, : a - 2400]).max() > 0.1 and np.abs(wav[1, a:b]).max() > 0.1  # the rest is kept
        starts = [w[1][0] for w in alignments]
        assert starts == sorted(starts)
        assert not [w for w in alignments if w[2] == "SPEAKER_MAIN" and MASK[0] <= w[1][0] < MASK[1]]
        assert not [w for w in alignments if "<" in w[0]]


def test_the_tone_is_kept_only_when_asked_for(tmp_path):
    records = [call(tmp_path, 0)]
    write_manifest(tmp_path / "vakforge.jsonl", records)
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json")
    result = export_moshi_lora(tmp_path, MoshiConfig(redacted_audio="tone"))
    (jsonl,) = [p for p in moshi_sources(str(result.out_dir)) if p.stat().st_size]
    wav = moshi_samples(jsonl)[0][0]
    a, b = int(MASK[0] * MIMI_RATE), int(MASK[1] * MIMI_RATE)
    spectrum = np.abs(np.fft.rfft(wav[0, a:b]))
    assert np.fft.rfftfreq(b - a, 1 / MIMI_RATE)[spectrum.argmax()] == pytest.approx(1000, abs=5)
