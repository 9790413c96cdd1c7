"""The redaction stage of an upload: work/<upload>/conversations.jsonl -> work/<upload>/redacted.jsonl.

Per record: text and tool JSON redacted, its redaction log written, and the private normalized recording
(work/<upload>/audio/<conv>.wav) and word timings (work/<upload>/alignments/) written with PII masked, all
under work/<upload>/release/ (`DataLayout.release_files`) at the paths the record names (audio/<conv>.wav,
alignments/<conv>.json, redactions/<conv>.json); audio.path, meta.pii_redacted and meta.redaction_log set.
Nothing is written to the published tree: publish links the files of the records a release keeps into its
candidate (release.place_record_files), so a blocked or rejected record's audio is never published.
Synthetic rows are passed on as they are. Skipped (skip_redaction) rows get no audio.

On the stage core: a record is an item keyed by its line's bytes, the descriptor's names, the settings
fingerprint (STAGE_VERSION, the redaction and recognizer code, the name lists and the locale pack files)
and its private source files; its ledger entry holds where its redacted line is, its counts, and stamps
of its published files. An unchanged record whose published files are as this stage left them is copied
from the previous redacted.jsonl without running the recognizers; a failed one is reported again, not
retried, until its key changes.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from ..core.corrections import Correction, cleared_spans
from ..core.corrections import for_upload as corrections_for_upload
from ..core.issue import Issue, Severity
from ..core.runner import Job, Stage, output_token, run_stage
from ..core.stage import (
    SLOT,
    Done,
    KeyTemplate,
    LedgerEntry,
    PlacedWriter,
    PoolSettings,
    PreviousLines,
    StageResult,
    write_report,
)
from ..layout import DataLayout
from ..locales import UnknownLocale, get_pack
from ..parallel import jobs_to_pay
from ..schema import Alignment, VakRecord
from ..storage import (
    atomic_write_bytes,
    atomic_write_text,
    dumps_line,
    iter_jsonl,
    json_file_bytes,
    resolve_inside,
    sha256_file,
)
from ..uploads.descriptor import load_descriptor
from ..uploads.limits import DEFAULT_LIMITS, InputLimits
from .audio import publish_copy, write_masked
from .published import Memo, clean_published, pseudonym_key
from .redact import TextMemo, redact_record_full
from .settings import STAGE_VERSION, RedactionSettings, stage_version  # noqa: F401  (re-exported)

log = logging.getLogger(__name__)
STAGE = "redacted_manifest"
# What a pool costs and what it saves (bench/bench_redaction_stage.py on the e2e chats, 2 cores): a record takes
# about 1.5 ms here; a worker costs about 2 s before its first record (imports, wordfreq, the packs, the name
# lexicon). Below `jobs_to_pay` records (about 4,400 with 2 workers) one process is faster and uses less CPU.
# The pool is spawned, not a preloaded forkserver: a process has one forkserver, and the first stage to start
# it decides what it preloads, so a warm redaction server left synth's later per-conversation processes cold
# (synth 3x slower in the e2e bench's in-process run).
RECORD_S = 0.0015
WORKER_START_S = 2.0
POOL = PoolSettings("spawn")


class RedactionResult(StageResult):
    """What one run of the stage did (or one record's share of it, added up by `_merge`)."""

    stage: str = STAGE
    records: int = Field(0, description="records read from conversations.jsonl")
    redacted: int = Field(0, description="records redacted in this run")
    unchanged: int = Field(0, description="records copied from the last output (same input, settings, files)")
    synthetic: int = Field(0, description="synthetic records published as they are")
    skipped_redaction: int = Field(0, description="records left unredacted under skip_redaction (rejected later)")
    failed: int = Field(0, description="records left out of redacted.jsonl (see issues)")
    audio_masked: int = Field(0, description="recordings published with PII masked")
    spans: int = Field(0, description="values replaced by placeholders in this run")
    counts_by_type: dict[str, int] = Field(default_factory=dict, description="replaced values by PII type")
    schema_misfits: int = Field(0, description="replacements that no longer fit their field's schema")
    review_cleared: int = Field(0, description="spans a human reviewer said are not PII, left in the text")
    review_kept: int = Field(0, description="spans a reviewer removed that stay redacted (validated identifiers)")


def descriptor_names(layout: DataLayout, upload: str, limits: InputLimits = DEFAULT_LIMITS) -> tuple[str, ...]:
    """Every person name the upload descriptor lists (defaults and per-file rows): redacted everywhere."""
    desc, _ = load_descriptor(layout.upload_dir(upload), limits)
    if desc is None:
        return ()
    names = set(desc.defaults.names)
    for row in desc.overrides.values():
        val = row.overrides.get("names")
        if isinstance(val, list):
            names.update(str(n) for n in val)
    return tuple(sorted(n for n in names if n and n.strip()))


def _issue(upload: str, code: str, message: str, fix: str, line: int | None = None,
           record_id: str | None = None) -> Issue:
    return Issue(code=code, message=message, fix=fix, family="privacy", file=f"work/{upload}/conversations.jsonl",
                 line=line, record_id=record_id)


# Paths here are strings joined to the root: on an unchanged rerun these stamps are most of the work per
# record, and building pathlib paths cost more than the stats themselves.
_MISSING = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)  # what Path.exists() reads as "not there"


def _file_stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno in _MISSING:
            return None
        raise
    return [st.st_size, st.st_mtime_ns]


def _content_hash(path: str) -> str | None:
    return sha256_file(Path(path))[:16] if os.path.isfile(path) else None


def _bytes_hash(data: bytes) -> str:
    """`_content_hash` of a file holding `data`: the stamp of a log just written, without reading it back."""
    return hashlib.sha256(data).hexdigest()[:16]


def _sources(layout: DataLayout, upload: str, conv_id: str) -> dict[str, Any]:
    """The private files a record's redaction reads besides its line: part of its key."""
    root = os.fspath(layout.root)
    return {"audio": _file_stamp(os.path.join(root, layout.normalized_audio_rel(upload, conv_id))),
            "align": _content_hash(os.path.join(root, layout.work_alignment_rel(upload, conv_id)))}  # see tagging


def _published(layout: DataLayout, upload: str, conv_id: str, log: str | None = None) -> dict[str, Any]:
    """What a reused record relies on being as this stage left it: its release files (work/<upload>/release/).
    `log`: the hash of the log this run wrote (`_bytes_hash`), else it is read from the file."""
    root = os.fspath(layout.release_files(upload))
    return {"audio": _file_stamp(os.path.join(root, layout.audio_rel(conv_id))),
            "align": _file_stamp(os.path.join(root, layout.alignment_rel(conv_id))),
            "log": log if log is not None else _content_hash(os.path.join(root, layout.redaction_rel(conv_id)))}


def redact_upload(layout: DataLayout, upload: str, settings: RedactionSettings | None = None,
                  workers: int = 1, batch: int = 64, limits: InputLimits = DEFAULT_LIMITS,
                  run_key: str = "", pool_from: int | None = None) -> RedactionResult:
    """Redact every record of one upload; see the module docstring. Bad lines become Issues; the issues and
    counts also go to work/<upload>/redaction_report.json (core.stage.write_report).

    workers > 1 redacts changed records in a spawned process pool (`POOL`), `batch` records per task
    (core.runner), once at least `pool_from` records are to redact (default: where a pool pays, `jobs_to_pay`;
    fewer are redacted here); lines, logs, ledger and issues come out in input order, identical to workers=1.
    """
    stage = _RedactStage(layout, upload, settings or RedactionSettings(), workers, batch, limits)
    if pool_from is not None:
        stage.pool_from = pool_from
    stage.run_key = run_key  # the run config that shaped it (report.freshness)
    if not layout.conversations(upload).exists():
        stage.result.issues.append(_issue(upload, "redaction_input_missing", "conversations.jsonl does not exist",
                                          "materialize tagged_turns for this upload first"))
        write_report(stage.report_path(), stage.result)
        return stage.result
    run_stage(stage)
    result = stage.result
    if result.skipped_redaction:
        log.warning("REDACTION SKIPPED for upload %s: %d real/public record(s) left unredacted and marked "
                    "meta.skip_redaction=true, pii_redacted=false; they will be rejected by validation and never "
                    "reach exports", upload, result.skipped_redaction)
    return result


class _RedactStage(Stage):
    """redacted_manifest on the stage runner: a job per real record to redact; every other line is known here."""

    name = STAGE
    version = STAGE_VERSION
    report = DataLayout.redaction_report
    pool = POOL

    def __init__(self, layout: DataLayout, upload: str, settings: RedactionSettings, workers: int,
                 batch: int, limits: InputLimits = DEFAULT_LIMITS) -> None:
        self.layout, self.upload, self.settings = layout, upload, settings
        self.workers, self.batch = workers, batch if workers > 1 else 1
        self.pool_from = jobs_to_pay(workers, RECORD_S, WORKER_START_S)
        self.result = RedactionResult(upload=upload)
        self.names = descriptor_names(layout, upload, limits)
        self.reviews = corrections_for_upload(layout.root, upload)  # what reviewers said is not PII
        # what the records of a process share: a new memo for this run here, one per worker for all its batches
        fingerprint = settings.fingerprint()
        self.memo: Memo = process_memo(fingerprint, new=True)[0]
        self.process = functools.partial(_redact_batch, layout, upload, self.names, settings, self.reviews,
                                         fingerprint)
        self.lines: dict[str, int] = {}  # item -> its line number in this run, while it is in flight
        self.hits: dict[str, tuple[LedgerEntry, str | None, RedactionResult]] = {}  # reusable entries, as reused

    def outputs(self) -> list[Any]:
        path = self.layout.redacted(self.upload)
        self.previous, self.out = PreviousLines(path), PlacedWriter(path)
        return [self.previous, self.out]

    def report_extra(self) -> dict[str, Any]:
        return {"counts_by_type": dict(sorted(self.result.counts_by_type.items()))}

    def pool_from_now(self, previous: int) -> int:
        """0 (the pool at once) when conversations.jsonl holds at least `pool_from` more lines than the last run's
        ledger holds entries (a first run of a big upload): the workers start while this process reads and keys
        the first records, instead of after `pool_from` of them (about 2 s of the e2e chats' 10,000)."""
        if self.workers > 1 and self.pool_from > 1 and _lines(self.layout.conversations(self.upload)) - previous \
                >= self.pool_from:
            return 0
        return self.pool_from

    def code_version(self) -> str:
        return stage_version()  # STAGE_VERSION, the recognizers' version and the packs

    def upstream(self) -> str:
        return output_token(self.layout.speech_report(self.upload), "tagged_turns")

    def output_path(self) -> Path:
        return self.layout.redacted(self.upload)

    def items(self) -> Iterator[Job | Done]:
        """The upload's lines in order: a Job for a record to redact, or Done((line, result part)) for one whose
        outcome is known here (bad, synthetic, skipped)."""
        layout, upload, settings, result = self.layout, self.upload, self.settings, self.result
        # the fingerprint holds the version, recognizers and pack files; with the names, encoded once a run
        keys = KeyTemplate(STAGE_VERSION, SLOT, [self.names, settings.fingerprint()], SLOT)
        for jl in iter_jsonl(layout.conversations(upload), parse=False):
            if jl.error:
                if jl.code != "empty_file":
                    yield Done((None, RedactionResult(issues=[_issue(
                        upload, f"redaction_{jl.code}", jl.error, "fix or remove this line in the tagged_turns output",
                        jl.line)])))
                continue
            result.records += 1
            try:
                rec = VakRecord.model_validate_json(jl.raw)
            except ValidationError as exc:
                yield Done((None, RedactionResult(failed=1, issues=[_issue(
                    upload, "redaction_record_invalid", f"record does not match the canonical schema "
                    f"({exc.error_count()} errors); not redacted, left out of redacted.jsonl",
                    "fix the record in the text/speech stage output", jl.line)])))
                continue
            if rec.meta.source == "synthetic":  # no real person's data: published as it is
                yield Done(_publish_synthetic(layout, upload, rec, self.names, jl.line, self.memo))
                continue
            if settings.skip_redaction:  # marked, rejected by validation; its audio is never published
                meta = rec.meta.model_copy(update={"skip_redaction": True, "pii_redacted": False,
                                                   "redaction_log": None})
                yield Done((dumps_line(rec.model_copy(update={"meta": meta}).dump()),
                            RedactionResult(skipped_redaction=1)))
                continue
            review = self.reviews.get(rec.id)
            key = keys(hashlib.sha256(jl.raw or b"").hexdigest(),
                       {**_sources(layout, upload, rec.id), "review": review.digest() if review else None})
            self.lines[rec.id] = jl.line
            yield Job(rec.id, key, (jl.raw, jl.line, key))

    def reusable(self, entry: LedgerEntry) -> bool:
        reused = _reused(self.layout, self.upload, entry, self.previous, self.lines[entry.item])
        if reused is not None:
            self.hits[entry.item] = reused
        return reused is not None

    def passed(self, value: tuple[str | None, RedactionResult]) -> None:
        line, part = value
        _merge(self.result, part)
        if line is not None:
            self.out.write(line)

    def accept(self, entry: LedgerEntry, reused: bool) -> LedgerEntry:
        """Place the record's line; its issues reach the result through the runner (`entry.reported()`)."""
        self.lines.pop(entry.item, None)
        if reused:
            entry, line, part = self.hits.pop(entry.item)
        else:
            line, part = entry.outputs.pop("_line", None), RedactionResult.model_validate(entry.outputs.pop("_part"))
        _merge(self.result, part.model_copy(update={"issues": []}))
        if line is not None:
            entry.outputs["line"] = self.out.place(line)
        return entry


def _lines(path: Path) -> int:
    """How many line ends `path` holds, read in blocks: at least as many as the records it may hold."""
    n = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            n += block.count(b"\n")
    return n


def _reused(layout: DataLayout, upload: str, entry: LedgerEntry, previous: PreviousLines,
            line_no: int) -> tuple[LedgerEntry, str | None, RedactionResult] | None:
    """(entry, line, result part) of an unchanged record: its failure, or its redacted line when its published
    files are as this stage left them. Its issues are reported again, with the record's line of this run."""
    if entry.failure is not None or entry.issues:
        entry = entry.model_copy(update={
            "failure": entry.failure.model_copy(update={"line": line_no}) if entry.failure is not None else None,
            "issues": [i.model_copy(update={"line": line_no}) for i in entry.issues]})
    if entry.failure is not None:
        return entry, None, RedactionResult(failed=1)
    line = previous.read(entry.outputs.get("line"))
    if line is None or entry.outputs.get("published") != _published(layout, upload, entry.item):
        return None
    return entry, line, RedactionResult(unchanged=1, counts_by_type=dict(entry.outputs.get("counts", {})))


def _publish_synthetic(layout: DataLayout, upload: str, rec: VakRecord, names: tuple[str, ...],
                       line: int, memo: Memo | None = None) -> tuple[str | None, RedactionResult]:
    """A synthetic record's audio and word timings, kept unchanged as its release files; its audio.path made
    the release's. Its turns are nobody's words, but its speaker ids and metadata came from whoever built the
    upload (an e-mail as a speaker id, a customer's name in metadata): cleaned like every other record's."""
    part = RedactionResult(synthetic=1)
    try:
        rec, counts = clean_published(rec, get_pack(rec.locale), names,
                                      functools.partial(pseudonym_key, layout.root / "work"), memo)
        part.counts_by_type.update(counts)
    except UnknownLocale:
        pass  # validation rejects the locale; nothing of this record is published
    if rec.audio is not None:
        src = resolve_inside(layout.root, rec.audio.path)
        if src is None or not src.is_file():
            part.issues.append(_issue(upload, "redaction_audio_missing", "the record's audio file is missing",
                                      "materialize normalized_audio for this upload", line, rec.id))
        else:
            publish_copy(src, layout.release_files(upload) / layout.audio_rel(rec.id))
            rec = rec.model_copy(update={"audio": rec.audio.model_copy(update={"path": layout.audio_rel(rec.id)})})
    align = layout.work_alignment(upload, rec.id)
    if align.is_file():
        publish_copy(align, layout.release_files(upload) / layout.alignment_rel(rec.id))
    return dumps_line(rec.dump()), part


def _merge(result: RedactionResult, part: RedactionResult) -> None:
    """Add one record's (or line's) outcome to the upload's result, keeping issue order."""
    for f in ("redacted", "unchanged", "synthetic", "skipped_redaction", "failed", "audio_masked", "spans",
              "schema_misfits", "review_cleared", "review_kept"):
        if n := getattr(part, f):  # a record's part is mostly zeros: no pydantic setattr for those
            setattr(result, f, getattr(result, f) + n)
    for t, n in part.counts_by_type.items():
        result.counts_by_type[t] = result.counts_by_type.get(t, 0) + n
    result.issues.extend(part.issues)


_memo: tuple[str, tuple[Memo, TextMemo]] | None = None  # this process's (settings fingerprint, memos)


def process_memo(fingerprint: str, new: bool = False) -> tuple[Memo, TextMemo]:
    """The memos of the records this process redacts (findings of the strings outside the turns, the recognizers'
    matches per text): the stage's process starts one per run (`new`); a worker keeps its own for every batch it
    is given (a copy sent with each batch forgot the texts of the last). Only a cache: answers never change."""
    global _memo
    if new or _memo is None or _memo[0] != fingerprint:
        _memo = (fingerprint, ({}, {}))
    return _memo[1]


def _redact_batch(layout: DataLayout, upload: str, names: tuple[str, ...], settings: RedactionSettings,
                  reviews: Mapping[str, Correction], fingerprint: str, jobs: list[tuple[bytes, int, str]]
                  ) -> list[LedgerEntry]:
    """Redact a batch of changed records (in a worker process or here): a ledger entry each, carrying its line
    (`_line`) and result part (`_part`) to the stage, which places them (`_RedactStage.accept`), and the stamps of
    its release files (`_published`). The memos are this process's (`process_memo`)."""
    memo = process_memo(fingerprint)
    out: list[LedgerEntry] = []
    for raw, line_no, key in jobs:
        rec = VakRecord.model_validate_json(raw)
        part = RedactionResult()
        audio_path = resolve_inside(layout.root, rec.audio.path) if rec.audio is not None else None
        done = _redact_one(layout, upload, rec, names, settings, audio_path, layout.work_alignment(upload, rec.id),
                           line_no, part, reviews.get(rec.id), memo)
        carried = {"_part": part.model_dump(exclude={"issues"})}
        if done is None:
            issues = part.issues if len(part.issues) > 1 else []
            out.append(LedgerEntry(item=rec.id, key=key, failure=part.issues[-1], issues=issues, outputs=carried))
            continue
        line, counts, log_hash = done
        # the stamps of its release files, taken where they were just written (after publishing, so the next run
        # sees them); the log's from the bytes written: no process reads the logs back
        out.append(LedgerEntry(item=rec.id, key=key, outputs={
            "counts": counts, "published": _published(layout, upload, rec.id, log_hash), "_line": line, **carried},
            issues=part.issues))
    return out


def _redact_one(layout: DataLayout, upload: str, rec: VakRecord, names: tuple[str, ...], settings: RedactionSettings,
                audio_path: Path | None, align_path: Path, line: int,
                result: RedactionResult, review: Correction | None = None,
                memo: tuple[Memo, TextMemo] | None = None) -> tuple[str, dict[str, int], str] | None:
    """The record's redacted line, its replacements per type and the hash of its redaction log (`_bytes_hash`),
    its release files written; None when it cannot be redacted (the reason in `result`)."""
    try:
        pack = get_pack(rec.locale)
    except UnknownLocale:
        result.failed += 1
        result.issues.append(_issue(upload, "redaction_unknown_locale",
                                    "record names an unregistered locale pack; not redacted, left out of "
                                    "redacted.jsonl",
                                    "set a registered locale", line, rec.id))
        return None
    alignment = None
    if align_path.exists():
        try:
            alignment = Alignment.model_validate_json(align_path.read_bytes())
        except (ValidationError, OSError):
            result.issues.append(_issue(upload, "redaction_alignment_invalid",
                                        f"the word timings of {rec.id} are unreadable; audio spans use turn timing",
                                        "re-run transcripts for this conversation", line, rec.id))
    cleared = cleared_spans(review, rec.turns) if review is not None else None
    strings, texts = memo if memo is not None else (None, None)
    outcome = redact_record_full(rec, pack, names, settings.audio, alignment, settings.ner, cleared, texts)
    result.review_cleared += outcome.cleared
    result.review_kept += outcome.kept
    if outcome.kept:
        result.issues.append(_issue(
            upload, "review_pii_kept", f"a reviewer said {outcome.kept} redacted span(s) are not personal data, "
            "but they are validated identifiers (a phone number, e-mail, card or national id); they stay redacted",
            "nothing to do if the reviewer was wrong; to publish such a value, correct the text in review so it no "
            "longer reads as one", line, rec.id).model_copy(update={"severity": Severity.WARN, "family": "review"}))
    redacted_ok = True
    # the strings outside the turns (speaker ids, metadata, descriptor fields): pii.fields, issue 26
    record, meta_counts = clean_published(outcome.record, pack, names,
                                          functools.partial(pseudonym_key, layout.root / "work"), strings)
    if rec.audio is not None:
        if audio_path is None or not audio_path.is_file():
            redacted_ok = False
            result.issues.append(_issue(upload, "redaction_audio_missing",
                                        "the record's normalized audio is missing; nothing was published and "
                                        "pii_redacted stays false", "materialize normalized_audio for this upload",
                                        line, rec.id))
        else:
            published = layout.release_files(upload) / layout.audio_rel(rec.id)
            if outcome.masks:
                write_masked(audio_path, published, outcome.masks, settings.audio)
                result.audio_masked += 1
            else:
                publish_copy(audio_path, published)
            record = record.model_copy(update={"audio": record.audio.model_copy(
                update={"path": layout.audio_rel(rec.id)})})
    if alignment is not None:
        words = outcome.alignment if outcome.alignment is not None else alignment
        atomic_write_text(layout.release_files(upload) / layout.alignment_rel(rec.id),
                          words.model_dump_json(indent=1) + "\n")
    rel = layout.redaction_rel(rec.id)
    # not fsynced: the ledger keeps the log's content hash (`_published`), so a log a crash lost or truncated
    # makes its record redacted again on the next run instead of reused
    log_bytes = json_file_bytes(outcome.log.model_dump(mode="json", exclude_none=True))
    atomic_write_bytes(layout.release_files(upload) / rel, log_bytes, durable=False)
    meta = record.meta.model_copy(update={"pii_redacted": redacted_ok, "redaction_log": rel,
                                                  "skip_redaction": None})
    result.redacted += 1
    result.spans += len(outcome.log.spans)
    result.schema_misfits += sum(1 for s in outcome.log.spans if getattr(s, "schema_fit", True) is False)
    counts = dict(outcome.counts)
    for t, n in meta_counts.items():
        counts[t] = counts.get(t, 0) + n
    for t, n in counts.items():
        result.counts_by_type[t] = result.counts_by_type.get(t, 0) + n
    line_out = json.dumps(record.model_copy(update={"meta": meta}).dump(), ensure_ascii=False,
                          separators=(",", ":")) + "\n"
    return line_out, counts, _bytes_hash(log_bytes)
