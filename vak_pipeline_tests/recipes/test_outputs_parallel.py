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


@pytest.fixture(scope="module")
def spoken_dataset(tmp_path_factory) -> Path:
    """24 calls whose text holds placeholders: synthesized ones whose audio speaks surrogates (synth's sidecars
    under work/, read by every worker) and recordings whose placeholders are masked."""
    from vak_pipeline.schema import Alignment, AudioSynthesis, Word
    from vak_pipeline_tests.builders import turn

    root = tmp_path_factory.mktemp("parallel-spoken")
    (root / "raw" / "up").mkdir(parents=True)
    (root / "alignments").mkdir()
    records = []
    for i in range(24):
        cid = f"s{i:03d}"
        write_wav(root / "audio" / f"{cid}.wav", [tone(300 + 10 * i, 4.0), tone(700, 4.0)])
        audio = make_audio(cid, 4.0)
        synthesized = i % 2 == 0
        if synthesized:
            audio = audio.model_copy(update={"synthesis": AudioSynthesis(
                engine="espeak-ng", engine_version="1.51", voices={"agent": f"a{i % 3}", "user": f"u{i}"},
                settings_hash="x")})
            side = root / "work" / "up" / "synth" / f"{cid}.json"
            side.parent.mkdir(parents=True, exist_ok=True)
            side.write_text(json.dumps({"conversation_id": cid, "surrogates": [
                {"placeholder": "<ID_1>", "type": "ID", "value": f"TW-{i}", "spoken": f"T W, {i} 4 9",
                 "turn": 1, "start_s": 2.1, "end_s": 3.0, "channel": 1}]}))
        words = [Word(word="hello", start=0.1, end=0.4, speaker="agent", turn=0),
                 Word(word="my", start=1.3, end=1.5, speaker="user", turn=1),
                 Word(word="id", start=1.6, end=1.8, speaker="user", turn=1),
                 Word(word="is", start=1.9, end=2.0, speaker="user", turn=1)]
        words += ([Word(word=w, start=2.1 + 0.3 * k, end=2.3 + 0.3 * k, speaker="user", turn=1)
                   for k, w in enumerate(["T", "W,", str(i), "4", "9"])] if synthesized
                  else [Word(word="<ID_1>", start=2.1, end=3.0, speaker="user", turn=1)])
        words += [Word(word="thank", start=3.8, end=3.9, speaker="agent", turn=2),
                  Word(word="you", start=3.9, end=3.98, speaker="agent", turn=2)]
        (root / "alignments" / f"{cid}.json").write_text(Alignment(conversation_id=cid, words=words)
                                                         .model_dump_json())
        turns = [turn("agent", 0.0, 1.0, "hello"), turn("user", 1.2, 3.6, "my id is <ID_1>"),
                 turn("agent", 3.7, 4.0, "thank you")]
        records.append(make_record(cid, {"agent": f"a{i % 3}", "user": f"u{i}"}, turns, audio=audio))
    write_manifest(root / "vakforge.jsonl", records)
    split_manifest(root / "vakforge.jsonl", root / "splits.json",
                   SplitConfig(seed=2, ratios={"train": 0.5, "validation": 0.0, "test": 0.5}))
    return root


@pytest.mark.parametrize(("export", "config_cls", "extra"), EXPORTS, ids=lambda x: getattr(x, "__name__", ""))
def test_a_sharded_export_with_surrogates_is_the_same_bytes_as_a_one_process_export(
        spoken_dataset, tmp_path, monkeypatch, export, config_cls, extra):
    monkeypatch.setattr(shards, "PARALLEL_MIN_BYTES", 0)
    one = export(spoken_dataset, config_cls(**extra), out_dir=tmp_path / "one")
    three = export(spoken_dataset, config_cls(workers=3, **extra), out_dir=tmp_path / "three")
    assert one.counts == three.counts and one.data_version == three.data_version
    files = _files(one.out_dir)
    assert files == _files(three.out_dir)
    text = b"".join(v for k, v in files.items() if not k.endswith((".wav", ".tar")))
    if export is not export_turn_based:  # (turn-based gives the user's turns as audio, not text)
        assert b"T W, 0 4 9" in text or b'["W,",' in text, sorted(files)  # the surrogate the audio speaks
    assert b"<ID_1>" not in b"".join(v for k, v in files.items() if k.endswith((".json", ".csv")))


def test_a_sharded_parquet_export_with_surrogates_holds_the_same_spoken_text(spoken_dataset, tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from vak_pipeline.recipes.parquet import ParquetConfig, export_parquet

    monkeypatch.setattr(shards, "PARALLEL_MIN_BYTES", 0)
    one = export_parquet(spoken_dataset, ParquetConfig(rows_per_file=5), out_dir=tmp_path / "one")
    three = export_parquet(spoken_dataset, ParquetConfig(rows_per_file=5, workers=3), out_dir=tmp_path / "three")

    def rows(result):
        return [row for f in sorted((result.out_dir / "data").glob("*.parquet"))
                for row in pq.read_table(f).to_pylist()]

    assert rows(one) == rows(three) and one.data_version == three.data_version
    spoken = [t["spoken_text"] for row in rows(one) for t in row["turns"] if t["spoken_text"]]
    assert any("T W, 0 4 9" in s for s in spoken) and not any("<ID_1>" in s for s in spoken)
