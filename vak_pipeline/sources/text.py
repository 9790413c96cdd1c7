"""Text sources of an upload: `*.aidb.jsonl` and `*.messages.jsonl` streamed as canonical records.

The tagged_turns stage joins these records with the transcribed calls. Records are yielded one at a
time (bounded memory); every problem is yielded as an Issue and the rest of the upload goes on.
aidb records carry typed pseudonym tokens already: their redaction logs are written here, atomically,
to work/<upload>/release/redactions/<conv_id>.json (the upload's release files), and the redaction stage
adds its own spans to the same log.

`import_text` is the stage on the core (core.stage) that tagged_turns runs: each well-formed line is an item
keyed by its bytes, file and line number, the upload settings of its file, the locale packs and
TEXT_IMPORT_VERSION. An unchanged line is taken from the ledger (its record from the previous
work/<upload>/text_records.jsonl, its issues from the ledger) instead of being checked and mapped again;
a refused line is reported again, not retried. Its report is the `text_import` section of speech_report.json.
`iter_text_records` is the same import with nothing kept (`vak import-text`).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.erasure import load_erased
from ..core.issue import Issue, Severity
from ..core.runner import Job, RunCounts, Stage, iter_stage
from ..core.stage import (
    SLOT,
    Done,
    KeyTemplate,
    LedgerEntry,
    PlacedWriter,
    PreviousLines,
    StageResult,
)
from ..layout import DataLayout
from ..locales.registry import packs_fingerprint
from ..schema.record import VakRecord
from ..storage import JsonLine, JsonlWriter, atomic_write_json, dumps_line, iter_jsonl, sha256_file
from ..uploads.descriptor import load_descriptor
from ..uploads.ids import public_file
from ..uploads.ingested import recorded_fingerprint
from ..uploads.inventory import is_plain_file, links
from ..uploads.limits import DEFAULT_LIMITS, InputLimits, first_long_turn, turn_count
from ..uploads.links import link_issue
from ..uploads.names import write_name_map
from . import aidb, messages
from .aidb import AidbImportContext
from .importing import ImportedRecord, LineImport
from .messages import MessagesImportContext

AIDB_SUFFIX = ".aidb.jsonl"
MESSAGES_SUFFIX = ".messages.jsonl"
TEXT_STAGE = "text_import"
# bump when a line would import differently (part of tagged_turns' code_version); 2: limits; 3: ids (issue 26);
# 4: ids by the strict identifier policy (pii.identifiers)
TEXT_IMPORT_VERSION = "4"


def text_files(upload_dir: Path) -> list[tuple[str, Path]]:
    """(path relative to the upload, path) of every text-source file, sorted; hidden entries skipped."""
    out: list[tuple[str, Path]] = []
    if Path(upload_dir).is_symlink():  # refused by the descriptor; its folder is not even listed
        return out
    for p in sorted(Path(upload_dir).rglob("*.jsonl")):
        rel = p.relative_to(upload_dir).as_posix()
        if any(part.startswith(".") for part in rel.split("/")) or not is_plain_file(upload_dir, p):
            continue
        if rel.lower().endswith((AIDB_SUFFIX, MESSAGES_SUFFIX)):
            out.append((rel, p))
    return out


@dataclass(frozen=True)
class _Format:
    """What differs between the two text formats: the context type and the per-line functions."""

    kind: str
    line: Callable[[Any, Any, int], LineImport]
    line_error: Callable[[str | None, str, str, int | None], Issue]
    duplicate: Callable[[str], Callable[[str, int, int], Issue]]


_AIDB = _Format("aidb", aidb.import_aidb_line, aidb.line_error, aidb.duplicate_id)
_MESSAGES = _Format("messages", messages.import_messages_line, messages.line_error, messages.duplicate_id)


class TextImportResult(StageResult):
    """What one run of the text import did for one upload (it runs inside tagged_turns)."""

    stage: str = TEXT_STAGE
    lines: int = 0  # JSON lines read from the upload's text sources
    imported: int = 0  # lines mapped in this run
    reused: int = 0  # unchanged lines taken from the ledger, not mapped again (their record, or their issues)
    records: int = 0  # canonical records yielded (and written to text_records.jsonl)
    records_file: str = ""


@dataclass(frozen=True, slots=True)
class TextRecord:
    """A record of the text import with its line as written to text_records.jsonl: a consumer writing the
    same record again (tagged_turns) takes the line instead of serializing the record a second time."""

    record: VakRecord
    line: str


@dataclass
class _File:
    """One text file as the import goes through it: its format and context, and the ids its lines used so far."""

    fmt: _Format
    ctx: Any
    duplicate: Callable[[str, int, int], Issue]
    seen: dict[str, int]
    keys: KeyTemplate | None = None


def _lines(layout: DataLayout, upload: str, limits: InputLimits,
           keep_map: bool) -> Iterator[Issue | tuple[_File, JsonLine]]:
    """The descriptor's and the files' issues, and every well-formed line with its file, in file and line order.
    A line over `limits.max_line_bytes` is skipped unread (an issue)."""
    for src in _files(layout, upload, limits, keep_map=keep_map):
        if isinstance(src, Issue):
            yield src
            continue
        fmt, ctx, path = src
        file = _File(fmt, ctx, fmt.duplicate(ctx.file), {})
        for jl in iter_jsonl(path, max_line_bytes=limits.max_line_bytes):
            if jl.error:
                issue = fmt.line_error(jl.code, jl.error, ctx.file, jl.line)
                if jl.code == "line_too_long":
                    issue = issue.model_copy(update={"fix": "split the record, or raise the data resource's "
                                                            "limits.max_line_bytes"})
                yield issue
                continue
            yield file, jl


def _map(file: _File, jl: JsonLine, limits: InputLimits) -> LineImport:
    """Check and map one line; one with a turn over `limits.max_turn_chars` is refused before it is mapped."""
    long = turn_too_long(jl.value, file.fmt.kind, limits, file.ctx.file, jl.line)
    return LineImport(source_id=None, checked=False, pre=[long]) if long is not None \
        else file.fmt.line(jl.value, file.ctx, jl.line)


def _settle(layout: DataLayout, logs_of: str | None, file: _File, li: LineImport, line: int, erased: Any,
            refuse: Callable[[VakRecord], bool] | None, write_logs: bool) -> tuple[list[Issue | ImportedRecord], bool]:
    """A line's issues and record in order, with the checks that depend on more than the line (a duplicate id,
    the erasure ledger); and whether its record was withdrawn (not kept, not logged, not named, not recorded)."""
    out: list[Issue | ImportedRecord] = []
    withdrawn = False
    for x in li.settle(file.seen, line, file.duplicate):
        if not isinstance(x, ImportedRecord):
            out.append(x)
        elif erased and (erased.has_conv(x.record.id) or (refuse is not None and refuse(x.record))):
            out.append(erased_issue(file.ctx.file, line))
            withdrawn = True
        else:
            if write_logs and x.redaction_log is not None:
                # the pipeline's logs wait in the upload's release files; a plain import's land in root
                write_redaction_log(layout, logs_of, x)
            out.append(x)
    return out, withdrawn


def _entry(item: str, key: str, li: LineImport, place: dict[str, Any] | None) -> LedgerEntry:
    """What a line gave, for the ledger: its source id, its issues (how many came before the duplicate check),
    and where its record is."""
    issues = li.pre + li.post
    failure = None if li.imported else next((i for i in issues if i.severity == Severity.ERROR), None)
    outputs: dict[str, Any] = {"id": li.source_id, "checked": li.checked, "pre": len(li.pre),
                               "mapped": li.imported is not None}
    if place is not None and li.imported is not None:
        outputs["record"] = place
        outputs["log"] = li.imported.record.meta.redaction_log  # aidb: the token log it was written with
    return LedgerEntry(item=item, key=key, outputs=outputs, failure=failure,
                       issues=issues if issues != [failure] else [])


class _TextImportStage(Stage):
    """The text import on the stage runner: an item per well-formed line, mapped here, its record placed in
    text_records.jsonl and emitted (with its issues, in order) to tagged_turns as it comes."""

    name = TEXT_STAGE
    version = TEXT_IMPORT_VERSION
    report = DataLayout.speech_report
    section = TEXT_STAGE

    def __init__(self, layout: DataLayout, upload: str, result: TextImportResult, limits: InputLimits,
                 refuse: Callable[[VakRecord], bool] | None) -> None:
        self.layout, self.upload, self.result, self.limits, self.refuse = layout, upload, result, limits, refuse
        self.packs = packs_fingerprint()  # LID cues and the locale of every record come from the packs
        self.erased = load_erased(layout.root)
        self.inflight: dict[str, tuple[_File, JsonLine]] = {}
        self.mapped: dict[str, tuple[LineImport, str | None]] = {}  # item -> its import (and reused line)
        self.emitted: list[TextRecord | Issue] = []
        self.process = self._map_lines  # here: the import contexts are not sent to workers

    def outputs(self) -> list[Any]:
        self.previous, self.out = PreviousLines(self.layout.text_records(self.upload)), \
            PlacedWriter(self.layout.text_records(self.upload))
        return [self.previous, self.out]

    def items(self) -> Iterator[Job | Done]:
        for x in _lines(self.layout, self.upload, self.limits, keep_map=True):
            if isinstance(x, Issue):
                yield Done(x)
                continue
            file, jl = x
            if file.keys is None:  # what a file's lines share (the file, its settings, the packs) encoded once
                file.keys = KeyTemplate(TEXT_IMPORT_VERSION, file.fmt.kind, file.ctx.file, SLOT, SLOT,
                                        file.ctx.settings.model_dump(mode="json"), self.packs,
                                        self.limits.max_turn_chars, self.limits.max_turns)  # over a limit: refused
            item = f"{file.ctx.file}:{jl.line}"
            self.inflight[item] = (file, jl)
            key = file.keys(jl.line, hashlib.sha256(jl.raw or b"").hexdigest())
            yield Job(item, key, (item, key))

    def _map_lines(self, jobs: list[tuple[str, str]]) -> list[LedgerEntry]:
        out = []
        for item, key in jobs:
            file, jl = self.inflight[item]
            self.mapped[item] = (_map(file, jl, self.limits), None)
            out.append(LedgerEntry(item=item, key=key))  # what it gave is recorded once it is settled (accept)
        return out

    def reusable(self, entry: LedgerEntry) -> bool:
        """The line as the ledger recorded it, when its record and log are still there."""
        out, line = entry.outputs, self.inflight[entry.item][1].line
        imported, text = None, None
        if out.get("mapped"):
            text = self.previous.read(out.get("record"))
            log = out.get("log")
            if text is None or (log is not None and not (self.layout.release_files(self.upload) / log).is_file()):
                return False
            imported = ImportedRecord(VakRecord.model_validate_json(text), None, line)
        issues, n_pre = entry.reported(), int(out.get("pre", 0))
        self.mapped[entry.item] = (LineImport(source_id=out.get("id"), checked=bool(out.get("checked")),
                                              pre=issues[:n_pre], imported=imported, post=issues[n_pre:]), text)
        return True

    def passed(self, value: Issue) -> None:
        self.emit(value)

    def accept(self, entry: LedgerEntry, reused: bool) -> LedgerEntry | None:
        file, jl = self.inflight.pop(entry.item)
        li, text = self.mapped.pop(entry.item)
        outs, withdrawn = _settle(self.layout, self.upload, file, li, jl.line, self.erased, self.refuse, True)
        place = None
        for x in outs:
            if isinstance(x, ImportedRecord):
                line = text if text is not None else dumps_line(x.record.dump())
                place = self.out.place(line)
                self.emitted.append(TextRecord(x.record, line))
            else:
                self.emit(x)
        return None if withdrawn else _entry(entry.item, entry.key, li, place)

    def emit(self, issue: Issue) -> None:
        self.result.issues.append(issue)
        self.emitted.append(issue)

    def reported(self, entry: LedgerEntry) -> list[Issue]:
        return []  # emitted in order by accept, the duplicate-id check included

    def drain(self) -> list[TextRecord | Issue]:
        out, self.emitted = self.emitted, []
        return out

    def code_version(self) -> str:
        return f"{TEXT_IMPORT_VERSION}-{self.packs}"

    def upstream(self) -> str:
        return recorded_fingerprint(self.layout, self.upload) or ""

    def output_path(self) -> Path:
        return self.layout.text_records(self.upload)

    def finish(self, counts: RunCounts) -> None:
        self.result.lines, self.result.reused, self.result.imported = counts.processed + counts.reused, \
            counts.reused, counts.processed
        self.result.records = self.out.count


def _files(layout: DataLayout, upload: str, limits: InputLimits = DEFAULT_LIMITS,
           keep_map: bool = False) -> Iterator[Issue | tuple[_Format, Any, Path]]:
    """The descriptor's issues, then (format, import context, path) of each text file of the upload.

    Without a usable upload.yaml nothing is imported: provenance cannot be inferred safely. A text source
    that is a symbolic link is an issue naming the link; it is never opened.
    """
    upload_dir = layout.upload_dir(upload)
    files = text_files(upload_dir)
    linked = [rel for rel in links(upload_dir) if rel.lower().endswith((AIDB_SUFFIX, MESSAGES_SUFFIX))]
    for rel in linked:
        yield link_issue(upload_dir, upload_dir / rel, "text_source_symlink", "the text source is not read")
    if not files:
        return
    descriptor, issues = load_descriptor(upload_dir, limits)
    yield from issues
    if descriptor is None:
        return
    digests = {rel: functools.cache(lambda p=path: sha256_file(p)) for rel, path in files}  # read once, if needed
    public = {rel: public_file(rel, digests[rel], descriptor.settings_for(rel).locale)
              for rel, path in files}  # the public name (no PII from file or folder names): ids, issues, records
    if keep_map:  # the stage keeps the private map (vak lookup); a plain import writes nothing
        write_name_map(layout.name_map(upload, "text"), [(None, pub, rel) for rel, pub in public.items()])
    for rel, path in files:
        settings = descriptor.settings_for(rel)
        name = f"{upload}/{public[rel]}"
        if rel.lower().endswith(AIDB_SUFFIX):
            yield _AIDB, AidbImportContext(upload=upload, file=name, settings=settings, layout=layout,
                                           sha256=digests[rel]), path
        else:
            yield _MESSAGES, MessagesImportContext(upload=upload, file=name, settings=settings,
                                                   sha256=digests[rel]), path


def turn_too_long(obj: dict[str, Any], kind: str, limits: InputLimits, file: str, line: int) -> Issue | None:
    """The issue of a line with more turns than `limits.max_turns` or a turn text over `limits.max_turn_chars`
    (checked before mapping the line), or None."""
    rid = obj.get("id") if isinstance(obj.get("id"), str) else None
    n_turns = turn_count(obj, kind)
    if n_turns > limits.max_turns:
        return Issue(code=f"{kind}_too_many_turns", message=f"the record has {n_turns} turns, more than the limit of "
                     f"{limits.max_turns}; it is refused", fix="split the conversation into several records, or "
                     "raise the data resource's limits.max_turns", family="turns",
                     record_id=rid[:80] if rid else None, field="messages" if kind == "messages" else "turns",
                     file=file, line=line)
    long = first_long_turn(obj, kind, limits.max_turn_chars)
    if long is None:
        return None
    turn, fld, n = long
    return Issue(code=f"{kind}_turn_too_long", message=f"turn {turn} has {n} characters, more than the limit of "
                 f"{limits.max_turn_chars}; the record is refused", fix="split the text into shorter turns, or "
                 "raise the data resource's limits.max_turn_chars", family="turns",
                 record_id=rid[:80] if rid else None, turn_index=turn, field=fld, file=file, line=line)


def erased_issue(file: str, line: int | None) -> Issue:
    """A record left out because the erasure ledger names it (its id is not repeated here)."""
    return Issue(code="record_erased", severity=Severity.WARN, family="provenance", file=file, line=line,
                 message="this record was withdrawn by an erasure request (work/erasure/ledger.jsonl); it is left out",
                 fix="nothing to do: it stays out of every release; remove it from the file so it is not delivered "
                     "again")


def iter_text_records(layout: DataLayout, upload: str, write_logs: bool = True,
                      limits: InputLimits = DEFAULT_LIMITS) -> Iterator[VakRecord | Issue]:
    """Canonical records (and Issues) from the text sources of data/raw/<upload>/, streamed, nothing kept."""
    erased = load_erased(layout.root)
    for x in _lines(layout, upload, limits, keep_map=False):
        if isinstance(x, Issue):
            yield x
            continue
        file, jl = x
        outs, _ = _settle(layout, None, file, _map(file, jl, limits), jl.line, erased, None, write_logs)
        for y in outs:
            yield y.record if isinstance(y, ImportedRecord) else y


def import_text(layout: DataLayout, upload: str, result: TextImportResult,
                limits: InputLimits = DEFAULT_LIMITS,
                refuse: Callable[[VakRecord], bool] | None = None, run_key: str = "") -> Iterator[TextRecord | Issue]:
    """The text import stage: what `iter_text_records` yields, incrementally (see module doc), each record
    with its JSONL line.

    Iterate it to the end: then its ledger, work/<upload>/text_records.jsonl and its section of
    speech_report.json are written and `result` holds the counts and issues.
    """
    result.upload, result.records_file = upload, str(layout.text_records(upload))
    stage = _TextImportStage(layout, upload, result, limits, refuse)
    stage.run_key = run_key  # the run config that shaped it (report.freshness)
    yield from iter_stage(stage)


def write_redaction_log(layout: DataLayout, upload: str | None, item: ImportedRecord) -> Path:
    """The path meta.redaction_log names, under the upload's release files (published only with the record),
    or under the data root when no upload is named (`vak import-text`: beside the manifest it writes)."""
    assert item.record.meta.redaction_log is not None and item.redaction_log is not None
    base = layout.release_files(upload) if upload is not None else layout.root
    path = base / item.record.meta.redaction_log
    atomic_write_json(path, item.redaction_log.model_dump(mode="json", exclude_none=True))
    return path


def import_text_upload(upload_dir: Path, out_path: Path,
                       limits: InputLimits = DEFAULT_LIMITS) -> tuple[int, list[Issue]]:
    """`vak import-text`: write the canonical records of one upload folder to `out_path` (JSONL).

    The data root is the folder above raw/ when the upload sits in <root>/raw/<upload>; otherwise the
    output file's folder, so the redaction logs land beside the manifest that names them.
    """
    upload_dir = Path(upload_dir)
    if upload_dir.parent.name == "raw":
        layout: DataLayout = DataLayout.at(upload_dir.parent.parent)
    else:
        layout = _DetachedLayout(root=Path(out_path).parent, upload_path=upload_dir)
    issues: list[Issue] = []
    with JsonlWriter(Path(out_path)) as w:
        for item in iter_text_records(layout, upload_dir.name, limits=limits):
            if isinstance(item, Issue):
                issues.append(item)
            else:
                w.write(item.dump())
    return w.count, issues


@dataclass(frozen=True)
class _DetachedLayout(DataLayout):
    """A layout whose one upload lives outside root/raw (the CLI pointed at an arbitrary folder)."""

    upload_path: Path = Path(".")

    def upload_dir(self, upload: str) -> Path:
        return self.upload_path
