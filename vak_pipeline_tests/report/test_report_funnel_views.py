"""One funnel: the per-upload check's counts and the steward_report asset's table are views of
report.funnel, with the report's own columns (so the UI and report.json cannot disagree on a stage)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vak_pipeline.layout import DataLayout
from vak_pipeline.report.funnel import STAGES, TEXT_STAGES, Funnel, upload_funnel
from vak_pipeline.report.steward import UPLOAD_COLUMNS, upload_rows

pytestmark = pytest.mark.timeout(60)


def _funnel(tmp_path: Path) -> Funnel:
    (tmp_path / "raw" / "u1").mkdir(parents=True)
    (tmp_path / "raw" / "u1" / "notes.txt").write_text("not a conversation\n", encoding="utf-8")
    u = upload_funnel(DataLayout(tmp_path), "u1")
    return Funnel(uploads=[u], total=u.model_copy(update={"upload": "(total)"}))


def test_an_uploads_own_run_reports_every_audio_stage_up_to_redaction(tmp_path):
    u = _funnel(tmp_path).uploads[0]
    assert list(u.audio_so_far()) == list(STAGES[:STAGES.index("redacted") + 1])
    assert u.audio_so_far()["in"]["hours"] is None  # files not decoded yet: unknown, not zero


def test_the_funnel_table_has_one_row_per_upload_and_total_in_the_reports_columns(tmp_path):
    rows = upload_rows(_funnel(tmp_path))
    assert [r[0] for r in rows] == ["u1", "(total)"]
    assert all(len(r) == len(UPLOAD_COLUMNS) for r in rows)
    assert {f"audio {s}" for s in STAGES} | {f"text {s}" for s in TEXT_STAGES} <= set(UPLOAD_COLUMNS)
