"""Steward report: counts, rejected rows by rule, redactions by type (never values), charts."""

from __future__ import annotations

import json

from vak_pipeline.report.steward import build_steward_report
from vak_pipeline.schema import RedactionLog, RedactionSpan
from vak_pipeline.splits import split_manifest
from vak_pipeline.storage import JsonlWriter
from vak_pipeline_tests.builders import make_audio, make_record, turn, write_manifest

SECRET = "9876543210"


def test_report_counts_and_never_prints_redacted_values(tmp_path):
    log = RedactionLog(conversation_id="r1", spans=[
        RedactionSpan(turn=0, field="text", type="phone", start=10, end=19, placeholder="<PHONE_1>",
                      audio={"start_s": 0.2, "end_s": 0.8, "method": "tone"}, original_hint=SECRET),
        RedactionSpan(turn=0, field="text", type="person_name", start=0, end=8, placeholder="<PERSON_1>")])
    (tmp_path / "redactions").mkdir()
    (tmp_path / "redactions/r1.json").write_text(log.model_dump_json())
    real = make_record("r1", {"user": "u1"}, [turn("user", 0, 1.5, "<PERSON_1> at <PHONE_1>"),
                                                turn("agent", 1.6, 3.0, "namaste", lang="hi-Latn")],
                       audio=make_audio("r1", 95.0), source="real", consent="written", consent_ref="c",
                       voice_consent_ref="v", pii_redacted=True, redaction_log="redactions/r1.json",
                       license="proprietary-internal")
    write_manifest(tmp_path / "vakforge.jsonl", [real] + [make_record(f"s{i}", {"user": f"u{i + 2}"},
                                                                      locale="en-IN") for i in range(3)])
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json")
    with JsonlWriter(tmp_path / "reports/rejected.jsonl") as w:
        w.write({"line": 3, "record_id": "x", "issues": [{"code": "turns_unsorted", "family": "turns"},
                                                         {"code": "lang_missing", "family": "turns"}]})
        w.write({"line": 9, "record_id": "y", "issues": [{"code": "turns_unsorted", "family": "turns"}]})

    report = build_steward_report(tmp_path)
    s = report.summary
    assert s.conversations == 4 and s.with_audio == 1
    assert s.rejected_rows == 2 and s.rejected_by_rule == {"turns_unsorted": 2, "lang_missing": 1}
    assert s.redactions_by_type == {"phone": 1, "person_name": 1} and s.audio_masks == {"tone": 1}
    assert s.by["locale"] == {"en-IN": 3, "en-US": 1} and s.by["turn language"]["hi-Latn"] == 1
    assert sum(s.by["split"].values()) == 4
    assert s.conv_hist.counts[CONV_BIN_60_120] == 1  # the 95 s recording
    out = report.out_dir
    assert out == tmp_path / "reports/steward"
    for name in ("index.html", "report.md", "summary.json", "conversation_durations.png", "turn_durations.png",
                 "language_mix.png", "locales.png"):
        assert (out / name).is_file(), name
        assert SECRET not in (out / name).read_bytes().decode("latin-1")
    assert (out / "language_mix.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (out / "report.md").read_text()
    assert "| turns_unsorted | 2 |" in md and "| phone | 1 |" in md and "![Language mix" in md
    page = (out / "index.html").read_text()
    assert "<img src='data:image/png;base64," in page and "data-file='language_mix.png'" in page  # embedded PNG
    assert json.loads((out / "summary.json").read_text())["redactions_by_type"] == {"phone": 1, "person_name": 1}


CONV_BIN_60_120 = 3


def test_report_on_an_empty_data_dir_still_renders(tmp_path):
    report = build_steward_report(tmp_path)
    assert report.summary.conversations == 0 and report.html.is_file()
