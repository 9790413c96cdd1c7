"""Label Studio's JSON export -> corrections (core.corrections), compared with what each task showed.

Each exported task carries the data `review.tasks` wrote (conversation, upload, audio sha, the turns and PII
spans shown) and the reviewers' annotations. The latest annotation that was not cancelled is the review; its
regions are matched to the shown turns by region id (conversation + turn time), and whatever differs becomes
a `TurnCorrection`: text, speaker, boundaries, language, PII spans added (marked on the dialogue) or removed
(a predicted span deleted). A turn left as it was is recorded as confirmed. Text reviewed on the redacted
release keeps placeholders where the reviewer kept them: they are put back to the private values here
(private work files only), so the corrected turn is the whole text and redaction runs over it again.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..core.corrections import Correction, PiiSpan, TurnCorrection, save_corrections
from ..core.issue import Issue, Severity
from ..layout import DataLayout
from ..schema import VakRecord
from ..schema.redaction_log import RedactionLog
from ..storage import iter_models
from ..uploads.ids import is_safe_id
from .text import placeholder_values, restore_placeholders

MOVED_S = 0.01  # a boundary moved by less than this (s) is the same boundary (Label Studio rounds times)


class ImportResult(BaseModel):
    tasks: int = 0
    reviewed: int = Field(0, description="tasks with a submitted annotation (one correction each)")
    unreviewed: int = 0
    changed_turns: int = 0
    confirmed_turns: int = 0
    kinds: dict[str, int] = Field(default_factory=dict, description="corrections by kind (text, speaker, ...)")
    stored: int = Field(0, description="corrections added to or replaced in the store")
    unchanged: int = Field(0, description="corrections already in the store as they are")
    issues: list[Issue] = Field(default_factory=list)


def _issue(code: str, message: str, fix: str, task: Any, conv_id: str | None, severity=Severity.WARN) -> Issue:
    return Issue(code=code, message=message, fix=fix, severity=severity, family="review", record_id=conv_id,
                 file=f"label-studio task {task}", field="annotations")


def _latest(task: dict[str, Any]) -> dict[str, Any] | None:
    done = [a for a in task.get("annotations") or [] if isinstance(a, dict) and not a.get("was_cancelled")
            and a.get("result") is not None]
    return max(done, key=lambda a: (str(a.get("updated_at") or a.get("created_at") or ""), a.get("id") or 0),
               default=None)


def _reviewer(ann: dict[str, Any]) -> str:
    who = ann.get("completed_by")
    if isinstance(who, dict):
        who = who.get("email") or who.get("id")
    return f"label-studio:{who}" if who not in (None, "") else "label-studio:unknown"


def _when(ann: dict[str, Any]) -> str:
    raw = str(ann.get("updated_at") or ann.get("created_at") or "")
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00")).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return raw or "unknown"


def _regions(result: list[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """Audio regions by id ({start, end, speaker, text, lang}) and the PII labels on the dialogue."""
    regions: dict[str, dict[str, Any]] = {}
    pii = []
    for r in result:
        v = r.get("value") or {}
        if r.get("to_name") == "dialogue" and r.get("from_name") == "pii":
            pii.append(v)
            continue
        if r.get("to_name") != "audio" or "id" not in r:
            continue
        reg = regions.setdefault(str(r["id"]), {})
        if "start" in v:
            reg["start"], reg["end"] = float(v["start"]), float(v.get("end", v["start"]))
        if r.get("from_name") == "speaker" and v.get("labels"):
            reg["speaker"] = v["labels"][0]
        elif r.get("from_name") == "text" and v.get("text") is not None:
            texts = v["text"] if isinstance(v["text"], list) else [v["text"]]
            reg["text"] = " ".join(str(x) for x in texts).strip()
        elif r.get("from_name") == "lang" and v.get("choices"):
            reg["lang"] = v["choices"][0]
    return regions, pii


def _pii_key(v: dict[str, Any]) -> tuple[int, int, int, str]:
    labels = v.get("paragraphlabels") or v.get("labels") or [""]
    return int(v.get("start", 0)), int(v.get("startOffset", 0)), int(v.get("endOffset", 0)), str(labels[0])


def correction_of(task: dict[str, Any], values: dict[str, dict[str, str]] | None = None
                  ) -> tuple[Correction | None, list[Issue]]:
    """The correction one exported task holds (None: not reviewed, or not a vak task). `values`: for text
    reviewed on the redacted release, region id -> {placeholder: private value} of that turn."""
    data = task.get("data") or {}
    tid = task.get("id", "?")
    if not all(k in data for k in ("conv_id", "upload", "turns", "dialogue")):
        return None, [_issue("review_task_unknown", "the task was not exported by `vak review export` (no conv_id, "
                             "upload or turns in its data); it was skipped", "import tasks made by vak review export",
                             tid, None)]
    ann = _latest(task)
    if ann is None:
        return None, []
    issues: list[Issue] = []
    regions, pii = _regions(ann.get("result") or [])
    shown_pii = {_pii_key({"start": p["paragraph"], "startOffset": p["start"], "endOffset": p["end"],
                           "paragraphlabels": [p["type"]]}): p for p in data.get("pii") or []}
    marked = {_pii_key(v): v for v in pii}
    paragraph_rid = {i: d.get("rid") for i, d in enumerate(data["dialogue"])}
    conv = str(data["conv_id"])
    turns = []
    for shown in data["turns"]:
        rid = shown["rid"]
        reg = regions.get(rid)
        if reg is None:
            issues.append(_issue("review_region_deleted", f"the reviewer deleted the region of a turn "
                                 f"({shown['start']:.2f}-{shown['end']:.2f} s); turns are never removed by review, "
                                 "it was left as it is", "to drop a turn, fix the recording or the transcription "
                                 "settings instead", tid, conv))
            continue
        tc: dict[str, Any] = {"start": shown["start"], "end": shown["end"]}
        text = reg.get("text")
        if text is not None and text != shown["text"]:
            if data.get("basis", "redacted") == "redacted":
                text, unknown = restore_placeholders(text, (values or {}).get(rid, {}))
                if unknown:
                    issues.append(_issue("review_placeholder_kept", f"{unknown} placeholder(s) in a corrected turn "
                                         "have no private value now (the transcript changed since export); they "
                                         "stay as placeholders", "review the turn again on a fresh export", tid, conv))
            tc["text"] = text
        if reg.get("speaker") in ("user", "agent") and reg["speaker"] != shown["speaker"]:
            tc["speaker"] = reg["speaker"]
        if "start" in reg:
            if abs(reg["start"] - shown["start"]) >= MOVED_S:
                tc["new_start"] = round(reg["start"], 3)
            if abs(reg["end"] - shown["end"]) >= MOVED_S:
                tc["new_end"] = round(reg["end"], 3)
        if reg.get("lang") and reg["lang"] != shown.get("lang"):
            tc["lang"] = reg["lang"]
        tc["pii_added"] = [PiiSpan(type=k[3], text=str(v.get("text") or "")) for k, v in marked.items()
                           if k not in shown_pii and paragraph_rid.get(k[0]) == rid and v.get("text")]
        # a span deleted on the redacted text names its placeholder: the store keeps the value it stands for
        # (the redaction stage compares values), or the placeholder when that is no longer known
        known = (values or {}).get(rid, {}) if data.get("basis", "redacted") == "redacted" else {}
        tc["pii_removed"] = [PiiSpan(type=p["type"], text=restore_placeholders(p["text"], known)[0])
                             for k, p in shown_pii.items() if k not in marked and p["rid"] == rid]
        turns.append(TurnCorrection(**tc))
    for rid in sorted(set(regions) - {t["rid"] for t in data["turns"]}):
        if "start" in regions[rid]:
            issues.append(_issue("review_region_added", "the reviewer drew a new region; new turns are not taken "
                                 "from review (only corrections of exported turns)", "mark the missing words in "
                                 "the text of the neighbouring turn instead", tid, conv))
    return Correction(upload=str(data["upload"]), conv_id=conv, audio_sha=data.get("audio_sha"),
                      basis=data.get("basis", "redacted"), reviewer=_reviewer(ann), at=_when(ann),
                      source=f"label-studio:task/{tid}", turns=turns), issues


def _records(layout: DataLayout, upload: str) -> tuple[dict[str, VakRecord], dict[str, VakRecord]]:
    """(private, redacted) records of an upload by id: what placeholders are put back from."""
    def read(path: Path) -> dict[str, VakRecord]:
        return {ml.value.id: ml.value for ml in iter_models(path, VakRecord) if ml.value is not None} \
            if path.is_file() else {}

    return read(layout.conversations(upload)), read(layout.redacted(upload))


def _placeholder_values(layout: DataLayout, upload: str, task: dict[str, Any],
                        records: tuple[dict[str, VakRecord], dict[str, VakRecord]]) -> dict[str, dict[str, str]]:
    """Region id -> {placeholder: value} for each shown turn whose redacted text is still this run's."""
    data = task["data"]
    conv = data["conv_id"]
    private, red = records[0].get(conv), records[1].get(conv)
    log_path = layout.release_files(upload) / layout.redaction_rel(conv)
    if private is None or red is None or not log_path.is_file() or len(private.turns) != len(red.turns):
        return {}
    log = RedactionLog.model_validate_json(log_path.read_bytes())
    out: dict[str, dict[str, str]] = {}
    for shown in data["turns"]:
        for i, t in enumerate(red.turns):
            if t.start == shown["start"] and t.end == shown["end"] and t.text == shown["text"]:
                spans = [(s.start, s.end) for s in log.spans if s.field == "text" and s.turn == i]
                found = placeholder_values(private.turns[i].text or "", t.text or "", spans) if spans else {}
                if found:
                    out[shown["rid"]] = found
                break
    return out


def import_export(layout: DataLayout | str | Path, tasks: list[dict[str, Any]]) -> ImportResult:
    """Read an export (a list of tasks with annotations) into the data root's corrections store."""
    layout = DataLayout.at(Path(layout) if not isinstance(layout, DataLayout) else layout)
    result = ImportResult()
    found: list[Correction] = []
    cache: dict[str, tuple[dict[str, VakRecord], dict[str, VakRecord]]] = {}
    for task in tasks:
        if not isinstance(task, dict):
            continue
        result.tasks += 1
        data = task.get("data") or {}
        values = {}
        if data.get("basis", "redacted") == "redacted" and is_safe_id(str(data.get("conv_id", ""))) \
                and data.get("upload") in layout.uploads():
            upload = str(data["upload"])
            if upload not in cache:
                cache[upload] = _records(layout, upload)
            values = _placeholder_values(layout, upload, task, cache[upload])
        corr, issues = correction_of(task, values)
        result.issues += issues
        if corr is None:
            result.unreviewed += 1 if not issues else 0
            continue
        result.reviewed += 1
        for tc in corr.turns:
            kinds = tc.changes
            result.changed_turns += 1 if kinds else 0
            result.confirmed_turns += 0 if kinds else 1
            for k in kinds:
                result.kinds[k] = result.kinds.get(k, 0) + 1
        found.append(corr)
    result.kinds = dict(sorted(result.kinds.items()))
    if found:
        result.stored, result.unchanged = save_corrections(layout.root, found)
    return result
