"""Exports on several processes: the manifest is cut into shards, one worker per shard, and the joined
export holds the same bytes as a one-process build (indexes and skipped rows in manifest order)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vak_pipeline.recipes import shards
from vak_pipeline.recipes.cascaded import CascadedConfig, export_cascaded
from vak_pipeline.recipes.moshi_lora import MoshiConfig, export_moshi_lora
from vak_pipeline.recipes.turn_based import TurnBasedConfig, export_turn_based
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import make_audio, make_record, tone, write_manifest, write_wav

EXPORTS = [(export_cascaded, CascadedConfig, {"tts_splits": ["train", "test"]}),
           (export_turn_based, TurnBasedConfig, {}),
           (export_moshi_lora, MoshiConfig, {})]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """40 conversations: stereo calls of 4 agent voices, text-only chats, one record whose audio is missing,
    one unanswered-looking chat that the chat rules skip, in two splits."""
    root = tmp_path_factory.mktemp("parallel")
    records = []
    for i in range(40):
        cid = f"c{i:03d}"
        speakers = {"agent": f"voice{i % 4}", "user": f"cust{i}"}
        if i % 3 == 0:
            records.append(make_record(cid, speakers))  # text only
            continue
        if i != 7:  # c007's audio is missing: skipped with a reason, in order
            write_wav(root / "audio" / f"{cid}.wav", [tone(300 + 10 * i, 4.0), tone(900, 4.0)])
        records.append(make_record(cid, speakers, audio=make_audio(cid, 4.0)))
    write_manifest(root / "vakforge.jsonl", records)
    split_manifest(root / "vakforge.jsonl", root / "splits.json",
                   SplitConfig(seed=2, ratios={"train": 0.5, "validation": 0.0, "test": 0.5}))
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "build.json"}


@pytest.mark.parametrize(("export", "config_cls", "extra"), EXPORTS, ids=lambda x: getattr(x, "__name__", ""))
def test_a_sharded_export_is_the_same_bytes_as_a_one_process_export(dataset, tmp_path, monkeypatch, export,
                                                                    config_cls, extra):
    monkeypatch.setattr(shards, "PARALLEL_MIN_BYTES", 0)  # shard even this small manifest
    sharded: list[int] = []
    run_shards = shards._run_shards
    monkeypatch.setattr(shards, "_run_shards", lambda build, body, spans: (sharded.append(len(spans)),
                                                                            run_shards(build, body, spans)))
    one = export(dataset, config_cls(**extra), out_dir=tmp_path / "one")
    three = export(dataset, config_cls(workers=3, **extra), out_dir=tmp_path / "three")
    assert sharded == [3]
    assert one.counts and one.counts == three.counts
    assert (one.skipped, one.flags) == (three.skipped, three.flags)
    assert one.data_version == three.data_version  # workers change how, never what
    files = _files(one.out_dir)
    assert files == _files(three.out_dir)
    assert not [f for f in files if ".part-" in f]
    skipped = [json.loads(x) for x in files[one.skipped_path.name].decode().splitlines()]
    assert any(row["id"] == "c007" for row in skipped)


def test_shards_cover_the_manifest_once_in_order(dataset):
    from vak_pipeline.storage import iter_jsonl, line_spans

    whole = [(j.line, j.raw) for j in iter_jsonl(dataset / "vakforge.jsonl", parse=False)]
    spans = line_spans(dataset / "vakforge.jsonl", 3)
    assert len(spans) == 3 and spans[0][:1] == (0,) and spans[-1][1] is None
    assert [(j.line, j.raw) for s in spans for j in iter_jsonl(dataset / "vakforge.jsonl", parse=False, span=s)] \
        == whole


def test_a_sharded_parquet_export_holds_the_same_rows_in_the_same_order(dataset, tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from vak_pipeline.recipes.parquet import ParquetConfig, export_parquet

    monkeypatch.setattr(shards, "PARALLEL_MIN_BYTES", 0)
    one = export_parquet(dataset, ParquetConfig(rows_per_file=8), out_dir=tmp_path / "one")
    three = export_parquet(dataset, ParquetConfig(rows_per_file=8, workers=3), out_dir=tmp_path / "three")
    assert one.counts == three.counts and one.data_version == three.data_version
    def rows(result, split):
        files = sorted((result.out_dir / "data").glob(f"{split}-*.parquet"))
        assert files[-1].name.endswith(f"-of-{len(files):05d}.parquet")
        return [row for f in files for row in pq.read_table(f).to_pylist()]

    for split in ("train", "test"):
        assert rows(one, split) == rows(three, split) and len(rows(one, split)) == one.counts[f"rows_{split}"]
    assert (one.out_dir / "README.md").read_text() == (three.out_dir / "README.md").read_text()
