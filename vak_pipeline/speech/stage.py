"""The speech stages of one upload: `transcribe_upload` (ASR + speakers) and `tag_upload` (turns, LID, join).

transcribe_upload: work/<upload>/audio.jsonl -> work/<upload>/transcripts.jsonl, on the stage core: a
recording's key (`cache_key`) is its audio sha, normalization settings, channel map, agent hint, ASR,
clean-up and diarizer settings and TRANSCRIBE_VERSION; its ledger entry says where its transcript line is.
An unchanged recording keeps its previous line without ASR (the slow part of the pipeline); a recording
that failed is reported again, not retried, until its key changes (a missing ASR model is a failure of
the set-up, not of the recording: retried next run).

tag_upload: transcripts + audio rows + tool events -> canonical records in work/<upload>/conversations.jsonl
and alignments/<conv_id>.json; text sources (`sources.text.import_text`, incremental, its own report
section) and `*.vakforge.jsonl` imports (`sources.vakforge`) join here. Each stage writes its section of
work/<upload>/speech_report.json.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .. import progress
from ..audio.crosstalk import measure_crosstalk
from ..audio.models import NormalizedAudio
from ..core.corrections import Correction, dropped_for_upload, upload_digest
from ..core.corrections import for_upload as corrections_for_upload
from ..core.erasure import ErasedSet, ledger_key, load_erased
from ..core.issue import Issue, Severity
from ..core.runner import Job, RunCounts, Stage, made_of, output_token, run_stage
from ..core.stage import LedgerEntry, PlacedWriter, PreviousLines, StageResult, item_key, write_report
from ..layout import DataLayout
from ..locales.lid import tag_languages
from ..schema.alignment import Alignment
from ..schema.record import Diarization, VakRecord
from ..sources.text import (
    TEXT_IMPORT_VERSION,
    TEXT_STAGE,
    TextImportResult,
    TextRecord,
    erased_issue,
    import_text,
)
from ..sources.vakforge import iter_vakforge_imports
from ..storage import JsonlWriter, atomic_write_json, dumps_line, iter_models
from ..uploads.ids import is_safe_id
from ..uploads.ingested import recorded_fingerprint
from ..uploads.limits import DEFAULT_LIMITS, InputLimits
from .asr import AsrSettings, ModelNotAvailable, Transcriber, read_channels
from .cleanup import Cleaned, CleanupSettings, clean_segments
from .corrections import apply_correction, review_issue
from .diarize import AgentHintError, Diarizer, attribute_words
from .gate import bleed_only_regions
from .hallucination import ChannelLevels
from .models import ConversationTranscript, Segment
from .turns import DEFAULT_MAX_GAP_S, build_record, events_path_for, file_created, load_events

# bump when the transcript for the same inputs would change (the asset's code_version); 3: fallback seeded per window;
# 4: both channels of a call decoded in batches, bleed-only stretches left out of the ASR input; 5: batched with
# timestamp tokens, what follows a window's early stop decoded again; 6: only remainders of more than 3 s decoded again;
# 7: cpu_isa also pins the GEMM library (oneDNN everywhere) and its instruction set (asr.numerics_env); 8: batched
# windows encoded at their batch's own length, not 30 s (AsrSettings.encoder_frames 'window')
TRANSCRIBE_VERSION = "8"
# bump the first part when the canonical records for the same transcripts would change; the text import runs
# inside tagged_turns, so its version is the second part
TAG_VERSION = f"1-{TEXT_IMPORT_VERSION}"
STAGE = "transcripts"
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
    reviewed: int = 0  # records with a human correction applied (meta.transcription.verified_by_human)
    reviewed_turns: int = 0  # ... their corrected turns
    review_unfit: int = 0  # corrections that no longer fit (reported as issues, not applied)
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
        crosstalk = row.inspect.crosstalk or measure_crosstalk(data, sr)  # one measure, for the gate and clean-up
        levels = {c: ChannelLevels(data[:, c], sr) for c in range(data.shape[1])}  # ... and one set of span powers
        gate = bleed_only_regions(data, sr, crosstalk, (cleanup or CleanupSettings()).bleed, levels)
        channels = list(range(data.shape[1]))
        segments, inputs = transcriber.transcribe_channels([data[:, ch] for ch in channels], sr,
                                                           [gate.get(ch, []) for ch in channels], channels)
        cleaned = clean_segments(segments, data, sr, crosstalk, cleanup, levels)
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


def transcribe_upload(layout: DataLayout, upload: str, asr_settings: AsrSettings | None = None,
                      diarizer: Diarizer | None = None, transcriber: Transcriber | None = None,
                      cleanup: CleanupSettings | None = None, run_key: str = "") -> TranscribeResult:
    """ASR (and speaker attribution) of every recording of an upload; see module doc."""
    stage = _TranscribeStage(layout, upload, asr_settings, diarizer, transcriber, cleanup)
    stage.run_key = run_key  # the run config that shaped it (report.freshness)
    run_stage(stage)
    return stage.result


class _TranscribeStage(Stage):
    """transcripts on the stage runner: an item per recording, processed here (the model is loaded once, in this
    process), its transcript line placed in transcripts.jsonl."""

    name = STAGE
    version = TRANSCRIBE_VERSION
    report = DataLayout.speech_report
    section = STAGE

    def __init__(self, layout: DataLayout, upload: str, asr_settings: AsrSettings | None, diarizer: Diarizer | None,
                 transcriber: Transcriber | None, cleanup: CleanupSettings | None) -> None:
        self.layout, self.upload, self.diarizer = layout, upload, diarizer
        self.cleanup = cleanup or CleanupSettings()
        self.asr = asr_settings or (transcriber.settings if transcriber else AsrSettings())
        self.transcriber = transcriber or Transcriber(self.asr)  # the model loads on first use only
        self.result = TranscribeResult(upload=upload, engine=self.asr.engine(),
                                       transcripts=str(layout.transcripts(upload)))
        self.rows: dict[str, NormalizedAudio] = {}
        self.outcomes: dict[str, _Outcome] = {}  # item -> what this run's transcription gave, until placed
        self.hits: dict[str, str] = {}  # item -> its previous transcript line, still in place
        self.removed: Counter[str] = Counter()
        self.process = self._transcribe  # here, never pickled: the workers are 1

    def outputs(self) -> list[Any]:
        self.previous, self.out = PreviousLines(self.layout.transcripts(self.upload)), \
            PlacedWriter(self.layout.transcripts(self.upload))
        return [self.previous, self.out]

    def items(self) -> Iterator[Job]:
        rows = read_audio_rows(self.layout, self.upload, self.result.issues)
        for row in progress.ticking(rows, STAGE, self.upload, "audio s", lambda r: r.duration_s,
                                    lambda r: r.shown_file):
            self.rows[row.conv_id] = row
            key = cache_key(row, self.asr, self.diarizer, self.cleanup)
            yield Job(row.conv_id, key, (row, key))

    def _transcribe(self, jobs: list[tuple[NormalizedAudio, str]]) -> list[LedgerEntry]:
        out = []
        for row, key in jobs:
            done = _transcribe_row(self.layout, self.upload, row, key, self.transcriber, self.diarizer, self.cleanup)
            self.outcomes[row.conv_id] = done
            out.append(done.entry)
        return out

    def reusable(self, entry: LedgerEntry) -> bool:
        """Its failure (reported again), or its transcript line when it is still where it was placed."""
        if entry.failure is not None:
            return True
        line = self.previous.read(entry.outputs.get("line"))
        if line is not None:
            self.hits[entry.item] = line
        return line is not None

    def accept(self, entry: LedgerEntry, reused: bool) -> LedgerEntry | None:
        result, row = self.result, self.rows.pop(entry.item)
        done = _Outcome(entry, self.hits.pop(entry.item, None)) if reused else self.outcomes.pop(entry.item)
        if reused and done.line is not None:
            result.skipped += 1
        if done.line is not None:
            done.entry.outputs = {"line": self.out.place(done.line)}  # where its transcript line is now
        if done.entry.failure is not None:
            if done.entry.failure.code == "needs_diarization":
                result.needs_diarization += 1
            else:
                result.failed += 1
            if not done.remember:  # a failure of the set-up: reported, not recorded, so retried next run
                result.issues.append(done.entry.failure)
                return None
        if done.cleaned is not None:
            _count_transcribed(result, self.removed, row, done)
        return done.entry

    def upstream(self) -> str:
        return output_token(self.layout.upload_report(self.upload))

    def output_path(self) -> Path:
        return self.layout.transcripts(self.upload)

    def finish(self, counts: RunCounts) -> None:
        result = self.result
        result.conversations = self.out.count
        result.asr_seconds = round(result.asr_seconds, 3)
        result.audio_seconds = round(result.audio_seconds, 3)
        for name in ("speech_seconds", "bleed_skipped_seconds", "decoded_seconds"):
            setattr(result, name, round(getattr(result, name), 3))
        result.removed = dict(sorted(self.removed.items()))

    def report_extra(self) -> dict[str, Any]:
        result = self.result
        return {"counts": {
            "engine": result.engine, "conversations": result.conversations, "transcribed": result.transcribed,
            "skipped": result.skipped, "failed": result.failed, "needs_diarization": result.needs_diarization,
            "audio_seconds": result.audio_seconds, "asr_seconds": result.asr_seconds, "rtf": result.rtf,
            "speech_seconds": result.speech_seconds, "bleed_skipped_seconds": result.bleed_skipped_seconds,
            "decoded_seconds": result.decoded_seconds,
            "removed": result.removed, "crosstalk": result.crosstalk}}


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


def tag_upload(layout: DataLayout, upload: str, max_gap_s: float = DEFAULT_MAX_GAP_S,
               limits: InputLimits = DEFAULT_LIMITS,
               refuse: Callable[[VakRecord], bool] | None = None, run_key: str = "") -> TagResult:
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
    corrections = corrections_for_upload(layout.root, upload)
    reviewed_seen: set[str] = set()

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
                if tr.conv_id in corrections and not erased.has_conv(tr.conv_id):
                    reviewed_seen.add(tr.conv_id)
                    rec, alignment = _reviewed(upload, row, rec, alignment, corrections[tr.conv_id], result, issues)
                if emit(w, rec, "audio", row.shown_file):
                    atomic_write_json(layout.work_alignment(upload, rec.id),
                                      alignment.model_dump(mode="json", exclude_none=True))
                    result.from_audio += 1
        text = TextImportResult()
        for origin, items in (("text", import_text(layout, upload, text, limits, refuse, run_key)),
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
    _unfit_corrections(layout, upload, corrections, reviewed_seen, erased, result, issues)
    result.langs = dict(sorted(langs.items()))
    result.text_imported, result.text_reused = text.imported, text.reused
    result.issues = issues  # the text import's too; they are in its own section of the report
    imported = {id(i) for i in text.issues}
    own = result.model_copy(update={"issues": [i for i in issues if id(i) not in imported]})
    write_report(layout.speech_report(upload), own, section="tagged_turns", counts={
        "records": result.records, "from_audio": result.from_audio, "from_text": result.from_text,
        "from_vakforge": result.from_vakforge, "turns": result.turns, "tool_turns": result.tool_turns,
        "overlaps": result.overlaps, "langs": result.langs, "reviewed": result.reviewed,
        "reviewed_turns": result.reviewed_turns, "review_unfit": result.review_unfit},
        **made_of(tag_version(), tag_upstream(layout, upload), run_key, out_path))
    return result


def tag_version() -> str:
    """What the tagged_turns report records as its code: TAG_VERSION and the locale packs (language ID)."""
    from ..locales.registry import packs_fingerprint

    return f"{TAG_VERSION}-{packs_fingerprint()}"


def tag_upstream(layout: DataLayout, upload: str) -> str:
    """What tagged_turns is made from: the transcripts' and the text import's outputs, the upload's files, its
    human corrections and the erasure ledger's entries that touch it (a new review or erasure re-runs the upload)."""
    report = layout.speech_report(upload)
    parts = [output_token(report, STAGE), output_token(report, TEXT_STAGE), recorded_fingerprint(layout, upload),
             upload_digest(layout.root, upload), ledger_key(layout.root, upload)]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:24]


def _reviewed(upload: str, row: NormalizedAudio, rec: VakRecord, alignment: Alignment, correction: Correction,
              result: TagResult, issues: list[Issue]) -> tuple[VakRecord, Alignment]:
    """(record, alignment) with the conversation's human correction applied, unless its audio changed since."""
    if correction.audio_sha and correction.audio_sha != row.source_sha256:
        result.review_unfit += 1
        issues.append(review_issue(
            "review_audio_changed", "the recording changed since it was reviewed (another file under the same "
            "name); the review was not applied", "review the conversation again: vak review export --conversation "
            "ID, then vak review import", upload=upload, record_id=rec.id, file=row.shown_file))
        return rec, alignment
    applied = apply_correction(rec, alignment, correction)
    issues.extend(applied.issues)
    result.review_unfit += sum(1 for i in applied.issues if i.code == "review_turn_vanished")
    if applied.turns:
        result.reviewed += 1
        result.reviewed_turns += applied.turns
    return applied.record, applied.alignment


def _unfit_corrections(layout: DataLayout, upload: str, corrections: dict[str, Correction], seen: set[str],
                       erased: ErasedSet, result: TagResult, issues: list[Issue]) -> None:
    """Each correction of the upload whose conversation is not in this run: erased, or its audio is gone."""
    for note in dropped_for_upload(layout.root, upload):  # taken out of the store by `vak erase`
        result.review_unfit += 1
        issues.append(review_issue(
            "review_conversation_erased", f"a review ({note.get('turns')} turns, erased {note.get('at')}) was "
            "taken out of the corrections store with its conversation; it is not applied", "nothing to do: the "
            "conversation is gone; the note stays in work/review/dropped.jsonl", upload=upload, record_id=None))
    for conv_id, c in sorted(corrections.items()):
        if conv_id in seen:
            continue
        result.review_unfit += 1
        if erased.has_conv(conv_id):  # the id is not repeated: the person asked to be forgotten
            issues.append(review_issue(
                "review_conversation_erased", "a reviewed conversation was erased; its review is not applied",
                "nothing to do for the release; `vak review import` keeps the store, remove the line of the erased "
                "conversation from work/review/corrections.jsonl", upload=upload, record_id=None))
        else:
            issues.append(review_issue(
                "review_conversation_missing", f"a review ({len(c.turns)} turns) names a conversation that has no "
                "transcribed recording in this run; it was not applied", "restore the recording under raw/, or "
                "review the conversation again once it is transcribed", upload=upload, record_id=conv_id))
