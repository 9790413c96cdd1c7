"""The one adapter between the steward report and the stages' per-upload report files.

Every stage writes what it could not use to a report file under work/<upload>/ (normalized_audio:
report.json; transcripts, text_import and tagged_turns: sections of speech_report.json; redacted_manifest:
redaction_report.json). Their formats are being unified (one stage core, issue 14); this module is the
only place that knows them, so the funnel, the asset checks and the report change in one place when
they do. It returns plain `StageIssue`s: which stage, and the Issue it reported.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..core.issue import Issue
from ..layout import DataLayout

# stage names of the funnel, in order; the report file and section each stage's issues come from
AUDIO_REPORT = "report.json"
SPEECH_REPORT = "speech_report.json"
REDACTION_REPORT = "redaction_report.json"
_SOURCES: tuple[tuple[str, str, str | None], ...] = (
    ("decoded", AUDIO_REPORT, None),
    ("transcribed", SPEECH_REPORT, "transcripts"),
    ("turns", SPEECH_REPORT, "text_import"),
    ("turns", SPEECH_REPORT, "tagged_turns"),
    ("redacted", REDACTION_REPORT, None),
)


class StageIssue(BaseModel):
    """An issue a stage reported for one upload, with the funnel stage it belongs to."""

    stage: str
    issue: Issue


def redaction_report_path(layout: DataLayout, upload: str) -> Path:
    return layout.work(upload) / REDACTION_REPORT


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
            out.append(Issue.model_validate(raw))
        except ValidationError:
            continue  # a row of an older report format: the stage re-run rewrites it
    return out


def stage_issues(layout: DataLayout, upload: str) -> list[StageIssue]:
    """Every issue of every stage of `upload`, in stage order (missing reports: none)."""
    out: list[StageIssue] = []
    for stage, name, section in _SOURCES:
        data = _read(layout.work(upload) / name)
        part = data.get(section, {}) if section else data
        if isinstance(part, dict):
            out += [StageIssue(stage=stage, issue=i) for i in _issues(part)]
    return out


def stage_counts(layout: DataLayout, upload: str) -> dict[str, dict[str, Any]]:
    """The counts each stage reported (stage name -> its counts dict), for metadata and debugging."""
    out: dict[str, dict[str, Any]] = {}
    for stage, name, section in _SOURCES:
        data = _read(layout.work(upload) / name)
        part = data.get(section, {}) if section else data
        if isinstance(part, dict) and isinstance(part.get("counts"), dict):
            out[stage] = part["counts"]
    return out


__all__ = ["REDACTION_REPORT", "StageIssue", "redaction_report_path", "stage_counts", "stage_issues"]
