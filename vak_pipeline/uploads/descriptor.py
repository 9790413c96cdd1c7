"""The upload descriptor: `upload.yaml` defaults plus optional `recordings.csv` per-file overrides.

Every file of an upload inherits the defaults; a CSV row overrides them for one file. Errors name the
file, the line and the field, and say how to fix it; a bad CSV row never stops the other files.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..core.issue import Issue
from ..locales import PACKS
from ..schema.record import ChannelRole, Condition, Consent, Source, Tool
from ..storage import resolve_inside
from .ids import is_safe_id, shown_name
from .limits import DEFAULT_LIMITS, InputLimits, InputRefused, load_yaml_bounded, read_bounded
from .links import data_rel

DESCRIPTOR_NAME = "upload.yaml"
OVERRIDES_NAME = "recordings.csv"


class SynthChoice(BaseModel):
    """upload.yaml `synth:`: whether the upload's text-only conversations become calls (synth/budget.py)."""

    model_config = ConfigDict(extra="forbid")

    render: Literal["all", "budget", "none"] = Field(
        "budget", description="all: every text-only conversation; none: they stay text; budget: up to the limits.")
    budget_hours: float | None = Field(
        1.0, ge=0, description="With render: budget, at most this many hours of estimated speech per upload.")
    budget_fraction: float | None = Field(
        None, ge=0, le=1, description="With render: budget, at most this share of the upload's text conversations.")
    seed: int = Field(0, description="Changes which conversations a budget picks (the same on every run).")



class RecordingSettings(BaseModel):
    """What a recording (or text file) of an upload is: its provenance and how to read its channels."""

    model_config = ConfigDict(extra="forbid")
    locale: str
    source: Source = "real"
    consent: Consent
    consent_ref: str | None = Field(default=None, description="Where the consent evidence is kept.")
    voice_consent_ref: str | None = Field(
        default=None, description="Consent to use the voices themselves (speech-to-speech training).")
    license: str | None = Field(default=None, description="The licence the data may be used under.")
    condition: Condition | None = Field(
        default=None, description="How it was recorded (studio, clean, phone, noisy): declared, never guessed.")
    domain: str | None = Field(default=None, description='The business domain, e.g. "telecom".')
    scenario: str | None = Field(default=None, description='What the conversations are about, e.g. "billing dispute".')
    system_prompt: str | None = Field(default=None, description="The agent's instructions, copied to every record.")
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
    allow_unconsented: bool = Field(
        default=False, description="Only with consent: none, and never for published data.")
    language_map: dict[str, str] = Field(
        default_factory=dict, description='Text sources: record language -> locale pack, e.g. {"en": "en-GB"}.')
    keep_notes: bool = Field(default=True, description="aidb: keep internal notes in meta.notes (never spoken).")
    synth: SynthChoice = Field(default_factory=SynthChoice, description="Whether and how many of the upload's "
                               "text-only conversations are rendered as calls (docs/synth.md: the budget).")

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
    rejected_rows: dict[str, int] = Field(
        default_factory=dict, description="Files whose recordings.csv row was rejected -> line of that row. "
        "Stages hold such files back rather than process them with settings the uploader did not intend.")

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
_JSON_EXAMPLES = {
    "channel_map": '{"0": "user", "1": "agent"}', "speakers": '{"agent": "priya", "user": "cust-17"}',
    "tools": '[{"name": "lookup_order"}]', "keep_channels": "[0, 3]", "names": '["Priya", "Rahul"]',
}


def _issue(file: str, code: str, message: str, fix: str, line: int | None = None, field: str | None = None) -> Issue:
    return Issue(code=code, message=message, fix=fix, family="upload", file=file, line=line, field=field)


def _pydantic_issues(err: ValidationError, file: str, line: int | None, prefix: str = "") -> list[Issue]:
    out = []
    for e in err.errors():
        field = prefix + ".".join(str(p) for p in e["loc"])
        out.append(_issue(file, f"descriptor_{e['type']}", e["msg"],
                          f"correct '{field}' in {file} (see README: upload descriptor)", line, field))
    return out


def load_descriptor(upload_dir: Path,
                    limits: InputLimits = DEFAULT_LIMITS) -> tuple[UploadDescriptor | None, list[Issue]]:
    """Read and validate upload.yaml and recordings.csv. Returns (descriptor or None, issues).

    A broken upload.yaml makes the descriptor None (nothing can be inferred safely); a broken CSV row
    is reported and skipped, and the other rows still apply. An upload folder, upload.yaml or
    recordings.csv that is a symbolic link, or a descriptor beyond `limits` (size, nesting, YAML aliases),
    is refused unread: the descriptor is None.
    """
    upload_dir = Path(upload_dir)
    ypath = upload_dir / DESCRIPTOR_NAME
    yname = f"{upload_dir.name}/{DESCRIPTOR_NAME}"
    if upload_dir.is_symlink():
        return None, [_issue(yname, "descriptor_upload_symlink",
                             f"the upload folder {data_rel(upload_dir, upload_dir)} is a symbolic link; nothing in "
                             "it is read", "move the delivery itself into raw/<upload>/ instead of linking to it")]
    if ypath.is_symlink():
        return None, [_link_issue(upload_dir, ypath, yname)]
    if not ypath.is_file():
        return None, [_issue(yname, "descriptor_missing", "the upload has no upload.yaml",
                             "add upload.yaml with at least locale and consent (see README)")]
    try:
        raw = load_yaml_bounded(read_bounded(ypath, limits.max_descriptor_bytes).decode("utf-8"), limits) or {}
    except InputRefused as exc:
        return None, [_refused_issue(upload_dir, ypath, yname, exc)]
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        return None, [_issue(yname, "descriptor_yaml_invalid", f"upload.yaml is not valid YAML: {type(exc).__name__}",
                             "fix the YAML syntax", (line + 1) if line is not None else None)]
    except RecursionError:
        return None, [_issue(yname, "descriptor_too_deep", "upload.yaml is nested too deeply",
                             "flatten upload.yaml")]
    if not isinstance(raw, dict):
        return None, [_issue(yname, "descriptor_not_mapping", "upload.yaml must be a mapping of settings",
                             "write key: value pairs at the top level")]
    try:
        defaults = RecordingSettings.model_validate(raw)
    except ValidationError as err:
        return None, _pydantic_issues(err, yname, None)

    issues: list[Issue] = []
    overrides: dict[str, RecordingOverride] = {}
    rejected: dict[str, int] = {}
    cpath = upload_dir / OVERRIDES_NAME
    cname = f"{upload_dir.name}/{OVERRIDES_NAME}"
    if cpath.is_symlink():
        return None, [_link_issue(upload_dir, cpath, cname)]
    if cpath.is_file():
        try:
            text = read_bounded(cpath, limits.max_descriptor_bytes).decode("utf-8-sig")
        except InputRefused as exc:
            return None, [_refused_issue(upload_dir, cpath, cname, exc)]
        except UnicodeDecodeError:
            return None, [_issue(cname, "descriptor_csv_not_utf8", "recordings.csv is not UTF-8", "save it as UTF-8")]
        # newline="" keeps quoted multi-line cells (a system_prompt) intact; line numbers come from the reader
        reader = csv.DictReader(io.StringIO(text, newline=""))
        if reader.fieldnames:
            reader.fieldnames = [(f or "").strip() for f in reader.fieldnames]
        if not reader.fieldnames or "file" not in reader.fieldnames:
            issues.append(_issue(cname, "descriptor_csv_no_file_column", "recordings.csv has no 'file' column",
                                 "add a header row whose first column is 'file'", 1))
        else:
            conv_ids: dict[str, str] = {}
            line = 1
            for row in _rows(reader, cname, issues):
                start, line = line + 1, reader.line_num  # a row may span lines; report where it starts
                if not any((v or "").strip() for k, v in row.items() if k is not None):
                    continue  # blank line
                o, row_issues, found = _parse_override(row, defaults, cname, start, upload_dir)
                issues.extend(row_issues)
                if o is None:
                    if found is not None:
                        rejected.setdefault(found, start)
                    continue
                if o.file in overrides:
                    rejected.setdefault(o.file, start)
                    first = overrides[o.file].line
                    issues.append(_issue(cname, "descriptor_csv_duplicate_file",
                                         f"file {shown_name(o.file)!r} is listed twice (first on line {first}); "
                                         "this row is ignored", "keep one row per file", start, "file"))
                    continue
                if o.conv_id and o.conv_id in conv_ids:
                    rejected.setdefault(o.file, start)
                    issues.append(_issue(cname, "descriptor_csv_duplicate_conv_id",
                                         f"conv_id {shown_name(o.conv_id)!r} is already used for "
                                         f"{shown_name(conv_ids[o.conv_id])!r}; this row is ignored",
                                         "give every recording its own conv_id", start, "conv_id"))
                    continue
                if o.conv_id:
                    conv_ids[o.conv_id] = o.file
                overrides[o.file] = o
    return UploadDescriptor(upload=upload_dir.name, defaults=defaults, overrides=overrides,
                            rejected_rows=rejected), issues


def _rows(reader: csv.DictReader, cname: str, issues: list[Issue]) -> Iterator[dict[str | None, Any]]:
    """The CSV's rows; a row the csv module refuses (a cell over its field size limit) ends the file with
    an issue, the rows before it still apply."""
    try:
        yield from reader
    except csv.Error as exc:
        issues.append(_issue(cname, "descriptor_csv_invalid", f"recordings.csv cannot be read on: {exc}",
                             "fix the row (a cell this long is not a setting; quote cells with commas)",
                             reader.line_num or None))


def _link_issue(upload_dir: Path, path: Path, name: str) -> Issue:
    return _issue(name, "descriptor_symlink", f"{data_rel(upload_dir, path)} is a symbolic link; it is not "
                  "followed, so the upload has no usable descriptor", "replace the link with the file itself")


def _refused_issue(upload_dir: Path, path: Path, name: str, exc: InputRefused) -> Issue:
    """A descriptor beyond a limit (or swapped for a link): one issue saying which limit and how to change it."""
    if exc.code == "symlink":
        return _link_issue(upload_dir, path, name)
    fix = {"too_large": "shorten it, or raise the data resource's limits.max_descriptor_bytes",
           "yaml_aliases": "write the settings out instead of through many aliases (*name), or raise "
                           "the data resource's limits.max_yaml_aliases",
           "too_deep": "flatten it, or raise the data resource's limits.max_descriptor_depth"}
    return _issue(name, f"descriptor_{exc.code}", f"{data_rel(upload_dir, path)} is refused unread: {exc}",
                  fix.get(exc.code, "replace it with a regular file"), exc.line)


def _find_file(upload_dir: Path, file: str) -> str | None:
    """The name of `file` as it is on disk (relative, '/'-separated), or None if it is absent or outside the upload.

    Unicode normalization may differ between a CSV typed on one system and file names made on another
    (NFC vs NFD), so a second look compares normalized names.
    """
    rel = file.replace("\\", "/")
    target = resolve_inside(upload_dir, rel)
    if target is None:
        return None
    if target.is_file():
        return rel
    parent = target.parent
    if not parent.is_dir():
        return None
    want = unicodedata.normalize("NFC", target.name)
    for p in parent.iterdir():
        if p.is_file() and unicodedata.normalize("NFC", p.name) == want:
            return str(p.relative_to(upload_dir).as_posix())
    return None


def _parse_override(row: dict[str | None, Any], defaults: RecordingSettings, cname: str, line: int,
                    upload_dir: Path) -> tuple[RecordingOverride | None, list[Issue], str | None]:
    """(override or None, issues, the file on disk the row names if it could be found)."""
    given = (row.get("file") or "").strip()
    if not given:
        return None, [_issue(cname, "descriptor_csv_file_empty", "row has no file name", "fill the 'file' column",
                             line, "file")], None
    if row.get(None):
        return None, [_issue(cname, "descriptor_csv_extra_cells",
                             f"row for {shown_name(given)!r} has more cells than the header",
                             "quote cells that contain commas, or add the missing column names", line)], None
    file = _find_file(upload_dir, given)
    if file is None:
        return None, [_issue(cname, "descriptor_csv_file_missing",
                             f"row names {shown_name(given)!r}, which is not in the upload",
                             "fix the file name (relative to the upload folder) or add the file", line, "file")], None
    values: dict[str, Any] = {}
    speaker_cols: dict[str, str] = {}
    for key, val in row.items():
        if key in (None, "file", "conv_id") or val is None or str(val).strip() == "":
            continue
        val = str(val).strip()
        if key in _SPEAKER_COLUMNS:
            speaker_cols[_SPEAKER_COLUMNS[key]] = val
            continue
        if key in _JSON_COLUMNS:
            try:
                val = json.loads(val)
            except json.JSONDecodeError:
                return None, [_issue(cname, "descriptor_csv_json_invalid", f"column {key!r} must hold JSON",
                                     f"write it as JSON, e.g. {_JSON_EXAMPLES[key]}, quoted as one CSV cell",
                                     line, key)], file
        values[key] = val
    if speaker_cols:
        base = values.get("speakers", defaults.speakers)
        values["speakers"] = (dict(base) if isinstance(base, dict) else {}) | speaker_cols
    try:
        RecordingSettings.model_validate(defaults.model_dump() | values)
    except ValidationError as err:
        return None, _pydantic_issues(err, cname, line), file
    conv_id = (row.get("conv_id") or "").strip() or None
    if conv_id is not None and not is_safe_id(conv_id):
        return None, [_issue(cname, "descriptor_csv_conv_id_unsafe", f"conv_id for {given!r} is not a safe file name",
                             "use letters, digits, '_', '-' and '.', starting with a letter or digit", line,
                             "conv_id")], file
    return RecordingOverride(file=file, conv_id=conv_id, overrides=values, line=line), [], file
