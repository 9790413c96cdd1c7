"""Every text target of every export of the shipped sample (data/raw/, through `vak run`), walked: no
placeholder the recipes do not know, no placeholder where audio speaks a surrogate or is masked, every
surrogate the audio speaks present in the text with its words, and every tool result after its call in
the calls' order.

Walked twice: on the text uploads synth renders (fast), and on the whole shipped sample with sample-calls
transcribed by Whisper (slow: real recordings, masked audio, and the sample's cascaded TTS export that is
empty because every train row is synthesized, which build.json and the warnings must say)."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest

from vak_pipeline.layout import DataLayout
from vak_pipeline.orchestrate import run_pipeline
from vak_pipeline.pii import PLACEHOLDER_RE
from vak_pipeline.recipes.spoken import normalized_words, spoken_forms, spoken_mismatch
from vak_pipeline.schema import Alignment, VakRecord

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"
TEXT_UPLOADS = ("sample-chats", "sample-hinglish")  # the text uploads synth renders (sample-calls needs Whisper)
SHIPPED = ("sample-calls", *TEXT_UPLOADS)
ANGLE = re.compile(r"<[^<>\s]{1,40}>")
NOT_PLACEHOLDERS = {"<audio>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"}

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module", params=[
    "text", pytest.param("shipped", marks=[pytest.mark.slow, pytest.mark.timeout(1800)])])
def data(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp(f"walk-{request.param}") / "data"
    for upload in SHIPPED if request.param == "shipped" else TEXT_UPLOADS:
        shutil.copytree(RAW / upload, root / "raw" / upload)
    report = run_pipeline(root, echo=lambda _: None)
    assert report.success, report.runs
    return root


def records(root: Path) -> dict[str, VakRecord]:
    lines = (root / "vakforge.jsonl").read_text(encoding="utf-8").splitlines()
    return {r.id: r for r in (VakRecord.model_validate_json(x) for x in lines)}


def unknown_placeholders(text: str) -> list[str]:
    """Angle-bracket tokens that are neither a format's own tag nor a placeholder the recipes know."""
    return [t for t in ANGLE.findall(text) if t not in NOT_PLACEHOLDERS and not PLACEHOLDER_RE.fullmatch(t)]


def surrogates(root: Path, rec: VakRecord) -> list[dict]:
    for upload in DataLayout.at(root).uploads():
        side = DataLayout.at(root).synth_sidecar(upload, rec.id)
        if side.exists():
            return json.loads(side.read_text(encoding="utf-8"))["surrogates"]
    return []


def assert_results_in_call_order(msgs: list[dict], where: str) -> None:
    for i, m in enumerate(msgs):
        calls = [c["id"] for c in m.get("tool_calls") or []]
        if not calls:
            continue
        answered = []
        for n in msgs[i + 1:]:
            if n["role"] != "tool":
                break
            answered.append(n["tool_call_id"])
        assert answered == [c for c in calls if c in answered], f"{where}: results {answered} for calls {calls}"


def test_the_sample_has_synthesized_calls_that_speak_surrogates(data):
    recs = records(data)
    synthesized = [r for r in recs.values() if r.audio is not None and r.audio.synthesis is not None]
    assert synthesized and any(surrogates(data, r) for r in synthesized)


def test_moshi_alignments_say_the_surrogates_and_hold_no_placeholder(data):
    recs = records(data)
    checked = 0
    for path in sorted((data / "exports" / "moshi_lora").glob("*/*.json")):
        words = json.loads(path.read_text(encoding="utf-8"))["alignments"]
        assert not [w for w in words if PLACEHOLDER_RE.search(w[0]) or unknown_placeholders(w[0])], path
        rec = next(r for r in recs.values() if path.stem == r.id)
        for row in surrogates(data, rec):
            heard = [w[0] for w in words if row["start_s"] - 1e-3 <= w[1][0] and w[1][1] <= row["end_s"] + 1e-3]
            assert normalized_words(" ".join(heard))[:len(normalized_words(row["spoken"]))] \
                == normalized_words(row["spoken"]), (path.name, row["placeholder"])
            checked += 1
    assert checked


def test_duplex_supervisions_say_what_the_alignment_says(data):
    import lhotse

    recs = records(data)
    checked = 0
    for split_dir in sorted(p for p in (data / "exports" / "duplex_s2s").iterdir() if p.is_dir()):
        for cut in lhotse.CutSet.from_shar(in_dir=str(split_dir)):
            rec = recs[cut.id]
            alignment = Alignment.model_validate_json((data / "alignments" / f"{rec.id}.json").read_bytes())
            forms = spoken_forms(DataLayout.at(data), rec)
            for sup in cut.supervisions:
                assert not PLACEHOLDER_RE.search(sup.text) and not unknown_placeholders(sup.text), sup.id
                if rec.audio.synthesis is not None:
                    turn = int(sup.id.rsplit("-", 1)[1])
                    assert spoken_mismatch(sup.text, alignment, forms, turn) is None, sup.id
                    checked += 1
            for row in surrogates(data, rec):
                sup = next(s for s in cut.supervisions if s.id.endswith(f"-{row['turn']:04d}"))
                assert " ".join(row["spoken"].split()) in sup.text, (cut.id, row["placeholder"])
    assert checked


def test_cascaded_stt_and_tts_text_hold_no_placeholder_and_llm_only_known_ones(data):
    out = data / "exports" / "cascaded"
    for manifest in sorted((out / "stt").glob("*.jsonl")):
        for line in manifest.read_text(encoding="utf-8").splitlines():
            text = json.loads(line)["text"]
            assert not PLACEHOLDER_RE.search(text) and not unknown_placeholders(text), manifest.name
    for meta in sorted(out.glob("tts/*/metadata.csv")):
        for row in csv.reader(meta.open(encoding="utf-8"), delimiter="|"):
            assert not PLACEHOLDER_RE.search(row[2]) and not unknown_placeholders(row[2]), meta
    for path in sorted((out / "llm").glob("*.jsonl")):
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            msgs = json.loads(line)["messages"]
            for m in msgs:
                assert not unknown_placeholders(m.get("content") or ""), (path.name, k)
            assert_results_in_call_order(msgs, f"{path.name}:{k + 1}")


def test_turn_based_assistant_text_says_its_clip_and_results_follow_their_calls(data):
    out = data / "exports" / "turn_based"
    walked = 0
    for path in sorted(out / f"{split}.jsonl" for split in ("train", "validation", "test")):
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            msgs = json.loads(line)["messages"]
            for m in msgs:
                assert not unknown_placeholders(m.get("content") or ""), (path.name, k)
                if m["role"] == "assistant":
                    assert not PLACEHOLDER_RE.search(m.get("content") or ""), (path.name, k)
            assert_results_in_call_order(msgs, f"{path.name}:{k + 1}")
            walked += 1
    for path in sorted((out / "llamafactory").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            for turn in json.loads(line)["conversations"]:
                assert not unknown_placeholders(turn["value"]), path.name
    assert walked


def test_parquet_and_every_build_json_say_why_a_part_is_empty(data):
    import pyarrow.parquet as pq

    recs = records(data)
    rows = 0
    for path in sorted((data / "exports" / "parquet" / "data").glob("*.parquet")):
        for row in pq.read_table(path, columns=["id", "turns"]).to_pylist():
            for t in row["turns"]:
                assert not unknown_placeholders(t["text"] or ""), path.name
                assert not PLACEHOLDER_RE.search(t["spoken_text"] or ""), path.name  # what the audio says
            for sur in surrogates(data, recs[row["id"]]):
                assert " ".join(sur["spoken"].split()) in row["turns"][sur["turn"]]["spoken_text"]
                rows += 1
    assert rows
    import datasets  # the consumer itself: the card's load, audio left undecoded (decoding needs FFmpeg)

    files = sorted(str(p) for p in (data / "exports" / "parquet" / "data").glob("train-*.parquet"))
    ds = datasets.load_dataset("parquet", data_files={"train": files}, split="train")
    ds = ds.cast_column("audio", datasets.Audio(decode=False))
    heard = [t["spoken_text"] for row in ds for t in row["turns"] if t["spoken_text"]]
    assert heard and not any(PLACEHOLDER_RE.search(h) for h in heard)
    for build_json in sorted((data / "exports").glob("*/build.json")):
        build = json.loads(build_json.read_text(encoding="utf-8"))
        empty = build.get("empty_splits", {})
        flat = [w for v in empty.values() for w in (v.values() if isinstance(v, dict) else [v])]
        assert len(build["warnings"]) == len(flat) + len(build.get("empty_parts", {})), build_json
    cascaded = json.loads((data / "exports" / "cascaded" / "build.json").read_text(encoding="utf-8"))
    if not list((data / "exports" / "cascaded").glob("tts/*/metadata.csv")):
        assert "synthesized" in cascaded["empty_parts"]["tts"]
        assert any(w.startswith("cascaded tts is empty") for w in cascaded["warnings"])
    if (data / "raw" / "sample-calls").is_dir():  # the shipped sample: real calls walked too
        real = [r for r in recs.values() if r.audio is not None and r.audio.synthesis is None]
        assert real, "sample-calls released no real recording"
        report = json.loads((data / "reports" / "steward" / "report.json").read_text(encoding="utf-8"))
        for w in cascaded["warnings"]:  # every empty part the export names is in the steward report too
            assert w in json.dumps(report, ensure_ascii=False), w
