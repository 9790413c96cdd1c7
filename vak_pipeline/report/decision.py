"""Why a candidate may not be released: its root causes, each attributed to the file that must change.

The release step of the graph (whatever launched it) asks `blocking_causes`; the validation report
(reports/validation.jsonl) and splits.json are the evidence. A cause is what a person fixes, so:
- a field every record of an upload inherits from its `upload.yaml` (consent_ref, license ...) and that
  upload.yaml lacks is ONE cause naming upload.yaml and the field, not one per line of a messages file;
- a consequence of the block (splits built from another manifest, a missing export) is never a cause.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

import yaml

from ..layout import DataLayout
from ..release import ReleaseVerdict, block, keep_blocked, read_verdict
from ..splits import check_manifest, open_splits
from ..storage import iter_jsonl
from ..uploads.descriptor import DESCRIPTOR_NAME, RecordingSettings

# rule families whose ERROR rows stop a release (the checks of validated_manifest say so too)
BLOCKING_FAMILIES = frozenset({"structure", "provenance"})
_DESCRIPTOR_FIELDS = frozenset(RecordingSettings.model_fields)
_CANONICAL_SUFFIX = ".vakforge.jsonl"  # a canonical import carries its own meta; its lines are the cause


@dataclass
class Cause:
    """One thing to change: `file` (relative to the data root) and, where known, its `field`."""

    check: str
    code: str
    file: str
    message: str
    fix: str
    field: str | None = None
    count: int = 0
    lines: list[int] = dc_field(default_factory=list)

    def sentence(self) -> str:
        where = self.file + (f":{','.join(map(str, self.lines[:5]))}" if self.lines else "")
        if self.field and not self.lines:
            where += f", field {self.field}"
        return (f"blocking check {self.check} failed ({self.code} x{self.count}: {self.message} ({where})"
                + (f"; fix: {self.fix}" if self.fix else "") + ")")

    def as_dict(self) -> dict[str, Any]:
        return {"check": self.check, "code": self.code, "file": self.file, "field": self.field,
                "count": self.count, "lines": self.lines[:20], "message": self.message, "fix": self.fix}


def _descriptor_lacks(layout: DataLayout, upload: str, name: str, cache: dict) -> bool:
    """True when raw/<upload>/upload.yaml does not set `name` (so every record of the upload inherits the gap)."""
    key = (upload, name)
    if key not in cache:
        path = layout.upload_dir(upload) / DESCRIPTOR_NAME
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError, UnicodeDecodeError):
            raw = None
        cache[key] = isinstance(raw, dict) and raw.get(name) in (None, "")
    return cache[key]


def _attribute(layout: DataLayout, row: dict[str, Any], cache: dict) -> tuple[str, str | None, str, str, int | None]:
    """(file, field, message, fix, line) of the file a person must change for this validation row."""
    file = str(row.get("file") or row.get("record_id") or "vakforge.jsonl")
    fld = row.get("field") or None
    name = fld.removeprefix("meta.") if isinstance(fld, str) else None
    upload = file.split("/")[0] if "/" in file else None
    if (name in _DESCRIPTOR_FIELDS and upload and not file.endswith(_CANONICAL_SUFFIX)
            and upload in layout.uploads() and _descriptor_lacks(layout, upload, name, cache)):
        desc = f"raw/{upload}/{DESCRIPTOR_NAME}"
        return (desc, name, str(row.get("message") or f"{name} is missing"),
                f"add `{name}:` to {desc} (every file of the upload inherits it), then run again", None)
    line = row.get("line") if isinstance(row.get("line"), int) else None
    return (f"raw/{file}" if upload else file, fld, str(row.get("message") or ""), str(row.get("fix") or ""), line)


def blocking_causes(layout: DataLayout) -> list[Cause]:
    """The root causes that stop this (candidate) layout from being released; empty: it may be released."""
    causes: dict[tuple, Cause] = {}
    cache: dict = {}
    if layout.validation_report.is_file():
        for jl in iter_jsonl(layout.validation_report):
            row = jl.value
            if not isinstance(row, dict) or row.get("severity") != "ERROR":
                continue
            if row.get("family") not in BLOCKING_FAMILIES:
                continue
            file, fld, message, fix, line = _attribute(layout, row, cache)
            key = (row.get("family"), row.get("code"), file, fld if line is None else None)
            c = causes.get(key)
            if c is None:
                c = causes[key] = Cause(f"rules_{row.get('family')}", str(row.get("code")), file, message, fix, fld)
            c.count += 1
            if line is not None:
                c.lines.append(line)
    elif not layout.manifest.is_file():
        causes[("manifest",)] = Cause("validated_manifest", "manifest_missing", "vakforge.jsonl",
                                      "the candidate has no manifest", "materialize validated_manifest", count=1)
    out = sorted(causes.values(), key=lambda c: (-c.count, c.check, c.code, c.file))
    out += _split_causes(layout)
    return out


def _split_causes(layout: DataLayout) -> list[Cause]:
    """Speaker leaks and unassigned conversations of the candidate's own splits.json (not a stale one)."""
    store = open_splits(layout.splits) if layout.manifest.is_file() else None
    if store is None:
        return []
    with store:
        errors = Counter(i.code for i in check_manifest(layout.manifest, store, layout.split_rows)
                         if i.severity.value == "ERROR")
    return [Cause("splits_complete_and_leak_free", code, "splits.json", f"{n} conversation(s) break {code}",
                  "re-materialize splits (assignments already made never move)", count=n)
            for code, n in sorted(errors.items())]



def block_candidate(layout: DataLayout, reasons: list[str], causes: list[Cause] | None = None,
                    run_id: str | None = None) -> ReleaseVerdict:
    """Block the candidate: verdict.json, its steward page marked BLOCKED (built if the graph did not get that
    far), a copy of both kept in work/.release-blocked/, and the published page told a newer candidate was
    blocked. The same whatever launched the run; reasons of earlier failed steps of the same run are kept."""
    from .steward import build_steward_report, render_page

    published = layout.published()
    cand = published.candidate()
    earlier = read_verdict(cand)
    if earlier is not None and earlier.status == "blocked" and run_id and earlier.run_id == run_id:
        reasons = [*earlier.reasons, *(r for r in reasons if r not in earlier.reasons)]
        causes_d = [*earlier.causes, *(c.as_dict() for c in causes or [])]
    else:
        causes_d = [c.as_dict() for c in causes or []]
    where = [str(p.relative_to(published.root)) for p in (cand.rejected, cand.validation_report) if p.is_file()]
    verdict = block(published, reasons, where, run_id=run_id, causes=causes_d)
    page_data = cand.steward_dir / "page.json"
    if page_data.is_file():  # the graph built the report: say BLOCKED on it (its settings stay as they were)
        _mark_blocked(cand, verdict)
    elif cand.manifest.is_file():
        try:
            build_steward_report(cand)
        except Exception:  # noqa: BLE001  the report is a courtesy here; verdict.json is what counts
            pass
    keep_blocked(published, verdict)
    if (published.steward_dir / "page.json").is_file():
        render_page(published)
    return verdict


def _mark_blocked(cand: DataLayout, verdict: ReleaseVerdict) -> None:
    import json

    from ..storage import atomic_write_json
    from .steward import PAGE_DATA, Verdict, render_page

    for name in (PAGE_DATA, "report.json"):
        path = cand.steward_dir / name
        if not path.is_file():
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        data["verdict"] = Verdict.of(verdict, data["verdict"].get("found", []), []).model_dump(mode="json")
        atomic_write_json(path, data)
    render_page(cand)


def block_sentence(verdict: ReleaseVerdict, layout: DataLayout) -> str:
    """The one sentence a run's log says for an expected block."""
    return (f"Release BLOCKED: {'; '.join(verdict.reasons)}. The published release stays as it was; the candidate "
            f"and its BLOCKED steward report are in {layout.published().candidate().steward_html}"
            + (f" (kept in {verdict.kept_at})" if verdict.kept_at else "") + ".")
