"""Is this upload up to date? One answer, read from the stage reports, for `vak run`, the sensor and the schedule.

Every stage's report records what it was made of (`made_of`: its code version, its input token, the run
config's key) and an `output` token (a hash of that and its output file), written by the stage runner at the
end of a run (core.runner.made_of). The ingest stages form a chain, from the upload's files to synth:

    files --> normalized_audio --> transcripts --\\
    files --> text_import ----------------------- tagged_turns --> redacted_manifest --> synth

An upload is ingested as it is now when every link holds (each stage's input is its upstream's output, the
first ones' is the upload's current fingerprint) and every code version is today's (an explicit constant plus
the locale packs' fingerprint where they shape the output). A stage that stopped half-way writes no report,
so its old one no longer matches its upstream; a changed file changes the fingerprint. No marker, no mtimes.

Is the live release up to date? The `release` step records, at the swap, what it was made of
(`mark_published`: each upload's records by content, the run config, the publish code and the steward's
thresholds), and `is_published` compares that with today's inputs, for `vak run`, the sensor and the schedule.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..audio.settings import NORMALIZE_VERSION
from ..layout import DataLayout
from ..redaction.settings import stage_version
from ..sources.text import TEXT_IMPORT_VERSION, TEXT_STAGE
from ..speech.stage import STAGE as TRANSCRIPTS
from ..speech.stage import TRANSCRIBE_VERSION, tag_upstream, tag_version
from ..storage import atomic_write_json
from ..synth.settings import SYNTH_VERSION
from ..uploads.ingested import config_key
from ..uploads.inventory import fingerprint


def _packs() -> str:
    from ..locales.registry import packs_fingerprint

    return packs_fingerprint()


_Report = tuple[Callable[[DataLayout, str], Path], str | None]  # a report file and its section
_AUDIO: _Report = (DataLayout.upload_report, None)
_TAGGED: _Report = (DataLayout.speech_report, "tagged_turns")
_REDACTED: _Report = (DataLayout.redaction_report, None)

# each link: its report, today's code version, and what it must have been made from: None (the upload's files),
# an upstream report (its output token), or "tagged" (the transcripts' and text import's outputs, the files)
CHAIN: tuple[tuple[_Report, Callable[[], str], _Report | str | None], ...] = (
    (_AUDIO, lambda: NORMALIZE_VERSION, None),
    ((DataLayout.speech_report, TRANSCRIPTS), lambda: TRANSCRIBE_VERSION, _AUDIO),
    ((DataLayout.speech_report, TEXT_STAGE), lambda: f"{TEXT_IMPORT_VERSION}-{_packs()}", None),
    (_TAGGED, tag_version, "tagged"),
    (_REDACTED, stage_version, _TAGGED),
    ((DataLayout.synth_report, None), lambda: SYNTH_VERSION, _REDACTED),
)


def is_ingested(layout: DataLayout, upload: str, current: str | None = None, run_key: str | None = None) -> bool:
    """True when `upload` (with fingerprint `current`, computed when not given) needs no ingest run: every stage's
    report is in the chain above, with today's code. `run_key` (`uploads.ingested.config_key` of a run config)
    is compared when given: `vak run --config` asks for its own settings; the sensor and the schedule take any
    complete ingest of these files."""
    if current is None:
        try:
            current = fingerprint(layout.upload_dir(upload))
        except OSError:
            return False
    files: dict[Path, Any] = {}  # each report file read once

    def part(report: _Report) -> dict[str, Any]:
        path = report[0](layout, upload)
        if path not in files:
            try:
                files[path] = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                files[path] = None
        data = files[path]
        data = data.get(report[1]) if isinstance(data, dict) and report[1] else data
        return data if isinstance(data, dict) else {}

    for report, version, upstream in CHAIN:
        made = part(report).get("made_of")
        if upstream is None:
            wanted: Any = current
        elif upstream == "tagged":
            wanted = tag_upstream(layout, upload)
        else:
            wanted = part(upstream).get("output")  # type: ignore[arg-type]
        if not isinstance(made, dict) or made.get("version") != version() or made.get("input") != wanted:
            return False
        if run_key is not None and made.get("run") != run_key:
            return False
    return True


def uploads_to_ingest(layout: DataLayout) -> dict[str, str]:
    """upload -> current fingerprint, for every upload folder that is new or changed since its last ingest."""
    out: dict[str, str] = {}
    for upload in layout.uploads():
        try:
            fp = fingerprint(layout.upload_dir(upload))
        except OSError:
            continue  # a folder being moved away: the next evaluation sees it
        if not is_ingested(layout, upload, fp):
            out[upload] = fp
    return out


def published_stamp(layout: DataLayout, code: str, run_config: dict[str, Any] | None) -> str:
    """What a publish is made from: each upload's records by content (mtimes differ between machines sharing a
    URL root), the run config that shapes outputs (config_key), the publish code and the steward's thresholds."""
    import os

    from ..storage import sha256_file

    inputs = [[u, sha256_file(p) if p.is_file() else None] for u in layout.uploads()
              for p in [layout.manifest_input(u)]]
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith("VAK_QUALITY_") or k == "VAK_DAGSTER_URL")
    payload = [inputs, config_key(run_config), code, env]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def mark_published(layout: DataLayout, code: str, run_config: dict[str, Any] | None, run_id: str = "") -> None:
    """Record, at the swap, what the live release was made from (called by the `release` step, whoever launched
    it): `vak run`, the sensor and the schedule read the same answer (`is_published`)."""
    atomic_write_json(layout.publish_marker, {"stamp": published_stamp(layout, code, run_config), "run_id": run_id})


def is_published(layout: DataLayout, code: str, run_config: dict[str, Any] | None) -> bool:
    """True when the live release was made from exactly these inputs, config and code: no publish is needed."""
    try:
        marker = json.loads(layout.publish_marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(marker, dict) and layout.manifest.is_file() and layout.splits.is_file()
            and marker.get("stamp") == published_stamp(layout, code, run_config))
