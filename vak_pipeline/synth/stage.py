"""The synth stage of an upload: work/<upload>/redacted.jsonl -> work/<upload>/synthesized.jsonl.

Every record passes through in input order; a text-only conversation (no audio, something said) is
rendered as a two-channel 24 kHz call: audio/<conv>.wav and alignments/<conv>.json are written to the
upload's release files, work/<upload>/release/ (the text was redacted before, and placeholders are spoken
as fake surrogates; a release publishes them only with the record), the surrogate map goes to
work/<upload>/synth/<conv>.json, and the record gets its audio block (marked synthesized),
turn times and voice ids in meta.speakers. A record whose rendering fails passes through unchanged,
with an Issue, and stays text-only. So does a record that already breaks one of its own rules (`gate`):
re-timing its turns would hide the error from validation, which rejects it instead.

It runs on the stage runner (core.runner): an item per conversation to render, keyed by its input line,
the engine and settings stamp (engine name and version, settings fingerprint, gap model), the channel map
and SYNTH_VERSION; an unchanged key whose files and output line are in place is not rendered again (the
ledger, work/<upload>/ledger/synth.jsonl, says where). Every conversation renders in a fresh process forked
from a clean forkserver (the pool's `fresh`): espeak-ng carries state from one utterance to the next inside
a process, so that is how the bytes stay the same whatever the worker count and whatever ran before.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from ..core.issue import Issue, Severity
from ..core.runner import Job, RunCounts, Stage, output_token, run_stage
from ..core.stage import (
    Done,
    LedgerEntry,
    PlacedWriter,
    PoolSettings,
    PreviousLines,
    StageResult,
    item_key,
    write_report,
)
from ..layout import DataLayout
from ..schema import VakRecord
from ..storage import atomic_write_bytes, atomic_write_json, atomic_write_text, dumps_line, iter_jsonl
from ..uploads.descriptor import SynthChoice, UploadDescriptor, load_descriptor
from ..uploads.limits import DEFAULT_LIMITS, InputLimits
from .budget import choose
from .engine import EngineUnavailable, get_engine
from .gate import gate_context, rule_errors
from .render import is_text_only, render_conversation, settings_hash
from .settings import SYNTH_VERSION, GapModel, SynthSettings
from .timeline import choose_gap_model, is_real_call

STAGE = "synth"


class SynthResult(StageResult):
    """What one run of the stage did, for the asset metadata, the CLI and the funnel (synth_report.json)."""

    stage: str = STAGE
    records: int = 0
    rendered: int = 0
    cached: int = 0
    passed_through: int = 0  # records with audio already (or nothing to say), or breaking their own rules
    invalid: int = 0  # text-only records left unrendered because they break a rule (validation rejects them)
    failed: int = 0
    audio_s: float = 0.0  # seconds of audio rendered in this run
    gap_model: dict[str, Any] = Field(default_factory=dict)
    engine: str = ""
    stayed_text: dict[str, int] = Field(default_factory=dict)  # why text-only conversations were not rendered
    budget: dict[str, Any] = Field(default_factory=dict)  # the upload's synth choice

    def stayed(self, reason: str) -> None:
        self.stayed_text[reason] = self.stayed_text.get(reason, 0) + 1


def _issue(
    upload: str,
    code: str,
    message: str,
    fix: str,
    line: int | None = None,
    record_id: str | None = None,
    severity: Severity = Severity.ERROR,
) -> Issue:
    return Issue(
        code=code,
        severity=severity,
        message=message,
        fix=fix,
        family="synth",
        file=f"work/{upload}/redacted.jsonl",
        line=line,
        record_id=record_id,
    )


def _channel_map(desc: UploadDescriptor | None) -> dict[str, str] | None:
    cmap = desc.defaults.channel_map if desc is not None else None
    if cmap and set(cmap) == {"0", "1"} and sorted(cmap.values()) == ["agent", "user"]:
        return dict(cmap)
    return None


def job_key(raw: bytes, stamp: str, channel_map: dict[str, str] | None) -> str:
    """What a rendering is made from: the record line, the engine and settings stamp, the channel map, and
    SYNTH_VERSION (an explicit constant: a comment edit must not re-render every conversation)."""
    return item_key(SYNTH_VERSION, hashlib.sha256(raw).hexdigest(), stamp, channel_map)


def _stamp(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _render_batch(jobs: list[dict[str, Any]]) -> list[LedgerEntry]:
    """Worker: render conversations (one per fresh process: the pool's `fresh`), never raising."""
    return [render_job(job) for job in jobs]


def render_job(job: dict[str, Any]) -> LedgerEntry:
    """Worker: render one conversation, write its files; its entry holds its output line (placed by the stage),
    its seconds of audio and the stamps of its files, or why it failed."""
    layout = DataLayout.at(job["root"])
    rec = VakRecord.model_validate_json(job["raw"])
    settings = SynthSettings.model_validate(job["settings"])
    try:
        engine = get_engine(settings)
        out = render_conversation(
            rec, settings, GapModel.model_validate(job["gaps"]), engine, layout.audio_rel(rec.id), job["channel_map"]
        )
    except Exception as exc:  # an engine or data problem fails this record only
        return LedgerEntry(item=rec.id, key=job["key"], failure=_issue(
            job["upload"], "synth_render_failed", f"not rendered: {type(exc).__name__}: {str(exc)[:200]}",
            "the record stays text-only; fix its text or the engine settings", job["line"], rec.id))
    import io

    import soundfile as sf

    buf = io.BytesIO()
    sf.write(buf, out.stereo, 24_000, subtype="PCM_16", format="WAV")
    files_root = layout.release_files(job["upload"])  # published only if a release keeps the record
    wav = files_root / out.record.audio.path  # type: ignore[union-attr]
    wav.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(wav, buf.getvalue())
    align = files_root / layout.alignment_rel(rec.id)
    align.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(align, out.alignment.model_dump_json(indent=1) + "\n")
    side_path = layout.synth_sidecar(job["upload"], rec.id)
    side_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(side_path, out.sidecar)  # the surrogate map (recipes.spoken reads it)
    files = {str(p.relative_to(layout.root)): _stamp(p) for p in (wav, align, side_path)}
    return LedgerEntry(item=rec.id, key=job["key"], outputs={
        "line": dumps_line(out.record.dump()), "audio_s": out.record.audio.duration_s,  # type: ignore[union-attr]
        "files": files})


def synth_upload(layout: DataLayout, upload: str, settings: SynthSettings | None = None,
                 limits: InputLimits = DEFAULT_LIMITS, run_key: str = "") -> SynthResult:
    """Render the text-only conversations of one upload (those its synth choice and budget pick: budget.py);
    see the module docstring. Writes work/<upload>/synth_report.json. `limits`: the input limits every stage
    reads (the descriptor's bounds; a turn over limits.max_turn_chars is not rendered either)."""
    stage = _SynthStage(layout, upload, settings or SynthSettings(), limits)
    stage.run_key = run_key  # the run config that shaped it (report.freshness)
    if not layout.redacted(upload).exists():
        stage.result.issues.append(_issue(upload, "synth_input_missing", "redacted.jsonl does not exist",
                                          "materialize redacted_manifest for this upload first"))
        write_report(stage.report_path(), stage.result, **stage.report_extra())
        return stage.result
    run_stage(stage)
    return stage.result


def _spoken_chars(rec: VakRecord) -> int:
    return sum(len(t.text or "") for t in rec.turns if t.is_spoken)


def upload_channel_map(layout: DataLayout, upload: str,
                       limits: InputLimits = DEFAULT_LIMITS) -> dict[str, str] | None:
    """The upload descriptor's two-channel map, when it names one (else the settings' default)."""
    desc, _ = load_descriptor(layout.upload_dir(upload), limits)
    return _channel_map(desc)


class _SynthStage(Stage):
    """synth on the stage runner: a job per text-only conversation to render; every other line passes through."""

    name = STAGE
    version = SYNTH_VERSION
    report = DataLayout.synth_report
    # espeak-ng carries state between utterances inside a process: one conversation per fresh process,
    # forked from a server that imported the engine once
    pool = PoolSettings("forkserver", fresh=True, preload=("vak_pipeline.synth.warm",))
    process = staticmethod(_render_batch)

    def __init__(self, layout: DataLayout, upload: str, settings: SynthSettings,
                 limits: InputLimits = DEFAULT_LIMITS) -> None:
        self.layout, self.upload, self.settings, self.limits = layout, upload, settings, limits
        self.result = SynthResult(upload=upload)
        self.workers = max(1, settings.workers or os.cpu_count() or 1)
        self.raw: dict[str, str] = {}  # item -> its input line, while it renders (a failure passes it through)
        self.hits: dict[str, str] = {}  # item -> its previous output line, once `reusable` found it in place

    def outputs(self) -> list[Any]:
        self.previous, self.out = PreviousLines(self.layout.synthesized(self.upload)), \
            PlacedWriter(self.layout.synthesized(self.upload))
        return [self.previous, self.out]

    def items(self) -> Iterator[Job | Done]:
        layout, upload, settings, result, limits = self.layout, self.upload, self.settings, self.result, self.limits
        src = layout.redacted(upload)
        gaps = choose_gap_model(settings, (r for r in _records(src) if is_real_call(r)))
        result.gap_model = gaps.model_dump(mode="json")
        engine = None
        if settings.enabled:
            try:
                engine = get_engine(settings)
            except EngineUnavailable as exc:
                result.issues.append(_issue(upload, "synth_engine_unavailable", str(exc),
                                            "install what the message names, or set synth engine to espeak-ng"))
        result.engine = f"{engine.name} {engine.version}" if engine is not None else "none"
        stamp = settings_hash(settings, gaps, engine) if engine is not None else ""
        desc, _ = load_descriptor(layout.upload_dir(upload), limits)
        cmap = _channel_map(desc)
        self.choice = choice = desc.defaults.synth if desc is not None else SynthChoice()
        result.budget = choice.model_dump(mode="json")
        chosen = choose(choice, ((r.id, _spoken_chars(r)) for r in _records(src)  # too long: never rendered, no cost
                                 if is_text_only(r) and over_limits(r, settings, limits) is None), settings.rate_wpm)
        gate = gate_context(layout.release_files(upload), f"work/{upload}/redacted.jsonl")  # where its logs are
        for jl in iter_jsonl(src, parse=False):
            if jl.error:
                continue  # the redaction stage reported it; nothing of it reaches validation
            result.records += 1
            raw_line = jl.raw.decode("utf-8").rstrip("\n") + "\n"
            try:
                rec = VakRecord.model_validate_json(jl.raw)
            except ValidationError:
                result.passed_through += 1
                yield Done((raw_line, None, None))
                continue
            if engine is None or not is_text_only(rec):
                result.passed_through += 1
                why = None if not is_text_only(rec) else "synth_off" if not settings.enabled else "engine_unavailable"
                yield Done((raw_line, why, None))
                continue
            too_long = over_limits(rec, settings, limits)
            if too_long is not None:
                result.passed_through += 1
                yield Done((raw_line, "too_long", _issue(
                    upload, "synth_text_too_long", f"not rendered: {too_long[0]}", "split the conversation's long "
                    f"turns in the upload, or raise {_where(too_long[1])}; the record stays text-only", jl.line, rec.id,
                    Severity.WARN).model_copy(update={"turn_index": too_long[2]})))
                continue
            if chosen is not None and rec.id not in chosen:  # the upload's choice: stays a text conversation
                result.passed_through += 1
                yield Done((raw_line, "upload_chose_none" if choice.render == "none" else "over_budget", None))
                continue
            broken = rule_errors(jl.raw, gate, jl.line)
            if broken:
                first = broken[0]
                result.invalid += 1
                result.passed_through += 1
                yield Done((raw_line, "breaks_a_rule", _issue(
                    upload, "synth_skipped_invalid", f"not rendered: the record breaks rule {first.code}"
                    + (f" at turn {first.turn_index}" if first.turn_index is not None else "")
                    + (f" (+{len(broken) - 1} more)" if len(broken) > 1 else ""),
                    "fix the record in the upload; validation rejects it with the rule's fix", jl.line, rec.id,
                    Severity.WARN)))  # the record goes on; validation's ERROR is the one that counts
                continue
            key = job_key(jl.raw, stamp, cmap)
            self.raw[rec.id] = raw_line
            yield Job(rec.id, key, {"root": str(layout.root.resolve()), "upload": upload, "raw": jl.raw, "key": key,
                                    "line": jl.line, "settings": settings.model_dump(mode="json"),
                                    "gaps": gaps.model_dump(mode="json"), "channel_map": cmap})

    def reusable(self, entry: LedgerEntry) -> bool:
        """A rendering whose files are as it left them and whose line is still where it was placed (a failure
        is tried again)."""
        files = entry.outputs.get("files")
        if entry.failure is not None or not isinstance(files, dict) or not files:
            return False
        if any(_stamp(self.layout.root / rel) != stamp for rel, stamp in files.items()):
            return False
        line = self.previous.read(entry.outputs.get("line"))
        if line is None:
            return False
        self.hits[entry.item] = line
        return True

    def passed(self, value: tuple[str, str | None, Issue | None]) -> None:
        line, why, issue = value
        self.out.write(line)
        if why is not None:
            self.result.stayed(why)
        if issue is not None:
            self.result.issues.append(issue)

    def accept(self, entry: LedgerEntry, reused: bool) -> LedgerEntry:
        raw = self.raw.pop(entry.item, "")
        if entry.failure is not None:
            self.result.failed += 1
            self.result.stayed("render_failed")
            self.out.write(raw)
            return entry
        if reused:
            self.result.cached += 1
            line = self.hits.pop(entry.item)
        else:
            self.result.rendered += 1
            self.result.audio_s += float(entry.outputs["audio_s"])
            line = entry.outputs["line"]
        return entry.model_copy(update={"outputs": {**entry.outputs, "line": self.out.place(line)}})

    def finish(self, counts: RunCounts) -> None:
        over = self.result.stayed_text.get("over_budget")
        if over:
            self.result.issues.append(_issue(
                self.upload, "synth_over_budget", f"{over} text conversation(s) stay text: over the upload's synth "
                f"budget ({self.choice.budget_hours} h, fraction {self.choice.budget_fraction})",
                "raise synth.budget_hours (or set synth.render: all) in upload.yaml to render more",
                severity=Severity.WARN))

    def upstream(self) -> str:
        return output_token(self.layout.redaction_report(self.upload))

    def output_path(self) -> Path:
        return self.layout.synthesized(self.upload)

    def report_extra(self) -> dict[str, Any]:
        return {"stayed_text": dict(self.result.stayed_text), "budget": self.result.budget,
                "engine": self.result.engine}


def over_limits(rec: VakRecord, settings: SynthSettings,
                limits: InputLimits | None = None) -> tuple[str, str, int | None] | None:
    """(why, the setting, turn index) when the record's spoken text is beyond synth's limits (or the input
    limits' max_turn_chars, when lower), else None.

    Checked before anything is rendered: a 20 MB chat message would otherwise be spoken for days."""
    total = 0
    most, setting = settings.max_turn_chars, "max_turn_chars"
    if limits is not None and limits.max_turn_chars < most:
        most, setting = limits.max_turn_chars, "limits.max_turn_chars"
    for i, t in enumerate(rec.turns):
        if not t.is_spoken or not t.text:
            continue
        if len(t.text) > most:
            return (f"turn {i} has {len(t.text)} characters, more than {setting} ({most})", setting, i)
        total += len(t.text)
    if total > settings.max_record_chars:
        return (f"the conversation has {total} spoken characters, more than max_record_chars "
                f"({settings.max_record_chars})", "max_record_chars", None)
    return None


def _where(setting: str) -> str:
    """Where a limit named by `over_limits` is set (fix texts name only settings that exist)."""
    return f"the data resource's {setting}" if setting.startswith("limits.") else f"synth {setting}"


def _records(path: Path):
    for jl in iter_jsonl(path, parse=False):
        if jl.error:
            continue
        try:
            yield VakRecord.model_validate_json(jl.raw)
        except ValidationError:
            continue
