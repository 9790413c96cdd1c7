"""The Parquet export through `datasets` itself: the dataset card's own loading snippet runs from the export
folder, and `cast_column("audio", Audio())` finds the audio there (embedded bytes or a path inside it)."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
import soundfile as sf

from vak_pipeline.recipes.parquet import ParquetConfig, export_parquet
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import (
    make_audio,
    make_record,
    make_tool,
    tone,
    tool_call,
    tool_result,
    turn,
    write_manifest,
    write_phone_redaction_log,
    write_wav,
)

datasets = pytest.importorskip("datasets")  # the `hf` extra, installed by ./dev test
ALL_TRAIN = SplitConfig(ratios={"train": 1.0, "validation": 0.0, "test": 0.0})
MASK = (1.2, 1.8)  # seconds on channel 0 (the agent), where the redaction stage wrote its tone


@pytest.fixture
def root(tmp_path):
    agent = tone(1000, 4.0)
    write_wav(tmp_path / "audio" / "c1.wav", [agent, tone(440, 4.0)])
    write_phone_redaction_log(tmp_path, "c1", 8, 17, MASK, channel=0)
    turns = [
        turn("user", 0.0, 1.0, "hello"),  # the first turn has no tool call: the old snippet's TypeError
        turn("agent", 1.1, 2.0, "call me <PHONE_1>"),
        tool_call(2.0, "call_1", "check_status", customer_id="SC-1"),
        tool_result(2.0, "call_1", {"status": "ok"}),
        turn("agent", 2.2, 3.0, "all good"),
    ]
    rec = make_record(
        "c1",
        {"agent": "a", "user": "u"},
        turns,
        audio=make_audio("c1", 4.0),
        tools=[make_tool("check_status", customer_id="string")],
        redaction_log="redactions/c1.json",
    )
    write_manifest(tmp_path / "vakforge.jsonl", [rec, make_record("t1", {"user": "u2"})])
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json", ALL_TRAIN)
    return tmp_path


def card_snippet(out) -> str:
    card = (out / "README.md").read_text()
    return re.search(r"```python\n(.*?)```", card, re.DOTALL).group(1)


def run_snippet(out, monkeypatch, tmp_path) -> dict:
    monkeypatch.chdir(out)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    scope: dict = {}
    exec(compile(card_snippet(out), "README.md", "exec"), scope)  # the card's own code, as a user runs it
    return scope


def test_the_card_snippet_runs_and_reads_the_tool_calls(root, monkeypatch, tmp_path):
    out = export_parquet(root).out_dir
    scope = run_snippet(out, monkeypatch, tmp_path)
    assert scope["calls"] == [("check_status", {"customer_id": "SC-1"})]
    assert isinstance(scope["ds"]["train"].features["audio"], datasets.Audio)


def test_embedded_audio_decodes_with_the_redacted_span_silent(root, monkeypatch, tmp_path):
    out = export_parquet(root).out_dir
    scope = run_snippet(out, monkeypatch, tmp_path)
    rows = {r["id"]: r for r in scope["ds"]["train"].cast_column("audio", datasets.Audio(decode=False))}
    assert rows["t1"]["audio"] is None
    data, rate = sf.read(io.BytesIO(rows["c1"]["audio"]["bytes"]), dtype="int16", always_2d=True)
    assert rate == 24000 and data.shape == (96000, 2)
    a, b = int(MASK[0] * rate), int(MASK[1] * rate)
    assert not data[a:b, 0].any()  # silence, not the tone
    assert np.abs(data[: a - 4000, 0]).max() > 5000 and np.abs(data[a:b, 1]).max() > 5000  # the rest untouched
    try:  # full decoding needs torchcodec with FFmpeg libraries, which a bare CI machine may lack
        decoded = scope["ds"]["train"].filter(lambda r: r["id"] == "c1")[0]["audio"]
    except (ImportError, OSError, RuntimeError):
        return
    samples = decoded.get_all_samples() if hasattr(decoded, "get_all_samples") else None
    assert samples is None or samples.sample_rate == 24000


def test_audio_files_beside_the_rows_when_not_embedded(root, monkeypatch, tmp_path):
    out = export_parquet(root, ParquetConfig(embed_audio=False)).out_dir
    scope = run_snippet(out, monkeypatch, tmp_path)
    row = scope["ds"]["train"].cast_column("audio", datasets.Audio(decode=False)).filter(lambda r: r["id"] == "c1")[0]
    assert row["audio"]["bytes"] is None and row["audio"]["path"] == "audio/c1.wav"
    assert (out / row["audio"]["path"]).is_file()  # inside the export folder, not the data root
