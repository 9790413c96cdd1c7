"""Synth does not render a text conversation that already breaks its own rules: re-timing its turns would
hide the error, and validation would publish a conversation the uploaded file got wrong."""

from __future__ import annotations

from vak_pipeline.rules.issue import Severity
from vak_pipeline.synth import SynthSettings, synth_upload

from ..builders import make_record, turn
from .test_synth_stage import UPLOAD, chat, setup


def test_a_chat_with_turns_out_of_order_passes_through_unrendered_for_validation_to_reject(tmp_path):
    unsorted = make_record(
        "unsorted",
        {"user": "u2", "agent": "a1"},
        locale="en-GB",
        turns=[turn("user", 5.0, 6.0, "second words first"), turn("agent", 0.0, 1.0, "first")],
    )
    layout = setup(tmp_path, [chat("good"), unsorted])
    res = synth_upload(layout, UPLOAD, SynthSettings(workers=1))
    assert (res.rendered, res.invalid) == (1, 1)
    [issue] = [i for i in res.issues if i.code == "synth_skipped_invalid"]
    assert issue.severity is Severity.WARN and issue.line == 2 and issue.record_id == "unsorted"
    assert "turns_unsorted" in issue.message and issue.fix
    out = layout.synthesized(UPLOAD).read_text(encoding="utf-8").splitlines()
    assert out[1] == layout.redacted(UPLOAD).read_text(encoding="utf-8").splitlines()[1]  # byte for byte
    audio = layout.release_files(UPLOAD) / "audio"
    assert not (audio / "unsorted.wav").exists() and (audio / "good.wav").is_file()
