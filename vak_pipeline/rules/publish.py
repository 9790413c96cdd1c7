"""Assemble vakforge.jsonl from every upload's redacted records: valid rows in, rejected rows reported.

Streams every input once into a candidate file, then drops later duplicates of an id in a second pass,
so memory stays flat in the number of records. Each record's files (audio, alignments, redaction log) are
placed into the release tree from its upload's private release files before its rules run (so the audio
rules read what would be published) and taken back when it is rejected: the tree holds the files of kept
records only. Nothing is silently dropped: each rejected row is written
to reports/rejected.jsonl with its issues, and every issue (warnings too) to reports/validation.jsonl.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.erasure import ErasedSet, load_erased
from ..core.file_digests import FileDigests
from ..core.issue import Issue, Severity
from ..identity import ContentIndex, IdentitySettings
from ..identity.records import index_record, index_text
from ..layout import DataLayout
from ..release import place_record_files, record_file_rels, unplace
from ..schema import write_json_schema
from ..storage import (
    JsonlWriter,
    atomic_open,
    atomic_write_json,
    dumps_line,
    iter_jsonl,
    resolve_inside,
    sha256_file,
)
from .cache import CacheableRules, Finding, RuleCache, settings_fingerprint
from .context import ValidationContext
from .engine import _line_issue, validate_record
from .manifest import DuplicateIds, id_hash
from .origin import record_kind, record_origin

PUBLISH_VERSION = "1"  # bump when the output for the same inputs and settings would change (the asset's code_version)
FAMILIES = ("structure", "turns", "tools", "entities", "provenance", "privacy", "audio", "manifest")


@dataclass
class PublishResult:
    manifest: Path
    manifest_sha256: str
    records_in: int = 0
    valid: int = 0
    rejected: int = 0
    warnings: int = 0
    issues_by_code: Counter = field(default_factory=Counter)
    errors_by_family: Counter = field(default_factory=Counter)
    warnings_by_family: Counter = field(default_factory=Counter)
    rejected_path: Path | None = None
    issues_path: Path | None = None
    duplicates: int = 0
    erased: int = 0  # records the erasure ledger names, left out without a trace in the reports
    records_by_upload: Counter = field(default_factory=Counter)  # valid records per upload, before duplicates
    duplicate_groups: Counter = field(default_factory=Counter)  # (kept upload, copy upload, how) -> copies
    duplicate_seconds: Counter = field(default_factory=Counter)  # the same keys -> seconds of audio left out
    rules_checked: int = 0  # records whose per-record rules ran in this publish (new or changed, or not cacheable)
    rules_reused: int = 0  # records whose findings were read from the rule cache (rules.cache)


ExtraRules = Callable[[dict[str, Any]], list[Issue]]


def publish_manifest(layout: DataLayout, inputs: Iterable[Path], ctx: ValidationContext | None = None,
                     extra_rules: ExtraRules | None = None,
                     identity: IdentitySettings | None = None) -> PublishResult:
    """Validate every record of `inputs` against the dataset root and write the canonical manifest.

    `extra_rules(record dict)` adds issues to a record that passed the format's rules (the steward's
    quality thresholds); an ERROR among them rejects the record like any other rule. Valid records are
    indexed by content (`identity`, on by default): of a group of duplicates across deliveries only the
    member the keep policy names is released, the others are rejected as `duplicate_content`.
    """
    ctx = ctx or ValidationContext(base_dir=layout.release_root)
    digests = None
    if ctx.digests is None:  # audio checked in an earlier publish is not decoded again (keyed by its bytes)
        ctx.digests = digests = FileDigests.open(layout.publish_cache / "digests.sqlite")
    layout.reports.mkdir(parents=True, exist_ok=True)
    candidates = layout.root / f".{layout.manifest.name}.candidates"
    issues_path = layout.validation_report
    result = PublishResult(manifest=layout.manifest, manifest_sha256="", rejected_path=layout.rejected,
                           issues_path=issues_path)
    dups = DuplicateIds()
    erased = load_erased(layout.root)
    identity = identity or IdentitySettings()
    index = ContentIndex.open(layout.content_index, identity) if identity.enabled else None
    rules_cache = _open_rules_cache(layout, ctx, extra_rules)
    try:
        with JsonlWriter(layout.rejected) as rej, JsonlWriter(issues_path) as iss:
            with JsonlWriter(candidates) as cand:
                for src in inputs:
                    _validate_source(Path(src), layout, ctx, result, dups, cand, rej, iss, extra_rules, index,
                                     erased, rules_cache)
            dropped = {d: (k, how) for d, k, how in index.kept_and_dropped()} if index is not None else {}
            result.valid = _dedupe(candidates, layout.manifest, dups.duplicates(), result, rej, iss, dropped,
                                   layout.release_root)
            if index is not None:
                _group_counts(index, dropped, result)
            if result.valid == 0:  # nothing to release: the one structural failure of an empty manifest
                _tally(result, [Issue(code="manifest_empty", family="structure", file=layout.manifest.name,
                                      message="no valid record in any upload: the manifest would be empty",
                                      fix="add an upload with usable records, or fix the rejected rows "
                                          "(reports/rejected.jsonl) and the unused files in each upload's report")],
                       iss)
    finally:
        if rules_cache is not None:
            result.rules_checked, result.rules_reused = rules_cache.checked, rules_cache.reused
            rules_cache.close()
        if index is not None:
            index.close()
        if digests is not None:
            digests.close()
            ctx.digests = None
        if candidates.exists():
            os.unlink(candidates)
    atomic_write_json(layout.duplicates_report, duplicates_summary(result, identity.mostly_duplicates))
    write_json_schema(layout.schema)
    result.manifest_sha256 = sha256_file(layout.manifest)
    return result


def _validate_source(src: Path, layout: DataLayout, ctx: ValidationContext, result: PublishResult,
                     dups: DuplicateIds, cand: JsonlWriter, rej: JsonlWriter, iss: JsonlWriter,
                     extra_rules: ExtraRules | None = None, index: ContentIndex | None = None,
                     erased: ErasedSet | None = None, rules_cache: RuleCache | None = None) -> None:
    ctx.file = _display(src, layout.root)
    files_root = _files_root(layout, src)
    real_roots = (files_root.resolve(), layout.release_root.resolve()) if files_root else None
    for jl in iter_jsonl(src):
        if erased and isinstance(jl.value, dict) and erased.has_conv(str(jl.value.get("id"))):
            result.erased += 1  # the stages leave these out; a stale work file must not bring one back
            continue
        if jl.code == "empty_file":  # an upload with no usable record: its own report says why; not a bad row
            _tally(result, [Issue(code="upload_no_records", severity=Severity.WARN, family="structure",
                                  file=ctx.file, message="this upload produced no usable record",
                                  fix="read the upload's reports under work/<upload>/ (each unused file with its "
                                      "reason and fix), or remove the upload folder")], iss)
            continue
        if jl.error:
            issue = _line_issue(src, jl.code or "json_invalid", jl.error, jl.line)
            issues = [issue.model_copy(update={"file": ctx.file})]
            finding = Finding.of(None, False, None, [_issue_dict(i) for i in issues])
            placed = []
        else:
            placed = place_record_files(files_root, layout.release_root, jl.value,
                                        real_roots) if files_root else []
            key = rules_cache.key(jl.raw, ctx.file, jl.line, jl.value, ctx.base_dir,
                                  getattr(extra_rules, "record_key", None)) if rules_cache is not None else None
            finding = rules_cache.get(key) if rules_cache is not None else None
            if finding is None:
                finding = _check_record(jl.value, jl.line, ctx, extra_rules)
                if rules_cache is not None:
                    rules_cache.put(key, finding)
        if jl.line:
            result.records_in += 1
        origin = record_origin(jl.value) if isinstance(jl.value, dict) else None
        _tally_finding(result, finding, iss)
        if finding.ok and finding.line_text is not None:
            dups.add(finding.record_id or "")
            upload = origin.upload if origin is not None and origin.upload else src.parent.name
            result.records_by_upload[upload] += 1
            if index is not None and finding.text_identity is not None:  # a text: its key came with the finding
                conv_id, key = finding.text_identity
                index_text(index, conv_id, upload, key, lambda f=finding: f.line)
            elif index is not None:
                index_record(index, finding.line, upload, ctx.base_dir,
                             sha256=ctx.digests.sha256 if ctx.digests is not None else None)
            cand.write(finding.line_text)
            continue
        unplace(placed)
        if jl.line:
            result.rejected += 1
            traced = origin is not None and origin.file is not None
            rej.write({"file": origin.file if traced else ctx.file, "line": origin.line if traced else jl.line,
                       "upload": (origin.upload if origin is not None else None) or src.parent.name,
                       "kind": record_kind(jl.value) if isinstance(jl.value, dict) else "text",
                       "record_id": finding.record_id, "work_file": ctx.file, "work_line": jl.line,
                       "issues": finding.issues})


def _check_record(value: dict[str, Any], line: int, ctx: ValidationContext,
                  extra_rules: ExtraRules | None) -> Finding:
    """Every per-record rule (and the extra rules of a record that passed them) on one parsed line."""
    r = validate_record(value, ctx, line=line)
    issues, rec_ok = r.issues, r.ok
    line_obj = r.record.dump() if rec_ok and r.record is not None else None
    if line_obj is not None and extra_rules is not None:
        more = extra_rules(line_obj)
        issues = [*issues, *more]
        if any(i.severity is Severity.ERROR for i in more):
            rec_ok, line_obj = False, None
    origin = record_origin(value)
    if origin is not None and origin.file:  # name the uploaded file, not work/<upload>/redacted.jsonl
        issues = [i.model_copy(update={"file": origin.file, "line": origin.line}) if i.file in (None, ctx.file)
                  else i for i in issues]
    # through JSON once, so a finding read back from the cache writes the very same bytes
    line_obj, dicts = json.loads(json.dumps([line_obj, [_issue_dict(i) for i in issues]], ensure_ascii=False))
    return Finding.of(r.record_id, rec_ok, line_obj, dicts)


def _issue_dict(issue: Issue) -> dict[str, Any]:
    return issue.model_dump(mode="json", exclude_none=True)


def _tally_finding(result: PublishResult, finding: Finding, sink: JsonlWriter) -> None:
    """_tally for a finding's issues, written as the finding holds them."""
    for text, (code, severity, family) in zip(finding.issue_lines, finding.tallies, strict=True):
        sink.write(text)
        result.issues_by_code[code] += 1
        if (severity or Severity.ERROR.value) == Severity.ERROR.value:
            result.errors_by_family[family or "structure"] += 1
        else:
            result.warnings += 1
            result.warnings_by_family[family or "structure"] += 1


def _open_rules_cache(layout: DataLayout, ctx: ValidationContext, extra_rules: ExtraRules | None
                      ) -> RuleCache | None:
    """The per-record findings of earlier publishes (rules.cache), or None when they cannot be trusted: extra
    rules that do not say what shapes their findings (a plain function) are run on every record."""
    if extra_rules is not None and not isinstance(extra_rules, CacheableRules):
        return None
    extra = extra_rules.fingerprint() if extra_rules is not None else None
    return RuleCache.open(layout.publish_cache / "rules.sqlite", settings_fingerprint(ctx, extra), ctx.digests)


def _tally(result: PublishResult, issues: list[Issue], sink: JsonlWriter) -> None:
    for i in issues:
        sink.write(i.model_dump(mode="json", exclude_none=True))
        result.issues_by_code[i.code] += 1
        if i.severity is Severity.ERROR:
            result.errors_by_family[i.family] += 1
        else:
            result.warnings += 1
            result.warnings_by_family[i.family] += 1


def _dedupe(candidates: Path, manifest: Path, dup_hashes: set[int], result: PublishResult,
            rej: JsonlWriter, iss: JsonlWriter, dropped: dict[str, tuple[str, str]] | None = None,
            release_root: Path | None = None) -> int:
    """Copy candidates to the manifest, keeping the first record of each id (later ones are rejected) and
    leaving out the duplicates by content that `dropped` names (conv id -> (kept conv id, how))."""
    seen: set[str] = set()
    kept = 0
    dropped = dropped or {}
    with atomic_open(manifest, "w") as out:
        for jl in iter_jsonl(candidates, parse=bool(dup_hashes or dropped)):
            if jl.error and jl.code == "empty_file":
                break
            if dup_hashes or dropped:
                rid = jl.value["id"]
                if rid in dropped:
                    _drop_duplicate(jl.value, *dropped[rid], result, rej, iss)
                    if release_root is not None:  # its files were placed for validation: not released
                        unplace(p for p in (resolve_inside(release_root, r) for r in record_file_rels(jl.value))
                                if p is not None)
                    continue
                if id_hash(rid) in dup_hashes:
                    if rid in seen:
                        origin = record_origin(jl.value)
                        issue = Issue(code="id_duplicate", family="manifest", record_id=rid, field="id",
                                      message="id is used by an earlier record; the first one is kept",
                                      fix="give every conversation a unique id", file=origin.file, line=origin.line)
                        _tally(result, [issue], iss)
                        rej.write({"file": origin.file, "line": origin.line, "upload": origin.upload,
                                   "record_id": rid, "issues": [issue.model_dump(mode="json", exclude_none=True)]})
                        result.rejected += 1
                        continue
                    seen.add(rid)
                out.write(dumps_line(jl.value))
            else:
                out.write(jl.raw.decode("utf-8") + "\n")
            kept += 1
    return kept


def _drop_duplicate(record: dict, kept: str, how: str, result: PublishResult, rej: JsonlWriter,
                    iss: JsonlWriter) -> None:
    rid = record["id"]
    origin = record_origin(record)
    issue = Issue(code="duplicate_content", severity=Severity.WARN, family="manifest", record_id=rid, field="id",
                  message=f"duplicate_of {kept} ({how.replace('_', ' ')}): the same conversation was delivered "
                          "before, so this copy is left out of the release",
                  fix="nothing to do for a re-delivery; to release every copy (they stay in one split), set "
                      "validated_manifest's config identity.keep to 'all'",
                  file=origin.file, line=origin.line)
    _tally(result, [issue], iss)
    rej.write({"file": origin.file, "line": origin.line, "upload": origin.upload, "record_id": rid,
               "skipped": f"duplicate_of {kept}", "duplicate_of": kept, "how": how,
               "issues": [issue.model_dump(mode="json", exclude_none=True)]})
    result.rejected += 1
    result.duplicates += 1


def _group_counts(index: ContentIndex, dropped: dict[str, tuple[str, str]], result: PublishResult) -> None:
    for conv_id, (kept, how) in dropped.items():
        copy, first = index.item(conv_id), index.item(kept)
        if copy is None or first is None:
            continue
        key = (first[0], copy[0], how)
        result.duplicate_groups[key] += 1
        result.duplicate_seconds[key] += copy[1]


def duplicates_summary(result: PublishResult, mostly_share: float) -> dict[str, Any]:
    """reports/duplicates.json: what was left out as a duplicate, per pair of uploads and kind of match."""
    dup_by_upload: Counter = Counter()
    for (_, upload, _), n in result.duplicate_groups.items():
        dup_by_upload[upload] += n
    return {
        "duplicates": result.duplicates,
        "mostly_duplicates_share": mostly_share,
        "groups": [{"kept_upload": k, "upload": u, "kind": how, "copies": n,
                    "hours": round(result.duplicate_seconds[(k, u, how)] / 3600, 4)}
                   for (k, u, how), n in sorted(result.duplicate_groups.items())],
        "by_upload": {u: {"records": n, "duplicates": dup_by_upload[u]}
                      for u, n in sorted(result.records_by_upload.items())},
    }


def _files_root(layout: DataLayout, src: Path) -> Path | None:
    """The private release files of the upload `src` (work/<upload>/...jsonl) belongs to, else None."""
    src = Path(src)
    if src.parent.parent == layout.root / "work":
        return layout.release_files(src.parent.name)
    return None


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return path.name


def family_rows(issues_path: Path, family: str, cap: int = 50) -> tuple[int, int, list[dict]]:
    """(errors, warnings, first `cap` issues) of one rule family, streamed from reports/validation.jsonl."""
    errors = warnings = 0
    rows: list[dict] = []
    if not Path(issues_path).is_file():
        return 0, 0, rows
    for jl in iter_jsonl(issues_path):
        if jl.error:
            continue
        v = jl.value
        if v.get("family") != family:
            continue
        if v.get("severity") == Severity.ERROR.value:
            errors += 1
        else:
            warnings += 1
        if len(rows) < cap:
            rows.append(v)
    return errors, warnings, rows
