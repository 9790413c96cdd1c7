"""The normalized_audio stage for one upload: every recording to work/<upload>/audio/<conv_id>.wav, incrementally.

Reads the descriptor and the inventory, normalizes each audio file (in a process pool when workers > 1),
and writes work/<upload>/audio.jsonl (one NormalizedAudio per usable recording) and work/<upload>/report.json
(every file it could not use, with reason and fix). A recording whose bytes and audio settings did not
change since the last run, and whose wav is still there, is not decoded again.
"""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..core.issue import Issue, Severity
from ..layout import DataLayout
from ..sources.descriptor import RecordingSettings, load_descriptor
from ..sources.ids import conversation_id
from ..sources.inventory import current_inventory
from ..storage import JsonlWriter, atomic_write_json, iter_jsonl
from .decode import AudioError
from .models import InspectReport, NormalizedAudio
from .normalize import DEFAULT_BLOCK_S, DEFAULT_MAX_DURATION_S, TARGET_RATE, normalize_recording

NORMALIZE_VERSION = "1"  # bump when the output wav for the same input and settings would change


class UploadAudioResult(BaseModel):
    """What one run of the stage did, for asset metadata and the CLI."""

    upload: str
    recordings: int = 0  # rows in audio.jsonl
    decoded: int = 0  # recordings decoded (normalized) in this run
    skipped: int = 0  # unchanged files not decoded again (their row, or their failure, reused)
    failed: int = 0  # audio files that could not be used
    issues: list[Issue] = Field(default_factory=list)
    audio_index: str
    report: str
    counts: dict[str, int] = Field(default_factory=dict)  # inventory counts by kind


def settings_hash(keep_channels: list[int] | None, target_rate: int, quality: str) -> str:
    """Everything that shapes the output wav (not the descriptor metadata, which is refreshed without decoding)."""
    payload = {"v": NORMALIZE_VERSION, "keep_channels": keep_channels, "rate": target_rate, "quality": quality}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _normalize_job(job: dict[str, Any]) -> dict[str, Any]:
    """Worker: normalize one file; never raises, so one bad file cannot stop the pool."""
    try:
        rep = normalize_recording(Path(job["src"]), Path(job["dst"]), keep_channels=job["keep"],
                                  target_rate=job["rate"], block_s=job["block_s"], quality=job["quality"],
                                  name=job["name"], max_duration_s=job.get("max_duration_s", DEFAULT_MAX_DURATION_S))
        return {"name": job["name"], "report": rep.model_dump(mode="json")}
    except AudioError as exc:
        return {"name": job["name"], "error": [exc.code, exc.message, exc.fix]}
    except Exception as exc:  # a decoder/library failure on odd input is still a per-file problem
        return {"name": job["name"], "error": ["audio_normalize_failed",
                                               f"{Path(job['name']).name} failed to normalize ({type(exc).__name__})",
                                               "re-export the recording as WAV or FLAC and upload it again"]}


def _previous_rows(path: Path) -> dict[str, NormalizedAudio]:
    rows: dict[str, NormalizedAudio] = {}
    if not path.is_file():
        return rows
    for line in iter_jsonl(path):
        if line.value is None:
            continue
        try:
            row = NormalizedAudio.model_validate(line.value)
        except ValueError:
            continue  # an old or damaged row only costs a re-decode
        rows[row.source_file] = row
    return rows


def _previous_failures(path: Path) -> dict[str, dict[str, Any]]:
    """Failures recorded by the last run (file -> sha256, settings_hash, issue), so they are not retried blindly."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {f["file"]: f for f in data.get("failures", []) if isinstance(f, dict) and "file" in f}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def _file_issue(upload: str, name: str, code: str, message: str, fix: str,
                severity: Severity = Severity.ERROR, line: int | None = None) -> Issue:
    return Issue(code=code, message=message, fix=fix, severity=severity, family="audio", file=f"{upload}/{name}",
                 line=line)


def normalize_upload(layout: DataLayout, upload: str, workers: int = 1, target_rate: int = TARGET_RATE,
                     quality: str = "HQ", block_s: float = DEFAULT_BLOCK_S,
                     max_duration_s: float | None = DEFAULT_MAX_DURATION_S) -> UploadAudioResult:
    """Normalize every recording of `upload`; write audio.jsonl and report.json; return what happened."""
    upload_dir = layout.upload_dir(upload)
    result = UploadAudioResult(upload=upload, audio_index=str(layout.audio_index(upload)),
                               report=str(layout.upload_report(upload)))
    desc, issues = load_descriptor(upload_dir)
    inv = current_inventory(upload_dir, layout.inventory(upload))
    result.counts = inv.counts()
    audio_files = [f for f in inv.files if f.kind == "audio"]
    rows: list[NormalizedAudio] = []
    notes: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []  # per-file failures with the hashes that produced them

    if desc is None:
        # nothing can be processed safely without locale and consent: report the whole upload
        issues += [_file_issue(upload, f.name, "audio_upload_descriptor_invalid",
                               "not processed: the upload's upload.yaml is missing or invalid (see the issues on "
                               "upload.yaml)", "fix upload.yaml, then re-run this upload") for f in audio_files]
        result.failed = len(audio_files)
    else:
        for f in inv.files:
            if f.kind == "unknown":
                issues.append(_file_issue(upload, f.name, "file_unknown_kind",
                                          "file type not recognised; it is ignored",
                                          "use a supported suffix (.wav .flac .mp3 .ogg .m4a .aac, *.aidb.jsonl, "
                                          "*.messages.jsonl, *.vakforge.jsonl, *.events.jsonl) or remove it",
                                          Severity.WARN))
        previous = _previous_rows(layout.audio_index(upload))
        failed_before = _previous_failures(layout.upload_report(upload))
        planned: dict[str, tuple[str, RecordingSettings, str, str]] = {}  # name -> conv, settings, hash, sha
        jobs: list[dict[str, Any]] = []
        used_ids: dict[str, str] = {}
        for f in audio_files:
            if f.name in desc.rejected_rows:
                line = desc.rejected_rows[f.name]
                issues.append(_file_issue(upload, f.name, "audio_settings_row_rejected",
                                          f"not processed: its recordings.csv row (line {line}) was rejected",
                                          "fix that row of recordings.csv (see the issue on it), then re-run"))
                result.failed += 1
                continue
            settings = desc.settings_for(f.name)
            conv = conversation_id(upload, f.name, desc.conv_id_for(f.name))
            if conv in used_ids:
                issues.append(_file_issue(upload, f.name, "audio_conv_id_collision",
                                          f"its conversation id {conv!r} is already used by {used_ids[conv]!r}",
                                          "give one of them its own conv_id in recordings.csv"))
                result.failed += 1
                continue
            used_ids[conv] = f.name
            shash = settings_hash(settings.keep_channels, target_rate, quality)
            planned[f.name] = (conv, settings, shash, f.sha256)
            prev = previous.get(f.name)
            rel = layout.normalized_audio_rel(upload, conv)
            if (prev is not None and prev.source_sha256 == f.sha256 and prev.settings_hash == shash
                    and prev.conv_id == conv and prev.path == rel and (layout.root / rel).is_file()):
                rows.append(prev.model_copy(update={"settings": settings}))
                result.skipped += 1
                continue
            fail = failed_before.get(f.name)
            if (fail and fail.get("sha256") == f.sha256 and fail.get("settings_hash") == shash
                    and fail.get("max_duration_s", DEFAULT_MAX_DURATION_S) == max_duration_s):
                issues.append(Issue.model_validate(fail["issue"]))  # same bytes, same settings: same failure
                failures.append(fail)
                result.failed += 1
                result.skipped += 1
                continue
            jobs.append({"src": str(upload_dir / f.name), "dst": str(layout.root / rel), "keep": settings.keep_channels,
                         "rate": target_rate, "block_s": block_s, "quality": quality, "name": f.name,
                         "max_duration_s": max_duration_s})

        if workers > 1 and len(jobs) > 1:
            with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=get_context("spawn")) as pool:
                outcomes = list(pool.map(_normalize_job, jobs))
        else:
            outcomes = [_normalize_job(j) for j in jobs]
        result.decoded = len(jobs)

        for out in outcomes:
            name = out["name"]
            if "error" in out:
                code, message, fix = out["error"]
                issue = _file_issue(upload, name, code, message, fix)
                issues.append(issue)
                _, _, shash, sha = planned[name]
                failures.append({"file": name, "sha256": sha, "settings_hash": shash, "max_duration_s": max_duration_s,
                                 "issue": issue.model_dump(mode="json", exclude_none=True)})
                result.failed += 1
                continue
            conv, settings, shash, sha = planned[name]
            rep = InspectReport.model_validate(out["report"])
            rows.append(NormalizedAudio(
                conv_id=conv, upload=upload, source_file=name, source_sha256=sha, settings_hash=shash,
                path=layout.normalized_audio_rel(upload, conv), sample_rate=rep.sample_rate, channels=rep.channels,
                duration_s=rep.duration_s, kept_channels=settings.keep_channels if rep.source_channels else None,
                settings=settings, inspect=rep))

    rows.sort(key=lambda r: r.source_file)
    for r in rows:
        notes += [{"conv_id": r.conv_id, "file": f"{upload}/{r.source_file}", "note": n} for n in r.inspect.notes]
    with JsonlWriter(layout.audio_index(upload)) as w:
        for r in rows:
            w.write(r.model_dump(mode="json"))
    result.recordings = len(rows)
    result.issues = issues
    atomic_write_json(layout.upload_report(upload), {
        "upload": upload, "stage": "normalized_audio", "fingerprint": inv.fingerprint,
        "counts": {"files": len(inv.files), "audio_files": len(audio_files), "recordings": result.recordings,
                   "decoded": result.decoded, "skipped": result.skipped, "failed": result.failed,
                   "by_kind": result.counts},
        "issues": [i.model_dump(mode="json", exclude_none=True) for i in issues],
        "notes": notes,
        "failures": failures,
    })
    return result


def read_audio_index(layout: DataLayout, upload: str) -> list[NormalizedAudio]:
    """The rows of work/<upload>/audio.jsonl (what the speech stage consumes)."""
    path = layout.audio_index(upload)
    if not path.is_file():
        return []
    return [NormalizedAudio.model_validate(line.value) for line in iter_jsonl(path) if line.value is not None]
