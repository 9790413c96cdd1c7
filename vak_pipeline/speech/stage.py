"""The speech stages of one upload: `transcribe_upload` (ASR + speakers) and `tag_upload` (turns, LID, join).

transcribe_upload: work/<upload>/audio.jsonl -> work/<upload>/transcripts.jsonl, on the stage core: a
recording's key (`cache_key`) is its audio sha, normalization settings, channel map, agent hint, ASR,
clean-up and diarizer settings and TRANSCRIBE_VERSION; its ledger entry says where its transcript line is.
An unchanged recording keeps its previous line without ASR (the slow part of the pipeline); a recording
that failed is reported again, not retried, until its key changes (a missing ASR model is a failure of
the set-up, not of the recording: retried next run).

tag_upload: transcripts + audio rows + tool events -> canonical records in work/<upload>/conversations.jsonl
and alignments/<conv_id>.json; text sources (`sources.text.import_text`, incremental, its own report
section) and `*.vakforge.jsonl` imports join here. Each stage writes its section of
work/<upload>/speech_report.json.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .. import progress
from ..audio.crosstalk import measure_crosstalk
from ..audio.models import NormalizedAudio
from ..core.erasure import load_erased
from ..core.issue import Issue, Severity
from ..core.stage import Ledger, LedgerEntry, PlacedWriter, PreviousLines, StageResult, item_key, write_report
from ..layout import DataLayout
from ..locales.lid import tag_languages
from ..schema.record import Diarization, VakRecord
from ..sources.ids import is_safe_id
from ..sources.inventory import is_plain_file, links
from ..sources.limits import DEFAULT_LIMITS, InputLimits
from ..sources.links import link_issue
from ..sources.text import (
    TEXT_IMPORT_VERSION,
    TextImportResult,
    TextRecord,
    erased_issue,
    import_text,
    turn_too_long,
)
from ..sources.vakforge import audio_path_issue
from ..storage import JsonlWriter, atomic_write_json, dumps_line, iter_models
from .asr import AsrSettings, ModelNotAvailable, Transcriber, read_channels
from .cleanup import Cleaned, CleanupSettings, clean_segments
from .diarize import AgentHintError, Diarizer, attribute_words
from .gate import bleed_only_regions
from .models import ConversationTranscript, Segment
from .turns import DEFAULT_MAX_GAP_S, build_record, events_path_for, file_created, load_events

# bump when the transcript for the same inputs would change (the asset's code_version); 3: fallback seeded per window;
# 4: both channels of a call decoded in batches, bleed-only stretches left out of the ASR input
TRANSCRIBE_VERSION = "4"
# bump the first part when the canonical records for the same transcripts would change; the text import runs
# inside tagged_turns, so its version is the second part
TAG_VERSION = f"1-{TEXT_IMPORT_VERSION}"
STAGE = "transcripts"
VAKFORGE_SUFFIX = ".vakforge.jsonl"
REPORT_NAME = "speech_report.json"


def speech_report_path(layout: DataLayout, upload: str) -> Path:
    return layout.speech_report(upload)


class TranscribeResult(StageResult):
    stage: str = STAGE
    conversations: int = 0  # lines in transcripts.jsonl
    transcribed: int = 0  # ASR run in this call
    skipped: int = 0  # unchanged, previous transcript kept
    failed: int = 0
    needs_diarization: int = 0
    audio_seconds: float = 0.0  # audio transcribed in this call
    speech_seconds: float = 0.0  # ... of which speech by VAD, summed over channels
    bleed_skipped_seconds: float = 0.0  # ... of which left out of the ASR input as the other channel's bleed
    decoded_seconds: float = 0.0  # audio seconds handed to the decoder, summed over channels
    asr_seconds: float = 0.0  # wall time spent in ASR (+ diarization) in this call
    engine: str = ""
    removed: dict[str, int] = Field(default_factory=dict)  # bleed / hallucination counts of this call
    crosstalk: dict[str, str] = Field(default_factory=dict)  # conv_id -> leak summary, stereo calls with a leak
    issues: list[Issue] = Field(default_factory=list)
    transcripts: str = ""

    @property
    def rtf(self) -> float | None:
        """Real-time factor of this call (ASR seconds per audio second)."""
        return round(self.asr_seconds / self.audio_seconds, 4) if self.audio_seconds else None


class TagSettings(BaseModel):
    """How tag_upload builds turns (its keyword arguments; Dagster's TagConfig is this model)."""

    model_config = ConfigDict(extra="forbid")
    max_gap_s: float = Field(default=DEFAULT_MAX_GAP_S, ge=0,
                             description="Same-speaker segments closer than this (seconds) are one turn.")
    limits: InputLimits = Field(default_factory=InputLimits,
                                description="Bounds on the upload's descriptor, text sources and vakforge imports.")


class TagResult(StageResult):
    stage: str = "tagged_turns"
    records: int = 0
    from_audio: int = 0
    from_text: int = 0
    from_vakforge: int = 0
    text_imported: int = 0  # text source lines checked and mapped in this run (the text import)
    text_reused: int = 0  # unchanged text source lines taken from the text import's ledger
    turns: int = 0
    tool_turns: int = 0
    overlaps: int = 0
    langs: dict[str, int] = Field(default_factory=dict)
    issues: list[Issue] = Field(default_factory=list)
    conversations: str = ""


def _issue(upload: str, code: str, message: str, fix: str, *, record_id: str | None = None,
           file: str | None = None, line: int | None = None, field: str | None = None,
           severity: Severity = Severity.ERROR, family: str = "audio") -> Issue:
    return Issue(code=code, message=message, fix=fix, severity=severity, family=family, record_id=record_id,
                 file=f"{upload}/{file}" if file else None, line=line, field=field)


def read_audio_rows(layout: DataLayout, upload: str, issues: list[Issue]) -> list[NormalizedAudio]:
    path = layout.audio_index(upload)
    rows: list[NormalizedAudio] = []
    if not path.is_file():
        return rows
    for ml in iter_models(path, NormalizedAudio):
        if ml.value is None:
            issues.append(_issue(upload, f"audio_index_{ml.code}", ml.error or "", "re-run normalized_audio",
                                 file="audio.jsonl", line=ml.line))
            continue
        rows.append(ml.value)
    return rows


def cache_key(row: NormalizedAudio, asr: AsrSettings, diarizer: Diarizer | None,
              cleanup: CleanupSettings | None = None) -> str:
    """The recording's item key (core.stage): its audio and everything that shapes its transcript."""
    payload: dict[str, Any] = {
        "sha": row.source_sha256, "norm": row.settings_hash, "channels": row.channels,
        "channel_map": row.settings.channel_map, "asr": asr.fingerprint(),
        "cleanup": (cleanup or CleanupSettings()).fingerprint(),
    }
    if row.channels == 1:
        payload["diarizer"] = diarizer.fingerprint() if diarizer else None
        payload["hint"] = row.settings.agent_speaker_hint
    return item_key(TRANSCRIBE_VERSION, payload)


def transcribe_recording(row: NormalizedAudio, audio_file: Path, transcriber: Transcriber,
                         diarizer: Diarizer | None) -> tuple[list[Segment], Diarization, str, dict[str, str]]:
    """(speaker-attributed segments, diarization meta, attribution kind, label->role) of one recording."""
    segments, diar, kind, roles, _cleaned = transcribe_and_clean(row, audio_file, transcriber, diarizer)
    return segments, diar, kind, roles


def transcribe_and_clean(row: NormalizedAudio, audio_file: Path, transcriber: Transcriber, diarizer: Diarizer | None,
                         cleanup: CleanupSettings | None = None
                         ) -> tuple[list[Segment], Diarization, str, dict[str, str], Cleaned]:
    """`transcribe_recording` plus what `speech.cleanup` kept out (hallucinations, cross-talk bleed)."""
    data, sr = read_channels(audio_file)
    if row.channels == 2 or data.shape[1] == 2:
        cmap = row.settings.channel_map or {}
        crosstalk = row.inspect.crosstalk or measure_crosstalk(data, sr)
        gate = bleed_only_regions(data, sr, crosstalk, (cleanup or CleanupSettings()).bleed)
        channels = list(range(data.shape[1]))
        segments, inputs = transcriber.transcribe_channels([data[:, ch] for ch in channels], sr,
                                                           [gate.get(ch, []) for ch in channels], channels)
        cleaned = clean_segments(segments, data, sr, crosstalk, cleanup)
        cleaned.asr_input = inputs
        cleaned.removed["bleed_seconds_skipped"] = round(sum(x.skipped_s for x in inputs))  # not even decoded
        segments = [s.model_copy(update={"speaker": cmap.get(str(s.channel))}) for s in cleaned.segments]
        return segments, Diarization(engine="channels", confidence=1.0), "channels", {}, cleaned
    assert diarizer is not None
    mono = data[:, 0]
    segments, inputs = transcriber.transcribe_channels([mono], sr, None, [0])
    cleaned = clean_segments(segments, data, sr, None, cleanup)
    cleaned.asr_input = inputs
    diar = diarizer.diarize(mono, sr)
    attributed, roles, confidence, rule = attribute_words(cleaned.segments, diar, row.settings.agent_speaker_hint)
    meta = Diarization(engine=diarizer.engine, confidence=confidence, agent_rule=rule,
                       num_speakers=len(diar.labels))
    return attributed, meta, "diarization", roles, cleaned


@dataclass
class _Outcome:
    """One recording's turn through the stage: its ledger entry, and the transcript line when it has one."""

    entry: LedgerEntry
    line: str | None = None
    cleaned: Cleaned | None = None  # set when transcribed in this run
    seconds: float = 0.0
    remember: bool = True  # False: a failure of the set-up (no model), retried next run


def _unusable(upload: str, row: NormalizedAudio, diarizer: Diarizer | None) -> Issue | None:
    """Why a recording cannot be transcribed as it is (a channel layout the settings do not cover), or None."""
    where: dict[str, Any] = {"record_id": row.conv_id, "file": row.shown_file}
    if row.channels == 2:
        if sorted((row.settings.channel_map or {}).values()) != ["agent", "user"]:
            return _issue(upload, "channel_map_missing", "stereo recording without a channel map naming one agent "
                          "and one user channel", 'set channel_map, e.g. {"0": "agent", "1": "user"}, in '
                          "upload.yaml or recordings.csv", field="channel_map", **where)
    elif row.channels == 1 and diarizer is None:
        return _issue(upload, "needs_diarization", "mono recording: speakers must be diarized, and no diarization "
                      "pipeline is configured", "configure the diarizer resource (pipeline: a pyannote pipeline "
                      "id with HF_TOKEN, or a local pipeline directory), or deliver the call as stereo with a "
                      "channel_map", family="speakers", **where)
    elif row.channels not in (1, 2):
        return _issue(upload, "unsupported_channels", f"{row.channels} channels after normalization",
                      "set keep_channels to the two channels to keep", **where)
    return None


def _failed(row: NormalizedAudio, key: str, issue: Issue, remember: bool = True) -> _Outcome:
    return _Outcome(LedgerEntry(item=row.conv_id, key=key, failure=issue), remember=remember)


def _transcribe_row(layout: DataLayout, upload: str, row: NormalizedAudio, key: str, transcriber: Transcriber,
                    diarizer: Diarizer | None, cleanup: CleanupSettings) -> _Outcome:
    """Transcribe (and attribute) one recording; a problem is the entry's failure, never an exception."""
    where: dict[str, Any] = {"record_id": row.conv_id, "file": row.shown_file}
    unusable = _unusable(upload, row, diarizer)
    if unusable is not None:
        return _failed(row, key, unusable)
    t0 = time.perf_counter()
    try:
        segments, diar, kind, roles, cleaned = transcribe_and_clean(row, layout.root / row.path, transcriber,
                                                                    diarizer, cleanup)
    except AgentHintError as exc:
        return _failed(row, key, _issue(upload, "agent_hint_unknown_label", str(exc),
                                        "set agent_speaker_hint to one of the labels, or to 'first' or 'most'",
                                        field="agent_speaker_hint", family="speakers", **where))
    except (OSError, RuntimeError, ValueError) as exc:
        return _failed(row, key, _issue(upload, "transcription_failed", f"{type(exc).__name__}: {exc}"[:300],
                                        "check the normalized audio file and the ASR/diarizer settings", **where),
                       remember=not isinstance(exc, ModelNotAvailable))
    elapsed = time.perf_counter() - t0
    line = dumps_line(ConversationTranscript(
        conv_id=row.conv_id, upload=upload, source_file=row.source_file, public_file=row.public_file,
        audio_path=row.path,
        source_sha256=row.source_sha256, cache_key=key, engine=transcriber.engine, attribution=kind,
        diarization=diar, speaker_labels=roles, segments=segments, duration_s=row.duration_s,
        asr_seconds=round(elapsed, 3), crosstalk=cleaned.crosstalk, removed=cleaned.removed,
    ).model_dump(mode="json", exclude_none=True))
    return _Outcome(LedgerEntry(item=row.conv_id, key=key), line, cleaned, elapsed)


def _reused(entry: LedgerEntry | None, previous: PreviousLines) -> _Outcome | None:
    """The ledger's outcome of an unchanged recording: its failure, or its transcript line if still there."""
    if entry is None or entry.failure is not None:
        return None if entry is None else _Outcome(entry)
    line = previous.read(entry.outputs.get("line"))
    return None if line is None else _Outcome(entry, line)


def transcribe_upload(layout: DataLayout, upload: str, asr_settings: AsrSettings | None = None,
                      diarizer: Diarizer | None = None, transcriber: Transcriber | None = None,
                      cleanup: CleanupSettings | None = None) -> TranscribeResult:
    """ASR (and speaker attribution) of every recording of an upload; see module doc."""
    cleanup = cleanup or CleanupSettings()
    asr_settings = asr_settings or (transcriber.settings if transcriber else AsrSettings())
    transcriber = transcriber or Transcriber(asr_settings)  # the model loads on first use only
    out_path = layout.transcripts(upload)
    result = TranscribeResult(upload=upload, engine=asr_settings.engine(), transcripts=str(out_path))
    rows = read_audio_rows(layout, upload, result.issues)
    ledger = Ledger.load(layout.stage_ledger(upload, STAGE))
    removed: Counter[str] = Counter()
    with PreviousLines(out_path) as previous, PlacedWriter(out_path) as w:
        for row in progress.ticking(rows, STAGE, upload, "audio s", lambda r: r.duration_s, lambda r: r.shown_file):
            key = cache_key(row, asr_settings, diarizer, cleanup)
            done = _reused(ledger.reuse(row.conv_id, key), previous)
            if done is not None:
                result.skipped += 1 if done.line is not None else 0
            else:
                done = _transcribe_row(layout, upload, row, key, transcriber, diarizer, cleanup)
            if done.line is not None:
                done.entry.outputs = {"line": w.place(done.line)}  # where its transcript line is now
            if done.remember:
                ledger.record(done.entry)
            if done.entry.failure is not None:
                result.issues.append(done.entry.failure)
                if done.entry.failure.code == "needs_diarization":
                    result.needs_diarization += 1
                else:
                    result.failed += 1
            if done.cleaned is not None:
                _count_transcribed(result, removed, row, done)
        result.conversations = w.count
    ledger.save()
    result.asr_seconds = round(result.asr_seconds, 3)
    result.audio_seconds = round(result.audio_seconds, 3)
    for name in ("speech_seconds", "bleed_skipped_seconds", "decoded_seconds"):
        setattr(result, name, round(getattr(result, name), 3))
    result.removed = dict(sorted(removed.items()))
    write_report(layout.speech_report(upload), result, section=STAGE, counts={
        "engine": result.engine, "conversations": result.conversations, "transcribed": result.transcribed,
        "skipped": result.skipped, "failed": result.failed, "needs_diarization": result.needs_diarization,
        "audio_seconds": result.audio_seconds, "asr_seconds": result.asr_seconds, "rtf": result.rtf,
        "speech_seconds": result.speech_seconds, "bleed_skipped_seconds": result.bleed_skipped_seconds,
        "decoded_seconds": result.decoded_seconds,
        "removed": result.removed, "crosstalk": result.crosstalk})
    return result


def _count_transcribed(result: TranscribeResult, removed: Counter[str], row: NormalizedAudio, done: _Outcome) -> None:
    """This run's ASR counters: time, audio, and what clean-up kept out."""
    cleaned = done.cleaned
    assert cleaned is not None
    result.transcribed += 1
    result.asr_seconds += done.seconds
    result.audio_seconds += row.duration_s
    for x in cleaned.asr_input:
        result.speech_seconds += x.speech_s
        result.bleed_skipped_seconds += x.skipped_s
        result.decoded_seconds += x.decoded_s
    removed.update(cleaned.removed)
    if cleaned.crosstalk is not None and any(x.detected for x in cleaned.crosstalk.leaks):
        result.crosstalk[row.conv_id] = cleaned.crosstalk.summary()
    removed.update({f"hallucination_{k}": v for k, v in cleaned.hallucination_reasons.items()})


def _needs_tagging(rec: VakRecord) -> bool:
    return any(t.is_spoken and t.text and not t.lang for t in rec.turns)


def vakforge_files(upload_dir: Path) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    if Path(upload_dir).is_symlink():  # refused by the descriptor; its folder is not even listed
        return out
    for p in sorted(Path(upload_dir).rglob(f"*{VAKFORGE_SUFFIX}")):
        rel = p.relative_to(upload_dir).as_posix()
        if is_plain_file(upload_dir, p) and not any(part.startswith(".") for part in rel.split("/")):
            out.append((rel, p))
    return out


def iter_vakforge_imports(layout: DataLayout, upload: str, limits: InputLimits = DEFAULT_LIMITS):
    """Records of `*.vakforge.jsonl` files of the upload (VakRecord or line-numbered Issue), streamed.

    A linked import file is an issue naming the link; a line over limits.max_line_bytes is skipped unread;
    a record with a turn over limits.max_turn_chars, or whose audio is not a recording of this upload
    (sources.vakforge), is refused with an issue and the rest of the file goes on."""
    upload_dir = layout.upload_dir(upload)
    for rel in links(upload_dir):
        if rel.lower().endswith(VAKFORGE_SUFFIX):
            yield link_issue(upload_dir, upload_dir / rel, "vakforge_symlink", "the import is not read", "structure")
    for rel, path in vakforge_files(upload_dir):
        for ml in iter_models(path, VakRecord, max_line_bytes=limits.max_line_bytes):
            if ml.value is not None:
                raw = {"id": ml.value.id, "turns": [{"text": t.text} for t in ml.value.turns]}
                issue = (turn_too_long(raw, "vakforge", limits, f"{upload}/{rel}", ml.line)
                         or audio_path_issue(ml.value, upload, upload_dir, f"{upload}/{rel}", ml.line))
                if issue is not None:
                    yield issue
                    continue
                yield _with_origin(ml.value, upload, rel, ml.line)
            elif ml.code == "invalid":
                yield _issue(upload, "vakforge_invalid", ml.error or "", "fix the record to match the vakforge.jsonl "
                             "schema", file=rel, line=ml.line, field=ml.field, record_id=ml.record_id,
                             family="structure")
            else:
                fix = ("split the record, or raise the data resource's limits.max_line_bytes"
                       if ml.code == "line_too_long" else "fix or remove the line")
                yield _issue(upload, f"vakforge_{ml.code}", ml.error or "", fix, file=rel,
                             line=ml.line or None, family="structure")


def _with_origin(rec: VakRecord, upload: str, rel: str, line: int) -> VakRecord:
    """meta.origin of an imported record: the uploaded file and line (as the text importers set it)."""
    origin = {"format": "vakforge.jsonl", "upload": upload, "file": f"{upload}/{rel}", "line": line}
    meta = rec.meta.model_copy(update={"origin": origin})
    return rec.model_copy(update={"meta": meta})


def tag_upload(layout: DataLayout, upload: str, max_gap_s: float = DEFAULT_MAX_GAP_S,
               limits: InputLimits = DEFAULT_LIMITS,
               refuse: Callable[[VakRecord], bool] | None = None) -> TagResult:
    """Canonical records of an upload: transcribed calls, text sources and vakforge imports; see module doc.

    A record the erasure ledger names, or that `refuse` (erasure's text test: an erased conversation under
    another id) refuses, is left out with a WARN that does not repeat its id."""
    out_path = layout.conversations(upload)
    result = TagResult(upload=upload, conversations=str(out_path))
    issues: list[Issue] = []
    audio = {r.conv_id: r for r in read_audio_rows(layout, upload, issues)}
    seen: set[str] = set()
    langs: Counter[str] = Counter()
    upload_dir = layout.upload_dir(upload)

    erased = load_erased(layout.root)

    def emit(w: JsonlWriter, rec: VakRecord, origin: str, file: str | None = None, line: str | None = None) -> bool:
        """Write `rec` (as `line` when given: its JSONL line already) unless its id is unsafe, taken or erased."""
        if erased and (erased.has_conv(rec.id) or (refuse is not None and refuse(rec))):
            issues.append(erased_issue(file or origin, None))
            return False
        if not is_safe_id(rec.id):  # ids become file names (audio/, alignments/, redactions/)
            issues.append(_issue(upload, "id_unsafe", "conversation id is not a safe file name (slashes, '..', a "
                                 "leading dot or other characters); the record is left out",
                                 "use letters, digits, '_', '-' and '.', starting with a letter or digit",
                                 record_id=rec.id[:80], file=file, family="structure"))
            return False
        if rec.id in seen:
            issues.append(_issue(upload, "duplicate_id", f"conversation id {rec.id!r} appears twice in the upload",
                                 "give every conversation a unique id (conv_id in recordings.csv)",
                                 record_id=rec.id, file=file, family="manifest"))
            return False
        seen.add(rec.id)
        w.write(line if line is not None else dumps_line(rec.dump()))
        result.turns += len(rec.turns)
        result.tool_turns += sum(1 for t in rec.turns if not t.is_spoken)
        result.overlaps += sum(1 for t in rec.turns if t.overlap)
        langs.update(t.lang for t in rec.turns if t.is_spoken and t.lang)
        return True

    with JsonlWriter(out_path) as w:
        tpath = layout.transcripts(upload)
        if tpath.is_file():
            for ml in iter_models(tpath, ConversationTranscript):
                if ml.value is None:
                    code = "transcripts_invalid" if ml.code == "invalid" else f"transcripts_{ml.code}"
                    issues.append(_issue(upload, code, ml.error or "", "re-run transcripts",
                                         file="transcripts.jsonl", line=ml.line))
                    continue
                tr = ml.value
                row = audio.get(tr.conv_id)
                if row is None:
                    issues.append(_issue(upload, "transcript_without_audio", "transcript of a recording that is no "
                                         "longer in audio.jsonl", "re-run normalized_audio and transcripts",
                                         record_id=tr.conv_id, file=tr.shown_file, severity=Severity.WARN))
                    continue
                ev_path = events_path_for(upload_dir, row.source_file)
                ev_name = f"{upload}/{PurePosixPath(row.shown_file).with_suffix('')}.events.jsonl"  # no PII
                events, ev_issues = load_events(ev_path, ev_name, row.conv_id)
                issues.extend(ev_issues)
                rec, alignment, rec_issues = build_record(row, tr, events, max_gap_s,
                                                           created=file_created(upload_dir / row.source_file))
                issues.extend(rec_issues)
                if emit(w, rec, "audio", row.shown_file):
                    atomic_write_json(layout.work_alignment(upload, rec.id),
                                      alignment.model_dump(mode="json", exclude_none=True))
                    result.from_audio += 1
        text = TextImportResult()
        for origin, items in (("text", import_text(layout, upload, text, limits, refuse)),
                              ("vakforge", iter_vakforge_imports(layout, upload, limits))):
            for item in items:
                if isinstance(item, Issue):
                    issues.append(item)
                    continue
                rec, line = (item.record, item.line) if isinstance(item, TextRecord) else (item, None)
                if _needs_tagging(rec):
                    rec, line = tag_languages(rec), None
                if emit(w, rec, origin, line=line):
                    setattr(result, f"from_{origin}", getattr(result, f"from_{origin}") + 1)
        result.records = w.count
    result.langs = dict(sorted(langs.items()))
    result.text_imported, result.text_reused = text.imported, text.reused
    result.issues = issues  # the text import's too; they are in its own section of the report
    imported = {id(i) for i in text.issues}
    own = result.model_copy(update={"issues": [i for i in issues if id(i) not in imported]})
    write_report(layout.speech_report(upload), own, section="tagged_turns", counts={
        "records": result.records, "from_audio": result.from_audio, "from_text": result.from_text,
        "from_vakforge": result.from_vakforge, "turns": result.turns, "tool_turns": result.tool_turns,
        "overlaps": result.overlaps, "langs": result.langs})
    return result
