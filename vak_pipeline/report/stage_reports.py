"""The one adapter between the steward report and the stages' per-upload report files.

Every stage writes what it could not use to a report file under work/<upload>/ (normalized_audio:
report.json; transcripts, text_import and tagged_turns: sections of speech_report.json; redacted_manifest:
redaction_report.json; synth: synth_report.json), all through `core.stage.write_report`; this module is
the only place that knows them, so the funnel, the asset checks and the report change in one place when they
do. It returns plain `StageIssue`s: which stage, and the Issue it reported.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..core.issue import Issue
from ..layout import DataLayout
from ..uploads.names import shown_issue


def synth_stayed_text(layout: DataLayout, upload: str) -> dict[str, int]:
    """Why the upload's text-only conversations were not rendered (synth_report.json), by reason."""
    stayed = _read(layout.synth_report(upload)).get("stayed_text")
    return {str(k): int(v) for k, v in stayed.items()} if isinstance(stayed, dict) else {}

# stage names of the funnel, in order; the layout's report file and the section each stage's issues come from
_SOURCES: tuple[tuple[str, Callable[[DataLayout, str], Path], str | None], ...] = (
    ("decoded", DataLayout.upload_report, None),
    ("transcribed", DataLayout.speech_report, "transcripts"),
    ("turns", DataLayout.speech_report, "text_import"),
    ("turns", DataLayout.speech_report, "tagged_turns"),
    ("redacted", DataLayout.redaction_report, None),
    ("synthesized", DataLayout.synth_report, None),
)


def read_by_funnel(report: Callable[[DataLayout, str], Path], section: str | None) -> bool:
    """Whether the funnel reads this report file (and section): every stage's must be (a test holds them to it)."""
    return any(report is report_of and section == sec for _, report_of, sec in _SOURCES)


class StageIssue(BaseModel):
    """An issue a stage reported for one upload, with the funnel stage it belongs to."""

    stage: str
    issue: Issue


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _issues(section: dict[str, Any]) -> list[Issue]:
    out = []
    for raw in section.get("issues") or []:
        try:
            out.append(Issue.model_validate(shown_issue(raw) if isinstance(raw, dict) else raw))
        except ValidationError:
            continue  # a row of an older report format: the stage re-run rewrites it
    return out


def stage_issues(layout: DataLayout, upload: str) -> list[StageIssue]:
    """Every issue of every stage of `upload`, in stage order (missing reports: none)."""
    out: list[StageIssue] = []
    for stage, report_of, section in _SOURCES:
        data = _read(report_of(layout, upload))
        part = data.get(section, {}) if section else data
        if isinstance(part, dict):
            out += [StageIssue(stage=stage, issue=i) for i in _issues(part)]
    return out


def stage_counts(layout: DataLayout, upload: str) -> dict[str, dict[str, Any]]:
    """The counts each stage reported (stage name -> its counts dict), for metadata and debugging."""
    out: dict[str, dict[str, Any]] = {}
    for stage, report_of, section in _SOURCES:
        data = _read(report_of(layout, upload))
        part = data.get(section, {}) if section else data
        if isinstance(part, dict) and isinstance(part.get("counts"), dict):
            out[stage] = part["counts"]
    return out


__all__ = ["StageIssue", "read_by_funnel", "stage_counts", "stage_issues"]
