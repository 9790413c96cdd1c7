"""The funnel: how much of each upload made it through each stage, and every file or row that did not.

Per upload and in total, audio and text apart (a ticket spanning hours is not audio):

    in -> decoded -> transcribed -> turns -> redacted -> valid -> published (per split)

Audio counts recordings and hours; text counts conversations (decoded and transcribed do not apply).
A conversation is counted by its origin (`rules.origin.record_kind`): a chat or ticket the synth stage
rendered as a call stays a text conversation through valid and published, and its audio is counted apart
as `synthesized` (conversations and hours: rendered by synth, valid, published), so the audio columns
are real recordings only and a steward sees how much of the audio is synthetic.
Every drop names the uploaded file (and line, or recording), the reason code, the message and the fix,
so a steward can act on it without reading work/ files. Stage issues come through `stage_reports`
(the one adapter to the stages' report files); counts come from the stage outputs themselves.
Streamed: memory grows with the number of recordings and drops, not with text records.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..core.issue import Severity
from ..core.keyed_store import KeyedStore, LineChunks
from ..layout import DataLayout
from ..rules.line_facts import LineFacts, LineFactsStore
from ..rules.origin import record_kind, record_origin, synthesized_audio
from ..splits import SplitStore
from ..storage import iter_jsonl, parse_json_line
from ..uploads.inventory import Inventory
from .stage_reports import stage_issues, synth_stayed_text

STAGES = ("in", "decoded", "transcribed", "turns", "redacted", "valid", "published")
TEXT_STAGES = ("in", "turns", "redacted", "valid", "published")
UPLOAD_STAGES = STAGES[:STAGES.index("redacted") + 1]  # the stages of an upload's own (partitioned) run
SYNTH_STAGES = ("synthesized", "valid", "published")  # text conversations with synthesized audio
TEXT_KINDS = ("aidb", "messages", "vakforge")
TOTAL = "(total)"


class Drop(BaseModel):
    """One file or row the pipeline left out, where it came from, why, and what to do about it."""

    upload: str
    stage: str = Field(description="The funnel stage it did not pass.")
    kind: str = Field(description="audio | text | upload (a file of the upload that is not a conversation)")
    file: str = Field(description="The uploaded file, <upload>/<path>.")
    line: int | None = None
    record_id: str | None = None
    code: str
    message: str
    fix: str


class AudioStage(BaseModel):
    recordings: int = 0
    hours: float | None = 0.0  # None: not known at this stage (files not decoded yet)


class UploadFunnel(BaseModel):
    upload: str
    files: int = 0
    files_by_kind: dict[str, int] = Field(default_factory=dict)
    audio: dict[str, AudioStage] = Field(default_factory=dict)
    text: dict[str, int] = Field(default_factory=dict)
    synthesized: dict[str, AudioStage] = Field(
        default_factory=dict,
        description="Text conversations rendered as calls by synth (a subset of the text columns), and their hours.",
    )
    published_by_split: dict[str, dict[str, float]] = Field(default_factory=dict)
    stayed_text: dict[str, int] = Field(
        default_factory=dict, description="Text-only conversations synth did not render, by reason (the upload's "
                                          "synth choice or budget, too long, a broken rule, a failed render).")
    drops: list[Drop] = Field(default_factory=list)

    def drops_by_reason(self) -> dict[str, int]:
        return dict(Counter(d.code for d in self.drops).most_common())

    def audio_so_far(self) -> dict[str, dict[str, float | int | None]]:
        """Recordings and hours at each audio stage an upload's own run reaches (up to redaction)."""
        return {s: {"recordings": a.recordings, "hours": None if a.hours is None else round(a.hours, 4)}
                for s, a in self.audio.items() if s in UPLOAD_STAGES}

    def dropped_files(self, stage: str | None = None) -> list[str]:
        """Uploaded files with at least one drop (at `stage`), sorted."""
        return sorted({d.file for d in self.drops if stage is None or d.stage == stage})


class Funnel(BaseModel):
    uploads: list[UploadFunnel] = Field(default_factory=list)
    total: UploadFunnel = Field(default_factory=lambda: UploadFunnel(upload=TOTAL))

    def as_dict(self) -> dict[str, Any]:
        def one(u: UploadFunnel) -> dict[str, Any]:
            d = u.model_dump(mode="json", exclude={"drops"})
            d["drops_by_reason"] = u.drops_by_reason()
            d["dropped"] = len(u.drops)
            return d

        return {
            "uploads": [one(u) for u in self.uploads],
            "total": one(self.total),
            "drops": [d.model_dump(mode="json", exclude_none=True) for d in self.total.drops],
        }


def _empty(upload: str) -> UploadFunnel:
    f = UploadFunnel(upload=upload)
    f.audio = {s: AudioStage() for s in STAGES}
    f.audio["in"].hours = None
    f.text = {s: 0 for s in TEXT_STAGES}
    f.synthesized = {s: AudioStage() for s in SYNTH_STAGES}
    return f


def _inventory(layout: DataLayout, upload: str) -> Inventory | None:
    p = layout.inventory(upload)
    try:
        return Inventory.model_validate_json(p.read_bytes()) if p.is_file() else None
    except ValueError:
        return None


def _count_lines(path: Path) -> int:
    n = 0
    with open(path, "rb") as fh:
        for raw in fh:
            n += bool(raw.strip())
    return n


def _audio_durations(layout: DataLayout, upload: str) -> dict[str, float]:
    out: dict[str, float] = {}
    path = layout.audio_index(upload)
    if path.is_file():
        for jl in iter_jsonl(path):
            if isinstance(jl.value, dict) and "conv_id" in jl.value:
                out[jl.value["conv_id"]] = float(jl.value.get("duration_s") or 0.0)
    return out


def _is_audio(rec: dict[str, Any]) -> bool:
    """A real recording (synthesized audio of a chat or ticket is not: that conversation counts as text)."""
    return record_kind(rec) == "audio"


def _hours(rec: dict[str, Any]) -> float:
    audio = rec.get("audio")
    return float(audio.get("duration_s") or 0.0) / 3600 if isinstance(audio, dict) else 0.0


def _add_audio(f: UploadFunnel, stage: str, hours: float, synthesized: bool = False) -> None:
    a = (f.synthesized if synthesized else f.audio)[stage]
    a.recordings += 1
    a.hours = (a.hours or 0.0) + hours


def _add_record(f: UploadFunnel, stage: str, audio: bool, hours: float, synthesized: bool) -> None:
    """A record counted at `stage`: as audio when uploaded as audio (`record_kind`), else as text (and apart as
    synthesized audio when the synth stage rendered it)."""
    if audio:
        _add_audio(f, stage, hours)
    else:
        f.text[stage] += 1
        if synthesized:
            _add_audio(f, stage, hours, synthesized=True)


def _manifest_records(layout: DataLayout, splits: SplitStore | None
                      ) -> Iterator[tuple[LineFacts, str | None, bytes]]:
    """(facts, split, line) of every record of the manifest: the facts kept by each line's bytes
    (rules.line_facts: a delivery parses only its own lines), the splits looked up a batch at a time."""
    if not layout.manifest.is_file():
        return
    with LineFactsStore.open(layout.line_facts) as store:
        lines = store.iter_facts(jl.raw for jl in iter_jsonl(layout.manifest, parse=False) if jl.raw)
        while batch := list(itertools.islice(lines, 2000)):
            records = [(raw, f) for raw, f in batch if f.record]
            assigned = splits.get_many("assignment", [str(f.id) for _, f in records]) if splits is not None else {}
            for raw, f in records:
                yield f, assigned.get(str(f.id)), raw


FUNNEL_LINES_VERSION = "1"  # bump when what `_line_tally` keeps of a line, or how a tally reads it, changes


def _line_tally(raw: bytes) -> list[Any]:
    """What the funnel counts of one stage output line, as JSON: [] (no record), ["text"], or ["audio", its
    audio.duration_s (None when not set or zero: the decoded duration counts then), its id]."""
    rec = parse_json_line(0, raw).value
    if not isinstance(rec, dict):
        return []
    if not _is_audio(rec):
        return ["text"]
    return ["audio", rec["audio"].get("duration_s") or None, rec.get("id")]


def _tally_records(path: Path, f: UploadFunnel, stage: str, durations: dict[str, float],
                   lines: LineChunks | None = None) -> None:
    """Count a stage output's records at `stage`; `lines` keeps each line's tally by its bytes (a delivery
    parses only its own upload's files)."""
    if not path.is_file():
        return
    items = (jl.raw or b"" for jl in iter_jsonl(path, parse=False))
    tallies = lines.values(items) if lines is not None else ((raw, _line_tally(raw)) for raw in items)
    for _, tally in tallies:
        if not tally:
            continue
        if tally[0] == "audio":
            duration = tally[1] if tally[1] is not None else durations.get(tally[2], 0.0)
            _add_audio(f, stage, float(duration) / 3600)
        else:
            f.text[stage] += 1


# ERROR issues after which the record still goes on (it is counted, or rejected, further down the funnel)
NOT_DROPS = frozenset({"redaction_alignment_invalid", "redaction_audio_missing",
                       # synth: a conversation it could not render stays a text conversation (see stayed_text)
                       "synth_render_failed", "synth_engine_unavailable", "synth_input_missing"})


def _drop_from_issue(upload: str, stage: str, issue: Any) -> Drop | None:
    if issue.code in NOT_DROPS or (issue.severity is not Severity.ERROR and issue.code != "file_unknown_kind"):
        return None
    file = issue.file or f"{upload}/(upload)"
    kind = "audio" if issue.family in ("audio", "speakers") else "text"
    if (
        issue.code == "file_unknown_kind"
        or issue.code.startswith("upload_")
        or file.endswith(("upload.yaml", "recordings.csv"))
    ):
        kind = "upload"
    return Drop(
        upload=upload,
        stage="in" if issue.code == "file_unknown_kind" else stage,
        kind=kind,
        file=file,
        line=issue.line,
        record_id=issue.record_id,
        code=issue.code,
        message=issue.message,
        fix=issue.fix,
    )


@contextlib.contextmanager
def funnel_lines(layout: DataLayout) -> Iterator[LineChunks]:
    """Every upload's records' tallies (`_line_tally`) kept by their lines' bytes in the publish's keyed store
    (table `funnel_lines`, one pass over every upload's files: what no upload holds any more goes)."""
    with KeyedStore.open(layout.line_facts, "funnel_lines") as store:
        yield LineChunks(store, FUNNEL_LINES_VERSION, _line_tally)


def upload_funnel(layout: DataLayout, upload: str, lines: LineChunks | None = None) -> UploadFunnel:
    """The funnel of one upload up to `redacted` (valid and published need the whole manifest: `build_funnel`);
    `lines`: its records' tallies kept by their lines' bytes (`funnel_lines`)."""
    f = _empty(upload)
    inv = _inventory(layout, upload)
    if inv is not None:
        f.files = len(inv.files)
        f.files_by_kind = inv.counts()
        f.audio["in"].recordings = len(inv.of_kind("audio"))
        up = layout.upload_dir(upload)
        f.text["in"] = sum(
            _count_lines(up / x.name) for x in inv.files if x.kind in TEXT_KINDS and (up / x.name).is_file()
        )
    durations = _audio_durations(layout, upload)
    for h in durations.values():
        _add_audio(f, "decoded", h / 3600)
    tpath = layout.transcripts(upload)
    if tpath.is_file():
        for jl in iter_jsonl(tpath):
            if isinstance(jl.value, dict) and "conv_id" in jl.value:
                _add_audio(f, "transcribed", durations.get(jl.value["conv_id"], 0.0) / 3600)
    _tally_records(layout.conversations(upload), f, "turns", durations, lines)
    _tally_records(layout.redacted(upload), f, "redacted", durations, lines)
    if layout.synthesized(upload).is_file():
        for jl in iter_jsonl(layout.synthesized(upload)):
            if isinstance(jl.value, dict) and synthesized_audio(jl.value):
                _add_audio(f, "synthesized", _hours(jl.value), synthesized=True)
    f.stayed_text = synth_stayed_text(layout, upload)
    for si in stage_issues(layout, upload):
        drop = _drop_from_issue(upload, si.stage, si.issue)
        if drop is not None:
            f.drops.append(drop)
    _trace_work_lines(layout, upload, f.drops)
    return f


def _trace_work_lines(layout: DataLayout, upload: str, drops: list[Drop]) -> None:
    """Drops a later stage reported by a line of work/<upload>/conversations.jsonl: named by the uploaded file."""
    work = layout.conversations(upload).relative_to(layout.root).as_posix()
    wanted = {d.line for d in drops if d.file == work and d.line}
    if not wanted or not layout.conversations(upload).is_file():
        return
    origins = {}
    for jl in iter_jsonl(layout.conversations(upload)):
        if jl.line in wanted and isinstance(jl.value, dict):
            origins[jl.line] = record_origin(jl.value)
    for d in drops:
        o = origins.get(d.line) if d.file == work else None
        if o is not None and o.file:
            d.file, d.line = o.file, o.line
            d.kind = "text" if o.line else "audio"


def _upload_of_rejected(row: dict[str, Any]) -> str | None:
    if isinstance(row.get("upload"), str):
        return row["upload"]
    file = str(row.get("file") or "")
    parts = file.split("/")
    if len(parts) >= 3 and parts[0] == "work":
        return parts[1]
    return parts[0] if len(parts) >= 2 else None


def build_funnel(layout: DataLayout, splits: SplitStore | None = None) -> Funnel:
    """Every upload's funnel through publication, plus the total; see the module docstring."""
    uploads = layout.uploads()
    with funnel_lines(layout) as lines:
        funnels = {u: upload_funnel(layout, u, lines) for u in uploads}
    for facts, split, raw in _manifest_records(layout, splits):
        f = funnels.get(facts.upload or "")
        if f is None:
            f = funnels.setdefault(facts.upload or "(unknown)", _empty(facts.upload or "(unknown)"))
        hours = facts.hours if facts.hours is not None else _hours(json.loads(raw))  # raises as before
        _add_record(f, "valid", facts.audio, hours, facts.synthesized)
        if splits is None:
            continue
        rid = str(facts.id)
        if split is None:
            reason = splits.held_out_reason(rid)
            f.drops.append(
                Drop(
                    upload=f.upload,
                    stage="published",
                    kind="audio" if facts.audio else "text",
                    file=facts.file or f"{f.upload}/?",
                    line=facts.line,
                    record_id=rid,
                    code="held_out" if reason is not None else "unassigned",
                    message=f"not in any split: {reason or 'not assigned'}",
                    fix="see the split warnings; a held-out conversation shares a speaker across "
                    "splits or breaks the split rules"
                    if reason is not None
                    else "re-materialize splits",
                )
            )
            continue
        _add_record(f, "published", facts.audio, hours, facts.synthesized)
        by = f.published_by_split.setdefault(split, _split_counts())
        if facts.audio:
            by["audio"] += 1
            by["audio_hours"] += hours
        else:
            by["text"] += 1
            if facts.synthesized:
                by["synthesized"] += 1
                by["synthesized_hours"] += hours
    if layout.rejected.is_file():
        for jl in iter_jsonl(layout.rejected):
            row = jl.value
            if not isinstance(row, dict):
                continue
            upload = _upload_of_rejected(row) or "(unknown)"
            f = funnels.setdefault(upload, _empty(upload))
            issues = [i for i in row.get("issues") or [] if isinstance(i, dict)]
            first = next((i for i in issues if i.get("severity", "ERROR") == "ERROR"), issues[0] if issues else {})
            f.drops.append(
                Drop(
                    upload=upload,
                    stage="valid",
                    kind=str(row.get("kind") or "text"),
                    file=str(row.get("file") or f"{upload}/?"),
                    line=row.get("line"),
                    record_id=row.get("record_id"),
                    code=str(first.get("code", "rejected")),
                    message=str(first.get("message", ""))
                    + (f" (+{len(issues) - 1} more issues)" if len(issues) > 1 else ""),
                    fix=str(first.get("fix", "")),
                )
            )
    out = Funnel(uploads=[funnels[u] for u in sorted(funnels)])
    out.total = _sum(out.uploads)
    return out


def _split_counts() -> dict[str, float]:
    """Published per split: real recordings and their hours; text conversations, of which synthesized (hours)."""
    return {"audio": 0, "audio_hours": 0.0, "text": 0, "synthesized": 0, "synthesized_hours": 0.0}


def _sum(parts: list[UploadFunnel]) -> UploadFunnel:
    t = _empty(TOTAL)
    for f in parts:
        t.files += f.files
        for k, v in f.files_by_kind.items():
            t.files_by_kind[k] = t.files_by_kind.get(k, 0) + v
        for s, a in f.audio.items():
            t.audio[s].recordings += a.recordings
            if t.audio[s].hours is not None and a.hours is not None:
                t.audio[s].hours = (t.audio[s].hours or 0.0) + a.hours
        for s, n in f.text.items():
            t.text[s] = t.text.get(s, 0) + n
        for s, a in f.synthesized.items():
            t.synthesized[s].recordings += a.recordings
            t.synthesized[s].hours = (t.synthesized[s].hours or 0.0) + (a.hours or 0.0)
        for split, by in f.published_by_split.items():
            tb = t.published_by_split.setdefault(split, _split_counts())
            for k, v in by.items():
                tb[k] += v
        t.drops.extend(f.drops)
    return t


__all__ = ["STAGES", "SYNTH_STAGES", "TEXT_STAGES", "Drop", "Funnel", "UploadFunnel", "build_funnel", "upload_funnel"]
