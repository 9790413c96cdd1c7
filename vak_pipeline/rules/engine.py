"""Runs every rule over one record or a whole streamed manifest. Used by `vak validate`, assets and tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..core.issue import Issue, Severity
from ..layout import DataLayout
from ..schema.record import VakRecord
from ..storage import DEFAULT_MAX_LINE_BYTES, iter_jsonl
from .audio import check_audio_fields, check_audio_file
from .context import RecordIssues, ValidationContext
from .entities import check_entities
from .manifest import DuplicateIds, SplitsChecker, id_hash
from .privacy import check_pii
from .provenance import check_provenance
from .structure import check_schema_version, pydantic_issues
from .tools import check_tools
from .turns import check_locale, check_turns


@dataclass
class RecordResult:
    line: int | None
    record_id: str | None
    record: VakRecord | None
    issues: list[Issue]
    raw: bytes | None = None

    @property
    def ok(self) -> bool:
        return self.record is not None and not any(i.severity is Severity.ERROR for i in self.issues)


def validate_record(obj: dict[str, Any], ctx: ValidationContext, line: int | None = None,
                    raw: bytes | None = None) -> RecordResult:
    """Every per-record rule of the format document, in order; never raises for bad content."""
    rid = obj.get("id") if isinstance(obj.get("id"), str) else None
    out = RecordIssues(rid, ctx, line)
    if not check_schema_version(obj, out):
        return RecordResult(line, rid, None, out.items, raw)
    try:
        rec = VakRecord.model_validate(obj)
    except ValidationError as err:
        pydantic_issues(err, out)
        return RecordResult(line, rid, None, out.items, raw)
    locale_ok = check_locale(rec, out)
    path_safe = check_audio_fields(rec, out)
    check_turns(rec, out, locale_ok)
    check_tools(rec, ctx, out)
    check_entities(rec, out)
    check_provenance(rec, ctx, out)
    if ctx.check_audio and rec.audio is not None and path_safe:
        check_audio_file(rec, ctx, out)
    if ctx.check_pii and locale_ok:
        check_pii(rec, ctx, out)
    return RecordResult(line, rid, rec, out.items, raw)


@dataclass
class ManifestSummary:
    records: int = 0
    valid: int = 0
    invalid: int = 0
    issues_by_code: dict[str, int] = field(default_factory=dict)

    def count(self, issues: list[Issue]) -> None:
        for i in issues:
            self.issues_by_code[i.code] = self.issues_by_code.get(i.code, 0) + 1


def _line_issue(path: Path, code: str, message: str, line: int) -> Issue:
    fixes = {
        "bom": "save the file as UTF-8 without a byte-order mark",
        "not_utf8": "re-encode the file as UTF-8",
        "json_invalid": "fix the JSON on this line (one complete object per line)",
        "json_too_deep": "flatten the nested JSON",
        "not_an_object": "each line must be one JSON object (a conversation)",
        "line_too_long": "split the record or raise --max-line-bytes",
        "empty_file": "the manifest has no records; run the pipeline or check the path",
    }
    return Issue(code=code, message=message, fix=fixes.get(code, "fix the line"), family="structure",
                 file=path.name, line=line or None)


def validate_manifest(path: Path, ctx: ValidationContext | None = None, splits_path: Path | None = None,
                      max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                      summary: ManifestSummary | None = None) -> Iterator[RecordResult]:
    """Stream a manifest: one RecordResult per line (file-level errors included), then manifest-wide ones.

    Duplicate ids are reported after the stream (a second pass over the file names their lines), so a
    consumer that must drop duplicates should use `duplicate_lines` with the hashes this returns.
    """
    path = Path(path)
    ctx = ctx or ValidationContext(base_dir=path.parent)
    ctx.file = ctx.file or path.name
    summary = summary if summary is not None else ManifestSummary()
    dups = DuplicateIds()
    splits = None
    sp = splits_path if splits_path is not None else DataLayout.at(path.parent).splits
    if sp.is_file():
        splits = SplitsChecker(sp)
        for issue in splits.issues:
            summary.count([issue])
            yield RecordResult(None, None, None, [issue])
    for jl in iter_jsonl(path, max_line_bytes=max_line_bytes):
        if jl.error:
            result = RecordResult(jl.line, None, None, [_line_issue(path, jl.code or "json_invalid", jl.error,
                                                                      jl.line)])
        else:
            result = validate_record(jl.value, ctx, line=jl.line, raw=jl.raw)
            if result.record_id:
                dups.add(result.record_id)
            if splits is not None and result.record is not None:
                splits.add(result.record.id, result.record.meta.speakers, jl.line, result.ok)
        summary.records += 1 if jl.line else 0
        if result.ok:
            summary.valid += 1
        elif jl.line:
            summary.invalid += 1
        summary.count(result.issues)
        yield result
    if splits is not None:
        for issue, was_valid in splits.issues_after_stream(ctx.file):
            summary.count([issue])
            if was_valid:
                summary.valid -= 1
                summary.invalid += 1
            yield RecordResult(issue.line, issue.record_id, None, [issue])
        splits.close()
    dup_hashes = dups.duplicates()
    if dup_hashes:
        for line, rid in duplicate_lines(path, dup_hashes, max_line_bytes):
            issue = Issue(code="id_duplicate", family="manifest", record_id=rid, line=line, file=ctx.file,
                          field="id", message="id is used by an earlier record in the manifest",
                          fix="give every conversation a unique id (the first occurrence is kept)")
            summary.count([issue])
            summary.valid -= 1
            summary.invalid += 1
            yield RecordResult(line, rid, None, [issue])


def duplicate_lines(path: Path, dup_hashes: set[int], max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
                    ) -> Iterator[tuple[int, str]]:
    """(line, id) of every occurrence after the first of an id whose hash is in `dup_hashes`."""
    seen: set[str] = set()
    for jl in iter_jsonl(path, max_line_bytes=max_line_bytes):
        if jl.error or not isinstance(jl.value.get("id"), str):
            continue
        rid = jl.value["id"]
        if id_hash(rid) in dup_hashes:
            if rid in seen:
                yield jl.line, rid
            seen.add(rid)


def dump_issues(issues: list[Issue]) -> str:
    return json.dumps([i.model_dump(mode="json", exclude_none=True) for i in issues], ensure_ascii=False)
