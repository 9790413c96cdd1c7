"""The normalized_audio stage for one upload: every recording to work/<upload>/audio/<conv_id>.wav, incrementally.

Reads the descriptor and the inventory, normalizes each audio file (in a process pool when workers > 1),
and writes work/<upload>/audio.jsonl (one NormalizedAudio per usable recording) and work/<upload>/report.json
(every file it could not use, with reason and fix). A recording whose bytes and audio settings did not
change since the last run, and whose wav is still there, is not decoded again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import Field

from .. import progress
from ..core.erasure import load_erased
from ..core.issue import Issue, Severity
from ..core.runner import Job, RunCounts, Stage, run_stage
from ..core.stage import LedgerEntry, StageResult, item_key
from ..layout import DataLayout
from ..parallel import pool_size
from ..storage import JsonlWriter, iter_jsonl
from ..uploads.descriptor import RecordingSettings, load_descriptor
from ..uploads.ids import conversation_id, public_file
from ..uploads.inventory import current_inventory, kind_of
from ..uploads.limits import DEFAULT_LIMITS, InputLimits
from ..uploads.links import link_issue
from ..uploads.names import write_name_map
from .decode import AudioError
from .models import InspectReport, NormalizedAudio
from .normalize import DEFAULT_BLOCK_S, DEFAULT_MAX_DURATION_S, TARGET_RATE, normalize_recording
from .settings import NORMALIZE_VERSION

STAGE = "normalized_audio"
DECODE_BYTES_PER_S = 50e6  # source bytes decoded + resampled per second by one process (bench: ~48 MB/s)


class UploadAudioResult(StageResult):
    """What one run of the stage did, for asset metadata and the CLI."""

    stage: str = STAGE
    recordings: int = 0  # rows in audio.jsonl
    decoded: int = 0  # recordings decoded (normalized) in this run
    skipped: int = 0  # unchanged files not decoded again (their row, or their failure, reused)
    failed: int = 0  # audio files that could not be used
    erased: int = 0  # files withdrawn by the erasure ledger (or refused as copies of erased audio)
    audio_index: str
    report: str
    counts: dict[str, int] = Field(default_factory=dict)  # inventory counts by kind


def settings_hash(keep_channels: list[int] | None, target_rate: int, quality: str) -> str:
    """Everything that shapes the output wav (not the descriptor metadata, which is refreshed without decoding)."""
    payload = {"v": NORMALIZE_VERSION, "keep_channels": keep_channels, "rate": target_rate, "quality": quality}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _normalize_batch(jobs: list[dict[str, Any]]) -> list[LedgerEntry]:
    """Worker: normalize recordings; never raises, so one bad file cannot stop the pool."""
    return [_normalize_job(job) for job in jobs]


def _normalize_job(job: dict[str, Any]) -> LedgerEntry:
    name, public = job["name"], job.get("public", job["name"])  # messages name the public (PII-free) file name
    try:
        rep = normalize_recording(Path(job["src"]), Path(job["dst"]), keep_channels=job["keep"],
                                  target_rate=job["rate"], block_s=job["block_s"], quality=job["quality"],
                                  name=public, max_duration_s=job["max_duration_s"])
        return LedgerEntry(item=name, key=job["key"], outputs={"inspect": rep.model_dump(mode="json")})
    except AudioError as exc:
        code, message, fix = exc.code, exc.message, exc.fix
    except Exception as exc:  # a decoder/library failure on odd input is still a per-file problem
        code, message, fix = ("audio_normalize_failed",
                              f"{Path(public).name} failed to normalize ({type(exc).__name__})",
                              "re-export the recording as WAV or FLAC and upload it again")
    return LedgerEntry(item=name, key=job["key"], failure=_file_issue(job["upload"], public, code, message, fix))


def _file_issue(upload: str, name: str, code: str, message: str, fix: str,
                severity: Severity = Severity.ERROR, line: int | None = None) -> Issue:
    return Issue(code=code, message=message, fix=fix, severity=severity, family="audio", file=f"{upload}/{name}",
                 line=line)


def _public_names(files: list[Any], desc: Any) -> dict[str, str]:
    """Each file's public name (uploads.ids.public_file): what issues, reports and logs may show."""
    return {f.name: public_file(f.name, f.sha256, desc.settings_for(f.name).locale if desc is not None else None)
            for f in files}


def _unknown_kind(upload: str, name: str) -> Issue:
    return _file_issue(upload, name, "file_unknown_kind", "file type not recognised; it is ignored",
                       "use a supported suffix (.wav .flac .mp3 .ogg .m4a .aac, *.aidb.jsonl, *.messages.jsonl, "
                       "*.vakforge.jsonl, *.events.jsonl) or remove it", Severity.WARN)


class _NormalizeStage(Stage):
    """normalized_audio on the stage runner: an item per usable recording, keyed by its bytes and settings."""

    name = STAGE
    version = NORMALIZE_VERSION
    report = DataLayout.upload_report
    sized = True  # the pool pays only for enough bytes to decode: it is sized on what is to do
    process = staticmethod(_normalize_batch)

    def __init__(self, layout: DataLayout, upload: str, workers: int, target_rate: int, quality: str, block_s: float,
                 max_duration_s: float | None, refuse: Callable[[Path], bool] | None,
                 limits: InputLimits = DEFAULT_LIMITS) -> None:
        self.layout, self.upload, self.workers, self.refuse = layout, upload, workers, refuse
        self.target_rate, self.quality, self.block_s = target_rate, quality, block_s
        self.max_duration_s = max_duration_s
        self.result = UploadAudioResult(upload=upload, audio_index=str(layout.audio_index(upload)),
                                        report=str(layout.upload_report(upload)))
        self.upload_dir = layout.upload_dir(upload)
        self.desc, issues = load_descriptor(self.upload_dir, limits)  # the limits every stage reads
        self.inv = current_inventory(self.upload_dir, layout.inventory(upload))
        self.result.counts = self.inv.counts()
        self.audio_files = [f for f in self.inv.files if f.kind == "audio"]
        # a linked recording or folder is never followed; text sources, events and descriptors say so themselves
        issues += [link_issue(self.upload_dir, self.upload_dir / rel, "audio_symlink", "it is not read", "audio")
                   for rel in self.inv.links if rel != "." and kind_of(rel) in ("audio", "unknown")]
        self.result.issues = issues
        self.public = _public_names(self.inv.files, self.desc)
        self.planned: dict[str, tuple[str, RecordingSettings, str, str]] = {}  # name -> conv, settings, hash, sha
        self.rows: list[NormalizedAudio] = []
        self.failed: list[LedgerEntry] = []  # for the report (the ledger streams its entries to its file)

    def items(self) -> Iterator[Job]:
        upload, desc, public, result, issues = self.upload, self.desc, self.public, self.result, self.result.issues
        if desc is None:
            # nothing can be processed safely without locale and consent: report the whole upload
            issues += [_file_issue(upload, public[f.name], "audio_upload_descriptor_invalid",
                                   "not processed: the upload's upload.yaml is missing or invalid (see the issues on "
                                   "upload.yaml)", "fix upload.yaml, then re-run this upload")
                       for f in self.audio_files]
            result.failed = len(self.audio_files)
            return
        issues += [_unknown_kind(upload, public[f.name]) for f in self.inv.files if f.kind == "unknown"]
        erased = load_erased(self.layout.root)
        used_ids: dict[str, str] = {}
        for f in self.audio_files:
            if f.name in desc.rejected_rows:
                issues.append(_file_issue(upload, public[f.name], "audio_settings_row_rejected",
                                          f"not processed: its recordings.csv row (line {desc.rejected_rows[f.name]}) "
                                          "was rejected", "fix that row of recordings.csv (see the issue on it), "
                                          "then re-run"))
                result.failed += 1
                continue
            settings = desc.settings_for(f.name)
            conv = conversation_id(upload, f.name, desc.conv_id_for(f.name), locale=settings.locale, sha256=f.sha256)
            if erased and (erased.has_file(f.sha256) or erased.has_conv(conv)):
                issues.append(_erased_issue(upload, public.get(f.name, f.name)))
                result.erased += 1
                continue
            if conv in used_ids:
                issues.append(_file_issue(upload, public[f.name], "audio_conv_id_collision",
                                          f"its conversation id {conv!r} is already used by {used_ids[conv]!r}",
                                          "give one of them its own conv_id in recordings.csv"))
                result.failed += 1
                continue
            used_ids[conv] = public[f.name]
            shash = settings_hash(settings.keep_channels, self.target_rate, self.quality)
            rel = self.layout.normalized_audio_rel(upload, conv)
            self.planned[f.name] = (conv, settings, shash, f.sha256)
            key = item_key(NORMALIZE_VERSION, f.sha256, shash, conv, rel, self.max_duration_s)
            yield Job(f.name, key, {
                "src": str(self.upload_dir / f.name), "dst": str(self.layout.root / rel), "name": f.name,
                "public": public[f.name], "keep": settings.keep_channels, "rate": self.target_rate,
                "block_s": self.block_s, "quality": self.quality, "key": key, "upload": upload,
                "max_duration_s": self.max_duration_s})

    def reusable(self, entry: LedgerEntry) -> bool:
        wav = self.layout.root / self.layout.normalized_audio_rel(self.upload, self.planned[entry.item][0])
        return entry.failure is not None or wav.is_file()

    def workers_for(self, todo: Sequence[dict[str, Any]]) -> int:
        return pool_size(len(todo), self.workers, sum(Path(i["src"]).stat().st_size for i in todo), DECODE_BYTES_PER_S)

    def progress(self, plan: Sequence[Any]) -> Iterator[Any]:
        return progress.ticking(plan, STAGE, self.upload, "files")

    def accept(self, entry: LedgerEntry, reused: bool) -> LedgerEntry | None:
        layout, upload, result = self.layout, self.upload, self.result
        conv, settings, shash, sha = self.planned[entry.item]
        wav = layout.root / layout.normalized_audio_rel(upload, conv)
        if self.refuse is not None and entry.failure is None and not reused and self.refuse(wav):
            wav.unlink(missing_ok=True)
            result.issues.append(_erased_issue(upload, self.public.get(entry.item, entry.item)))
            result.erased += 1
            return None  # not in the ledger either: nothing of it is kept
        if entry.failure is not None:
            self.failed.append(entry)
            result.failed += 1
            return entry
        rep = InspectReport.model_validate(entry.outputs["inspect"])
        self.rows.append(NormalizedAudio(
            conv_id=conv, upload=upload, source_file=entry.item, public_file=self.public[entry.item],
            source_sha256=sha, settings_hash=shash,
            path=layout.normalized_audio_rel(upload, conv), sample_rate=rep.sample_rate, channels=rep.channels,
            duration_s=rep.duration_s, kept_channels=settings.keep_channels if rep.source_channels else None,
            settings=settings, inspect=rep))
        return entry

    def finish(self, counts: RunCounts) -> None:
        layout, upload, result, rows = self.layout, self.upload, self.result, self.rows
        result.decoded, result.skipped = counts.processed, counts.reused
        rows.sort(key=lambda r: r.source_file)
        with JsonlWriter(layout.audio_index(upload)) as w:
            for r in rows:
                w.write(r.model_dump(mode="json"))
        result.recordings = len(rows)
        write_name_map(layout.name_map(upload), [(r.conv_id, r.public_file, r.source_file) for r in rows])

    def upstream(self) -> str:
        return self.inv.fingerprint

    def output_path(self) -> Path:
        return self.layout.audio_index(self.upload)

    def report_extra(self) -> dict[str, Any]:
        result, rows, upload = self.result, self.rows, self.upload
        notes = [{"conv_id": r.conv_id, "file": f"{upload}/{r.public_file}", "note": n}
                 for r in rows for n in r.inspect.notes]
        failures = [{"file": self.public.get(e.item, e.item), "key": e.key,
                     "issue": e.failure.model_dump(mode="json", exclude_none=True)}
                    for e in self.failed if e.failure is not None]
        return {"fingerprint": self.inv.fingerprint, "notes": notes, "failures": failures,
                "counts": {"files": len(self.inv.files), "audio_files": len(self.audio_files),
                           "recordings": result.recordings, "decoded": result.decoded, "skipped": result.skipped,
                           "failed": result.failed, "by_kind": result.counts}}


def normalize_upload(layout: DataLayout, upload: str, workers: int = 1, target_rate: int = TARGET_RATE,
                     quality: str = "HQ", block_s: float = DEFAULT_BLOCK_S,
                     max_duration_s: float | None = DEFAULT_MAX_DURATION_S,
                     refuse: Callable[[Path], bool] | None = None, limits: InputLimits = DEFAULT_LIMITS,
                     run_key: str = "") -> UploadAudioResult:
    """Normalize every recording of `upload`; write audio.jsonl and report.json; return what happened.

    A recording the erasure ledger names (its bytes or its conversation id) is not decoded; `refuse(wav)`
    is asked of every newly normalized file (erasure's fingerprint test, for re-encoded copies) and a
    refused one is deleted and left out, like an erased file.

    A recording is keyed (core.stage) by its bytes, the settings that shape its wav, its conversation id
    and the duration cap; an unchanged key reuses the ledger's row (or its failure) without decoding.
    """
    stage = _NormalizeStage(layout, upload, workers, target_rate, quality, block_s, max_duration_s, refuse, limits)
    stage.run_key = run_key  # the run config that shaped it (report.freshness)
    run_stage(stage)
    return stage.result


def _erased_issue(upload: str, name: str) -> Issue:
    return _file_issue(upload, name, "audio_erased", "not processed: this recording was withdrawn by an erasure "
                       "request (work/erasure/ledger.jsonl), in this or another copy",
                       "nothing to do: it stays out of every release; delete the raw file "
                       "(`vak erase --purge-raw`) so it is not delivered again", severity=Severity.WARN)


def read_audio_index(layout: DataLayout, upload: str) -> list[NormalizedAudio]:
    """The rows of work/<upload>/audio.jsonl (what the speech stage consumes)."""
    path = layout.audio_index(upload)
    if not path.is_file():
        return []
    return [NormalizedAudio.model_validate(line.value) for line in iter_jsonl(path) if line.value is not None]
