"""Parquet/HF export: loadable with `datasets`, same layout as the JSONL, JSON-string columns round-trip."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import soundfile as sf
import yaml

from vak_pipeline.manifest_hash import manifest_hash
from vak_pipeline.recipes.parquet import ParquetConfig, export_parquet, write_parquet
from vak_pipeline.schema import VakRecord
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import make_audio, make_record, tone, write_manifest, write_wav

FIXTURE = Path(__file__).parents[1] / "fixtures" / "format" / "example_record.json"


@pytest.fixture
def root(tmp_path):
    example = VakRecord.model_validate_json(FIXTURE.read_text())
    example.meta.speakers = {"agent": "priya", "user": "cust-17"}
    example.meta.__pydantic_extra__["upload"] = "batch-7"  # importer provenance kept in meta
    write_wav(tmp_path / "audio" / "conv_000123.wav", [tone(440, 1.0), tone(1000, 1.0)])
    records = [example] + [make_record(f"c{i}", {"agent": f"a{i}", "user": f"u{i}"}, locale="en-GB",
                                       license="cc-by-4.0") for i in range(19)]
    records.append(make_record("unconsented", {"user": "x"}, source="real", consent="none", allow_unconsented=True))
    write_manifest(tmp_path / "vakforge.jsonl", records)
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json", SplitConfig(seed=4))
    return tmp_path


def test_datasets_loads_every_split_and_values_round_trip(root, tmp_path):
    import datasets

    result = export_parquet(root, ParquetConfig(embed_audio=True))
    files = {s: str(result.out_dir / "data" / f"{s}-*.parquet") for s in ("train", "validation", "test")}
    ds = datasets.load_dataset("parquet", data_files=files, cache_dir=str(tmp_path / "hf-cache"))
    assert sum(ds[s].num_rows for s in ds) == 20  # consent "none" is never published
    splits = json.loads((root / "splits.json").read_text())["assignment"]
    rows = {r["id"]: r for s in ds for r in ds[s]}
    assert all(rows[i]["split"] == splits[i] for i in rows)
    ex = rows["conv_000123"]
    original = json.loads(FIXTURE.read_text())
    assert ex["turns"][3]["tool_call"]["name"] == "check_status"
    assert json.loads(ex["turns"][3]["tool_call"]["arguments"]) == original["turns"][3]["tool_call"]["arguments"]
    assert json.loads(ex["turns"][4]["tool_result"]["content"]) == original["turns"][4]["tool_result"]["content"]
    assert json.loads(ex["tools"][1]["parameters"]) == original["tools"][1]["parameters"]
    assert json.loads(ex["audio_info"]["channel_map"]) == {"0": "user", "1": "agent"}
    assert json.loads(ex["meta"]["extra"]) == {"upload": "batch-7"}
    # embedded as lossless FLAC (the default audio_format): the published file's samples, bit for bit
    published = root / "audio" / "conv_000123.wav"
    flac, rate = sf.read(io.BytesIO(ex["audio"]["bytes"]), dtype="int16")
    assert ex["audio"]["path"] == "conv_000123.flac" and rate == 24000
    assert np.array_equal(flac, sf.read(published, dtype="int16")[0])
    # with audio_format wav and no redaction log naming a span, the published file's bytes as they are
    wav = export_parquet(root, ParquetConfig(audio_format="wav"), out_dir=tmp_path / "wav")
    table = pq.read_table(sorted((wav.out_dir / "data").glob("*.parquet"))).to_pylist()
    assert next(r["audio"]["bytes"] for r in table if r["id"] == "conv_000123") == published.read_bytes()
    assert rows["c1"]["audio"] is None and rows["c1"]["audio_info"] is None
    assert result.flags["no_audio"] == 19


def test_dataset_card_header_points_at_every_split(root):
    result = export_parquet(root)
    card = (result.out_dir / "README.md").read_text()
    header = yaml.safe_load(card.split("---")[1])
    assert header["configs"][0]["data_files"] == [{"split": s, "path": f"data/{s}-*"}
                                                  for s in ("train", "validation", "test")]
    assert header["license"] == "other" and set(header["language"]) == {"hi", "en"}
    assert "| en-GB | 19 |" in card and "| hi-Latn-IN | 1 |" in card
    build = json.loads((result.out_dir / "build.json").read_text())
    assert build["manifest_hash"] == manifest_hash(root / "vakforge.jsonl")
    assert build["counts"]["rows"] == 20 and "turns[].tool_call.arguments" in build["json_string_columns"]
    # a file per split and manifest shard with rows of it (recipes.incremental: each upload's run of lines, here
    # batch-7's one record, then the 20 without an upload)
    assert [p.name for p in sorted((result.out_dir / "data").iterdir())] == [
        "test-00000-of-00001.parquet", "train-00000-of-00002.parquet", "train-00001-of-00002.parquet",
        "validation-00000-of-00001.parquet"]


def test_rows_per_file_shards_a_split(root):
    result = export_parquet(root, ParquetConfig(rows_per_file=2, batch_size=1))
    train = sorted((result.out_dir / "data").glob("train-*.parquet"))
    n = len(train)
    assert n > 1 and train[-1].name == f"train-{n - 1:05d}-of-{n:05d}.parquet"
    assert sum(pq.ParquetFile(p).metadata.num_rows for p in train) == result.counts["rows_train"]


def test_write_parquet_streams_any_rows_in_row_groups(tmp_path):
    schema = pa.schema([("id", pa.string()), ("n", pa.int64())])
    n = write_parquet(({"id": str(i), "n": i} for i in range(25)), tmp_path / "x.parquet", schema, batch_size=10)
    f = pq.ParquetFile(tmp_path / "x.parquet")
    assert n == 25 and f.metadata.num_rows == 25 and f.metadata.num_row_groups == 3
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp file left


def test_write_parquet_leaves_nothing_on_failure(tmp_path):
    def rows():
        yield {"id": "a"}
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_parquet(rows(), tmp_path / "y.parquet", pa.schema([("id", pa.string())]))
    assert list(tmp_path.iterdir()) == []


def test_an_empty_split_gets_no_file_and_no_card_entry(tmp_path):
    write_manifest(tmp_path / "vakforge.jsonl", [make_record("a", {"user": "u"}), make_record("b", {"user": "u"})])
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json")
    result = export_parquet(tmp_path)
    header = yaml.safe_load((result.out_dir / "README.md").read_text().split("---")[1])
    assert [f["split"] for f in header["configs"][0]["data_files"]] == ["train"]
    assert [p.name for p in (result.out_dir / "data").iterdir()] == ["train-00000-of-00001.parquet"]


def test_rows_without_a_recording_have_a_null_audio(tmp_path):
    write_manifest(tmp_path / "vakforge.jsonl", [make_record("a", audio=None), make_record(
        "b", audio=make_audio("b"))])
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json")
    result = export_parquet(tmp_path)
    table = pq.read_table(next((result.out_dir / "data").glob("train-*")))
    assert "audio_bytes" not in table.column_names and table.num_rows == result.counts["rows_train"]
    assert table.column("audio").null_count == table.num_rows  # "b" names a file that is not there
