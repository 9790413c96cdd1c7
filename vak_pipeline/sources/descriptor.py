"""The upload descriptor: `upload.yaml` defaults plus optional `recordings.csv` per-file overrides.

Every file of an upload inherits the defaults; a CSV row overrides them for one file. Errors name the
file, the line and the field, and say how to fix it; a bad CSV row never stops the other files.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..locales import PACKS
from ..rules.issue import Issue
from ..schema.record import ChannelRole, Condition, Consent, Source, Tool

DESCRIPTOR_NAME = "upload.yaml"
OVERRIDES_NAME = "recordings.csv"


class RecordingSettings(BaseModel):
    """What a recording (or text file) of an upload is: its provenance and how to read its channels."""

    model_config = ConfigDict(extra="forbid")
    locale: str
    source: Source = "real"
    consent: Consent
    consent_ref: str | None = None
    voice_consent_ref: str | None = None
    license: str | None = None
    condition: Condition | None = None
    domain: str | None = None
    scenario: str | None = None
    system_prompt: str | None = None
    tools: list[Tool] = Field(default_factory=list)
    channel_map: dict[str, ChannelRole] | None = Field(
        default=None, description='Stereo: which channel is whom, e.g. {"0": "user", "1": "agent"}.')
    keep_channels: list[int] | None = Field(
        default=None, description="For files with more than two channels: the two to keep, in order.")
    speakers: dict[str, str] = Field(
        default_factory=dict, description='Known speaker ids by role, e.g. {"agent": "priya", "user": "cust-17"}.')
    agent_speaker_hint: str | None = Field(
        default=None, description="Mono: a diarized label or 'first'/'most' rule naming the agent.")
    names: list[str] = Field(default_factory=list, description="Person names to redact wherever they appear.")
    allow_unconsented: bool = False

    @field_validator("locale")
    @classmethod
    def _known_locale(cls, v: str) -> str:
        if v not in PACKS:
            raise ValueError(f"unknown locale {v!r}; registered packs: {', '.join(sorted(PACKS))}")
        return v


class RecordingOverride(BaseModel):
    """One recordings.csv row: the file it names and the settings it overrides."""

    model_config = ConfigDict(extra="forbid")
    file: str
    conv_id: str | None = None
    overrides: dict[str, Any] = Field(default_factory=dict)
    line: int = 0


class UploadDescriptor(BaseModel):
    model_config = ConfigDict(extra="forbid")
    upload: str
    defaults: RecordingSettings
    overrides: dict[str, RecordingOverride] = Field(default_factory=dict)

    def settings_for(self, file: str) -> RecordingSettings:
        """Defaults merged with the file's CSV row (already validated when the descriptor loaded)."""
        row = self.overrides.get(file)
        if not row or not row.overrides:
            return self.defaults
        merged = self.defaults.model_dump() | row.overrides
        return RecordingSettings.model_validate(merged)

    def conv_id_for(self, file: str) -> str | None:
        row = self.overrides.get(file)
        return row.conv_id if row else None


# CSV columns that hold JSON or lists rather than plain strings
_JSON_COLUMNS = {"channel_map", "speakers", "tools", "keep_channels", "names"}
_SPEAKER_COLUMNS = {"agent_speaker": "agent", "user_speaker": "user"}


def _issue(file: str, code: str, message: str, fix: str, line: int | None = None, field: str | None = None) -> Issue:
    return Issue(code=code, message=message, fix=fix, family="upload", file=file, line=line, field=field)


def _pydantic_issues(err: ValidationError, file: str, line: int | None, prefix: str = "") -> list[Issue]:
    out = []
    for e in err.errors():
        field = prefix + ".".join(str(p) for p in e["loc"])
        out.append(_issue(file, f"descriptor_{e['type']}", e["msg"],
                          f"correct '{field}' in {file} (see README: upload descriptor)", line, field))
    return out


def load_descriptor(upload_dir: Path) -> tuple[UploadDescriptor | None, list[Issue]]:
    """Read and validate upload.yaml and recordings.csv. Returns (descriptor or None, issues).

    A broken upload.yaml makes the descriptor None (nothing can be inferred safely); a broken CSV row
    is reported and skipped, and the other rows still apply.
    """
    upload_dir = Path(upload_dir)
    ypath = upload_dir / DESCRIPTOR_NAME
    yname = f"{upload_dir.name}/{DESCRIPTOR_NAME}"
    if not ypath.is_file():
        return None, [_issue(yname, "descriptor_missing", "the upload has no upload.yaml",
                             "add upload.yaml with at least locale and consent (see README)")]
    try:
        raw = yaml.safe_load(ypath.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        return None, [_issue(yname, "descriptor_yaml_invalid", f"upload.yaml is not valid YAML: {type(exc).__name__}",
                             "fix the YAML syntax", (line + 1) if line is not None else None)]
    if not isinstance(raw, dict):
        return None, [_issue(yname, "descriptor_not_mapping", "upload.yaml must be a mapping of settings",
                             "write key: value pairs at the top level")]
    try:
        defaults = RecordingSettings.model_validate(raw)
    except ValidationError as err:
        return None, _pydantic_issues(err, yname, None)

    issues: list[Issue] = []
    overrides: dict[str, RecordingOverride] = {}
    cpath = upload_dir / OVERRIDES_NAME
    cname = f"{upload_dir.name}/{OVERRIDES_NAME}"
    if cpath.is_file():
        try:
            text = cpath.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            return None, [_issue(cname, "descriptor_csv_not_utf8", "recordings.csv is not UTF-8", "save it as UTF-8")]
        reader = csv.DictReader(text.splitlines())
        if not reader.fieldnames or "file" not in reader.fieldnames:
            issues.append(_issue(cname, "descriptor_csv_no_file_column", "recordings.csv has no 'file' column",
                                 "add a header row whose first column is 'file'", 1))
        else:
            for line, row in enumerate(reader, start=2):
                o, row_issues = _parse_override(row, defaults, cname, line, upload_dir)
                issues.extend(row_issues)
                if o is not None:
                    if o.file in overrides:
                        issues.append(_issue(cname, "descriptor_csv_duplicate_file",
                                             f"file {o.file!r} is listed twice", "keep one row per file", line, "file"))
                        continue
                    overrides[o.file] = o
    return UploadDescriptor(upload=upload_dir.name, defaults=defaults, overrides=overrides), issues


def _parse_override(row: dict[str, Any], defaults: RecordingSettings, cname: str, line: int,
                    upload_dir: Path) -> tuple[RecordingOverride | None, list[Issue]]:
    file = (row.get("file") or "").strip()
    if not file:
        return None, [_issue(cname, "descriptor_csv_file_empty", "row has no file name", "fill the 'file' column",
                             line, "file")]
    if not (upload_dir / file).is_file():
        return None, [_issue(cname, "descriptor_csv_file_missing", f"row names {file!r}, which is not in the upload",
                             "fix the file name or add the file", line, "file")]
    values: dict[str, Any] = {}
    speakers = dict(defaults.speakers)
    for key, val in row.items():
        if key in (None, "file", "conv_id") or val is None or str(val).strip() == "":
            continue
        val = str(val).strip()
        if key in _SPEAKER_COLUMNS:
            speakers[_SPEAKER_COLUMNS[key]] = val
            continue
        if key in _JSON_COLUMNS:
            try:
                val = json.loads(val)
            except json.JSONDecodeError:
                return None, [_issue(cname, "descriptor_csv_json_invalid", f"column {key!r} must hold JSON",
                                     f'write it as JSON, e.g. {{"0": "user", "1": "agent"}} for {key}', line, key)]
        values[key] = val
    if speakers != defaults.speakers:
        values["speakers"] = speakers
    try:
        RecordingSettings.model_validate(defaults.model_dump() | values)
    except ValidationError as err:
        return None, _pydantic_issues(err, cname, line)
    conv_id = (row.get("conv_id") or "").strip() or None
    return RecordingOverride(file=file, conv_id=conv_id, overrides=values, line=line), []
