"""The synth stage renders text-only conversations incrementally and in parallel, with the same bytes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import soundfile as sf

from vak_pipeline.layout import DataLayout
from vak_pipeline.schema import VakRecord
from vak_pipeline.synth import GapModel, SynthSettings, synth_upload
from vak_pipeline.synth.timeline import choose_gap_model
from vak_pipeline_tests import processes

from ..builders import make_audio, make_record, make_tool, tool_call, tool_result, turn, write_manifest

UPLOAD = "chats"


def chat(conv_id: str, extra: str = "") -> VakRecord:
    return make_record(
        conv_id,
        turns=[
            turn("user", 0, 0, f"Hi, I am <PER_1> and my order <ID_1> never came{extra}."),
            turn("agent", 0, 0, "Sorry to hear that. Let me look it up."),
            tool_call(0, "call_1", "lookup_order", order_id="<ID_1>"),
            tool_result(0, "call_1", {"status": "lost"}),
            turn("agent", 0, 0, "It was lost in transit, <PER_1>. I will send a new one today."),
        ],
        tools=[make_tool("lookup_order", order_id="string")],
        locale="en-GB",
    )


def setup(tmp_path: Path, records: list[VakRecord]) -> DataLayout:
    layout = DataLayout.at(tmp_path)
    layout.upload_dir(UPLOAD).mkdir(parents=True)
    layout.work(UPLOAD).mkdir(parents=True)
    write_manifest(layout.redacted(UPLOAD), records)
    return layout


def outputs(layout: DataLayout) -> dict[str, str]:
    files = [
        layout.synthesized(UPLOAD),
        *sorted((layout.release_files(UPLOAD) / "audio").glob("*.wav")),
        *sorted((layout.release_files(UPLOAD) / "alignments").glob("*.json")),
    ]
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def test_same_bytes_with_one_and_two_workers(tmp_path):
    records = [chat(f"c{i}") for i in range(3)]
    one = setup(tmp_path / "one", records)
    two = setup(tmp_path / "two", records)
    r1 = synth_upload(one, UPLOAD, SynthSettings(workers=1))
    r2 = synth_upload(two, UPLOAD, SynthSettings(workers=2))
    assert (r1.rendered, r2.rendered) == (3, 3)
    assert outputs(one) == outputs(two)
    assert len(outputs(one)) == 7  # manifest + 3 wavs + 3 alignments


def test_rerun_with_unchanged_text_and_settings_renders_nothing_and_a_change_renders_one(tmp_path):
    layout = setup(tmp_path, [chat("a"), chat("b")])
    first = synth_upload(layout, UPLOAD, SynthSettings())
    wav_b = (layout.release_files(UPLOAD) / "audio") / "b.wav"
    before = outputs(layout), wav_b.stat().st_mtime_ns
    again = synth_upload(layout, UPLOAD, SynthSettings(workers=2))  # worker count is not a setting of the output
    assert (first.rendered, again.rendered, again.cached) == (2, 0, 2)
    assert (outputs(layout), wav_b.stat().st_mtime_ns) == before

    write_manifest(layout.redacted(UPLOAD), [chat("a", extra=" at all"), chat("b")])
    changed = synth_upload(layout, UPLOAD, SynthSettings())
    assert (changed.rendered, changed.cached) == (1, 1)
    assert wav_b.stat().st_mtime_ns == before[1]

    other = synth_upload(layout, UPLOAD, SynthSettings(rate_wpm=150))  # a setting that shapes the audio
    assert (other.rendered, other.cached) == (2, 0)


def test_a_deleted_output_is_rendered_again(tmp_path):
    layout = setup(tmp_path, [chat("a")])
    synth_upload(layout, UPLOAD, SynthSettings())
    (layout.release_files(UPLOAD) / "audio" / "a.wav").unlink()
    res = synth_upload(layout, UPLOAD, SynthSettings())
    assert (res.rendered, res.cached) == (1, 0)
    assert (layout.release_files(UPLOAD) / "audio" / "a.wav").is_file()


def test_records_with_audio_pass_through_unchanged_in_input_order(tmp_path):
    real = make_record(
        "call", audio=make_audio("call"), turns=[("user", 0.2, 1.0, "hello"), ("agent", 1.3, 2.0, "hi there")]
    )
    layout = setup(tmp_path, [chat("first"), real, chat("last")])
    before = layout.redacted(UPLOAD).read_text(encoding="utf-8").splitlines()
    res = synth_upload(layout, UPLOAD, SynthSettings())
    after = layout.synthesized(UPLOAD).read_text(encoding="utf-8").splitlines()
    assert (res.rendered, res.passed_through) == (2, 1)
    assert [json.loads(x)["id"] for x in after] == ["first", "call", "last"]
    assert after[1] == before[1]
    assert not (layout.release_files(UPLOAD) / "audio" / "call.wav").exists()


def test_disabled_stage_passes_every_record_through(tmp_path):
    layout = setup(tmp_path, [chat("a")])
    res = synth_upload(layout, UPLOAD, SynthSettings(enabled=False))
    assert (res.rendered, res.passed_through) == (0, 1)
    assert layout.synthesized(UPLOAD).read_text(encoding="utf-8") == layout.redacted(UPLOAD).read_text(encoding="utf-8")


def test_unavailable_engine_is_a_clear_issue_and_records_stay_text_only(tmp_path):
    layout = setup(tmp_path, [chat("a")])
    res = synth_upload(layout, UPLOAD, SynthSettings(engine="piper", piper_voices={"en-GB": str(tmp_path / "x.onnx")}))
    assert res.rendered == 0
    assert [i.code for i in res.issues] == ["synth_engine_unavailable"]
    assert "piper" in res.issues[0].message and res.issues[0].fix
    assert json.loads(layout.synthesized(UPLOAD).read_text(encoding="utf-8"))["id"] == "a"


def test_gap_model_is_learned_from_enough_real_calls_else_the_documented_default():
    def call(i: int) -> VakRecord:
        return make_record(
            f"r{i}",
            audio=make_audio(f"r{i}", 20),
            source="real",
            turns=[
                ("user", 0.0, 2.0, "hello"),
                ("agent", 2.5, 4.0, "hi"),
                ("user", 4.5, 6.0, "my order"),
                ("agent", 5.8, 8.0, "let me see"),
            ],
        )  # switches: 0.5, 0.5, -0.2 (an overlap)

    learned = choose_gap_model(SynthSettings(learn_min_switches=30), [call(i) for i in range(10)])
    assert learned.source == "learned (30 switches)"
    assert learned.median_s == 0.5 and learned.overlap_probability == 0.33
    assert choose_gap_model(SynthSettings(learn_min_switches=31), [call(i) for i in range(10)]) == GapModel()
    pinned = GapModel(median_s=0.9)
    assert choose_gap_model(SynthSettings(gap_model=pinned), []).median_s == 0.9


def test_tool_calls_are_agent_silence_of_the_configured_latency(tmp_path):
    layout = setup(tmp_path, [chat("a")])
    synth_upload(layout, UPLOAD, SynthSettings(tool_latency_s=(2.0, 2.0)))
    rec = VakRecord.model_validate_json(layout.synthesized(UPLOAD).read_text(encoding="utf-8"))
    call, result, answer = rec.turns[2], rec.turns[3], rec.turns[4]
    assert call.start >= rec.turns[1].end and result.start - call.start == 2.0
    stereo, sr = sf.read(layout.release_files(UPLOAD) / "audio" / "a.wav", dtype="int16")
    agent = int(next(c for c, r in rec.audio.channel_map.items() if r == "agent"))
    quiet = stereo[int(call.start * sr) : int(answer.start * sr), agent]
    assert len(quiet) >= 2 * sr and np.abs(quiet.astype(int)).max() == 0


def test_a_rendering_is_the_same_bytes_in_every_process_and_run():
    """espeak-ng seeds its noise from the clock at start-up; synth seeds it per utterance, so two processes
    started at different times render the same text to the same samples."""
    import sys

    code = ("import hashlib; from vak_pipeline.synth.espeak import library; "
            "u = library().synth('I have refunded the amount today.', 'en-GB-x-rp+f2', 155, 60, 50); "
            "print(hashlib.sha256(u.samples.tobytes()).hexdigest())")
    runs = {processes.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                timeout=300).stdout
            for _ in range(2)}
    assert len(runs) == 1


def test_its_issues_reach_the_funnel_through_its_report(tmp_path):
    """synth runs on the stage runner: its report is the one shape every stage writes (`vak run`'s problem list
    reads its errors the same way), read by the funnel; its ledger says what it rendered."""
    from vak_pipeline.core.stage import Ledger
    from vak_pipeline.report.stage_reports import stage_issues

    long = make_record("long", turns=[turn("user", 0, 0, "word " * 50)], locale="en-GB")
    layout = setup(tmp_path, [long, chat("a")])
    synth_upload(layout, UPLOAD, SynthSettings(max_turn_chars=100))
    report = json.loads(layout.synth_report(UPLOAD).read_text())
    assert set(report) >= {"upload", "stage", "counts", "issues"} and report["counts"]["rendered"] == 1
    assert [i["code"] for i in report["issues"]] == ["synth_text_too_long"]
    assert [(s.stage, s.issue.code) for s in stage_issues(layout, UPLOAD)] == [("synthesized", "synth_text_too_long")]
    assert set(Ledger.load(layout.stage_ledger(UPLOAD, "synth")).previous) == {"a"}
