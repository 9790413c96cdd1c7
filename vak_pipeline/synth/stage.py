"""The synth stage of an upload: work/<upload>/redacted.jsonl -> work/<upload>/synthesized.jsonl.

Every record passes through in input order; a text-only conversation (no audio, something said) is
rendered as a two-channel 24 kHz call: audio/<conv>.wav and alignments/<conv>.json are written to the
upload's release files, work/<upload>/release/ (the text was redacted before, and placeholders are spoken
as fake surrogates; a release publishes them only with the record), the surrogate map and cache
key go to work/<upload>/synth/<conv>.json, and the record gets its audio block (marked synthesized),
turn times and voice ids in meta.speakers. A record whose rendering fails passes through unchanged,
with an Issue, and stays text-only. So does a record that already breaks one of its own rules (`gate`):
re-timing its turns would hide the error from validation, which rejects it instead.

Keying and processing are separable (`job_key`, `render_job`), for the shared stage core:
- key = sha256(input line, engine name and version, settings fingerprint, gap model, channel map,
  code version); an unchanged key with its outputs in place is not rendered again;
- every conversation renders in a fresh process forked from a clean forkserver (`max_tasks_per_child=1`):
  espeak-ng carries state from one utterance to the next inside a process, so that is how the bytes
  stay the same whatever the worker count and whatever was rendered before.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter, deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..core.issue import Issue, Severity
from ..layout import DataLayout
from ..schema import VakRecord
from ..sources.descriptor import SynthChoice, UploadDescriptor, load_descriptor
from ..sources.limits import DEFAULT_LIMITS, InputLimits
from ..storage import JsonlWriter, atomic_write_bytes, atomic_write_json, atomic_write_text, dumps_line, iter_jsonl
from .budget import choose
from .engine import EngineUnavailable, get_engine
from .gate import gate_context, rule_errors
from .render import is_text_only, render_conversation, settings_hash
from .settings import GapModel, SynthSettings
from .timeline import choose_gap_model, is_real_call


@dataclass
class SynthResult:
    records: int = 0
    rendered: int = 0
    cached: int = 0
    passed_through: int = 0  # records with audio already (or nothing to say), or breaking their own rules
    invalid: int = 0  # text-only records left unrendered because they break a rule (validation rejects them)
    failed: int = 0
    audio_s: float = 0.0  # seconds of audio rendered in this run
    gap_model: dict[str, Any] = field(default_factory=dict)
    engine: str = ""
    issues: list[Issue] = field(default_factory=list)
    stayed_text: Counter = field(default_factory=Counter)  # why text-only conversations were not rendered
    budget: dict[str, Any] = field(default_factory=dict)  # the upload's synth choice

    def report(self, upload: str) -> dict[str, Any]:
        """work/<upload>/synth_report.json: the same shape as every stage report (core.stage.write_report)."""
        counts = {k: v for k, v in self.__dict__.items() if isinstance(v, int | float) and not isinstance(v, bool)}
        return {"upload": upload, "stage": "synth", "counts": counts, "stayed_text": dict(self.stayed_text),
                "budget": self.budget, "engine": self.engine,
                "issues": [i.model_dump(mode="json", exclude_none=True) for i in self.issues]}


def code_version() -> str:
    """The synth asset's code_version and part of each conversation's key: SYNTH_VERSION, an explicit constant
    (a comment edit must not re-render every conversation)."""
    from .settings import SYNTH_VERSION

    return SYNTH_VERSION


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


def upload_channel_map(layout: DataLayout, upload: str,
                       limits: InputLimits = DEFAULT_LIMITS) -> dict[str, str] | None:
    """The upload descriptor's two-channel map, when it names one (else the settings' default)."""
    desc, _ = load_descriptor(layout.upload_dir(upload), limits)
    return _channel_map(desc)


def _channel_map(desc: UploadDescriptor | None) -> dict[str, str] | None:
    cmap = desc.defaults.channel_map if desc is not None else None
    if cmap and set(cmap) == {"0", "1"} and sorted(cmap.values()) == ["agent", "user"]:
        return dict(cmap)
    return None


def job_key(raw: bytes, stamp: str, channel_map: dict[str, str] | None) -> str:
    """What a rendering is made from: the record line, the engine and settings stamp, the channel map, the code."""
    h = hashlib.sha256(raw)
    h.update(json.dumps([stamp, channel_map, code_version()], sort_keys=True).encode())
    return h.hexdigest()


def _stamp(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def cached_line(layout: DataLayout, upload: str, conv_id: str, key: str) -> str | None:
    """The output line of an earlier rendering with this key, when its files are still as it left them."""
    try:
        side = json.loads(layout.synth_sidecar(upload, conv_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(side, dict) or side.get("key") != key:
        return None
    files = side.get("files") or {}
    for rel, stamp in files.items():
        if _stamp(layout.root / rel) != stamp:
            return None
    line = side.get("record_line")
    return line if isinstance(line, str) and line.endswith("\n") else None


def render_job(job: dict[str, Any]) -> dict[str, Any]:
    """Worker: render one conversation, write its files, return its output line (never raises)."""
    layout = DataLayout.at(job["root"])
    rec = VakRecord.model_validate_json(job["raw"])
    settings = SynthSettings.model_validate(job["settings"])
    try:
        engine = get_engine(settings)
        out = render_conversation(
            rec, settings, GapModel.model_validate(job["gaps"]), engine, layout.audio_rel(rec.id), job["channel_map"]
        )
    except Exception as exc:  # an engine or data problem fails this record only
        return {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
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
    line = dumps_line(out.record.dump())
    files = {str(p.relative_to(layout.root)): _stamp(p) for p in (wav, align)}
    side = dict(out.sidecar, key=job["key"], files=files, record_line=line)
    side_path = layout.synth_sidecar(job["upload"], rec.id)
    side_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(side_path, side)
    return {"line": line, "audio_s": out.record.audio.duration_s}  # type: ignore[union-attr]


def _pool(workers: int) -> ProcessPoolExecutor:
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload(["vak_pipeline.synth.warm"])
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, max_tasks_per_child=1)


def synth_upload(layout: DataLayout, upload: str, settings: SynthSettings | None = None,
                 limits: InputLimits = DEFAULT_LIMITS) -> SynthResult:
    """Render the text-only conversations of one upload (those its synth choice and budget pick: budget.py);
    see the module docstring. Writes work/<upload>/synth_report.json. `limits`: the input limits every stage
    reads (the descriptor's bounds; a turn over limits.max_turn_chars is not rendered either)."""
    result = _synth(layout, upload, settings or SynthSettings(), limits)
    atomic_write_json(layout.synth_report(upload), result.report(upload))
    return result


def _spoken_chars(rec: VakRecord) -> int:
    return sum(len(t.text or "") for t in rec.turns if t.is_spoken)


def _synth(layout: DataLayout, upload: str, settings: SynthSettings,
           limits: InputLimits = DEFAULT_LIMITS) -> SynthResult:
    src, dst = layout.redacted(upload), layout.synthesized(upload)
    result = SynthResult()
    if not src.exists():
        result.issues.append(
            _issue(
                upload,
                "synth_input_missing",
                "redacted.jsonl does not exist",
                "materialize redacted_manifest for this upload first",
            )
        )
        return result
    real = (r for r in _records(src) if is_real_call(r))
    gaps = choose_gap_model(settings, real)
    result.gap_model = gaps.model_dump(mode="json")
    engine = None
    if settings.enabled:
        try:
            engine = get_engine(settings)
        except EngineUnavailable as exc:
            result.issues.append(
                _issue(
                    upload,
                    "synth_engine_unavailable",
                    str(exc),
                    "install what the message names, or set synth engine to espeak-ng",
                )
            )
    result.engine = f"{engine.name} {engine.version}" if engine is not None else "none"
    stamp = settings_hash(settings, gaps, engine) if engine is not None else ""
    desc, _ = load_descriptor(layout.upload_dir(upload), limits)
    cmap = _channel_map(desc)
    choice = desc.defaults.synth if desc is not None else SynthChoice()
    result.budget = choice.model_dump(mode="json")
    chosen = choose(choice, ((r.id, _spoken_chars(r)) for r in _records(src)  # too long: never rendered, no cost
                             if is_text_only(r) and over_limits(r, settings, limits) is None), settings.rate_wpm)
    workers = max(1, settings.workers or os.cpu_count() or 1)
    gate = gate_context(layout.release_files(upload), f"work/{upload}/redacted.jsonl")  # where its logs are
    pending: deque[tuple[str | Future, int, str | None, str | None]] = deque()  # (line|future, line no, id, raw)

    with JsonlWriter(dst) as out, _pool(workers) as pool:

        def flush(block: bool) -> None:
            while pending and (block or not isinstance(pending[0][0], Future) or pending[0][0].done()):
                item, line_no, rid, raw = pending.popleft()
                if isinstance(item, str):
                    out.write(item)
                    continue
                res = item.result()
                if "error" in res:
                    result.failed += 1
                    result.stayed_text["render_failed"] += 1
                    result.issues.append(
                        _issue(
                            upload,
                            "synth_render_failed",
                            f"not rendered: {res['error']}",
                            "the record stays text-only; fix its text or the engine settings",
                            line_no,
                            rid,
                        )
                    )
                    out.write(raw or "")
                    continue
                result.rendered += 1
                result.audio_s += float(res["audio_s"])
                out.write(res["line"])

        for jl in iter_jsonl(src, parse=False):
            if jl.error:
                continue  # the redaction stage reported it; nothing of it reaches validation
            result.records += 1
            raw_line = jl.raw.decode("utf-8").rstrip("\n") + "\n"
            try:
                rec = VakRecord.model_validate_json(jl.raw)
            except ValidationError:
                pending.append((raw_line, jl.line, None, None))
                result.passed_through += 1
                continue
            if engine is None or not is_text_only(rec):
                pending.append((raw_line, jl.line, rec.id, None))
                result.passed_through += 1
                if is_text_only(rec):
                    result.stayed_text["synth_off" if not settings.enabled else "engine_unavailable"] += 1
                continue
            too_long = over_limits(rec, settings, limits)
            if too_long is not None:
                result.passed_through += 1
                result.stayed_text["too_long"] += 1
                result.issues.append(_issue(upload, "synth_text_too_long", f"not rendered: {too_long[0]}",
                                            "split the conversation's long turns in the upload, or raise "
                                            f"{_where(too_long[1])}; the record stays text-only", jl.line, rec.id,
                                            Severity.WARN).model_copy(update={"turn_index": too_long[2]}))
                pending.append((raw_line, jl.line, rec.id, None))
                continue
            if chosen is not None and rec.id not in chosen:  # the upload's choice: stays a text conversation
                pending.append((raw_line, jl.line, rec.id, None))
                result.passed_through += 1
                result.stayed_text["upload_chose_none" if choice.render == "none" else "over_budget"] += 1
                continue
            broken = rule_errors(jl.raw, gate, jl.line)
            if broken:
                first = broken[0]
                result.invalid += 1
                result.passed_through += 1
                result.stayed_text["breaks_a_rule"] += 1
                result.issues.append(
                    _issue(
                        upload,
                        "synth_skipped_invalid",
                        f"not rendered: the record breaks rule {first.code}"
                        + (f" at turn {first.turn_index}" if first.turn_index is not None else "")
                        + (f" (+{len(broken) - 1} more)" if len(broken) > 1 else ""),
                        "fix the record in the upload; validation rejects it with the rule's fix",
                        jl.line,
                        rec.id,
                        Severity.WARN,  # the record goes on; validation's ERROR is the one that counts
                    )
                )
                pending.append((raw_line, jl.line, rec.id, None))
                continue
            key = job_key(jl.raw, stamp, cmap)
            hit = cached_line(layout, upload, rec.id, key)
            if hit is not None:
                result.cached += 1
                pending.append((hit, jl.line, rec.id, None))
            else:
                job = {
                    "root": str(layout.root.resolve()),
                    "upload": upload,
                    "raw": jl.raw,
                    "key": key,
                    "settings": settings.model_dump(mode="json"),
                    "gaps": gaps.model_dump(mode="json"),
                    "channel_map": cmap,
                }
                pending.append((pool.submit(render_job, job), jl.line, rec.id, raw_line))
            if len(pending) > 4096 or sum(isinstance(p[0], Future) for p in pending) >= 2 * workers:
                flush(block=True)
            else:
                flush(block=False)
        flush(block=True)
    if result.stayed_text.get("over_budget"):
        result.issues.append(_issue(upload, "synth_over_budget", f"{result.stayed_text['over_budget']} text "
                                    "conversation(s) stay text: over the upload's synth budget "
                                    f"({choice.budget_hours} h, fraction {choice.budget_fraction})",
                                    "raise synth.budget_hours (or set synth.render: all) in upload.yaml to render "
                                    "more", severity=Severity.WARN))
    return result


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
