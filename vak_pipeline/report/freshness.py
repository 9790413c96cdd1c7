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
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..audio.settings import NORMALIZE_VERSION
from ..layout import DataLayout
from ..redaction.settings import stage_version
from ..sources.inventory import fingerprint
from ..sources.text import TEXT_IMPORT_VERSION, TEXT_STAGE
from ..speech.stage import STAGE as TRANSCRIPTS
from ..speech.stage import TRANSCRIBE_VERSION, tag_upstream, tag_version
from ..synth.settings import SYNTH_VERSION


def _packs() -> str:
    from ..locales.registry import packs_fingerprint

    return packs_fingerprint()


# (report file, section, today's code version, the input it must have been made from: (layout, upload, fp) -> str)
_Link = tuple[Callable[[DataLayout, str], Path], str | None, Callable[[], str], Callable[[DataLayout, str, str], str]]


def _output(report: Callable[[DataLayout, str], Path], section: str | None = None) -> Callable[..., str]:
    from ..core.runner import output_token

    return lambda layout, upload, _fp: output_token(report(layout, upload), section)


CHAIN: tuple[_Link, ...] = (
    (DataLayout.upload_report, None, lambda: NORMALIZE_VERSION, lambda _l, _u, fp: fp),
    (DataLayout.speech_report, TRANSCRIPTS, lambda: TRANSCRIBE_VERSION, _output(DataLayout.upload_report)),
    (DataLayout.speech_report, TEXT_STAGE, lambda: f"{TEXT_IMPORT_VERSION}-{_packs()}", lambda _l, _u, fp: fp),
    (DataLayout.speech_report, "tagged_turns", tag_version, lambda layout, upload, _fp: tag_upstream(layout, upload)),
    (DataLayout.redaction_report, None, stage_version, _output(DataLayout.speech_report, "tagged_turns")),
    (DataLayout.synth_report, None, lambda: SYNTH_VERSION, _output(DataLayout.redaction_report)),
)


def _made_of(path: Path, section: str | None) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    part = data.get(section) if isinstance(data, dict) and section else data
    made = part.get("made_of") if isinstance(part, dict) else None
    return made if isinstance(made, dict) else None


def is_ingested(layout: DataLayout, upload: str, current: str | None = None, run_key: str | None = None) -> bool:
    """True when `upload` (with fingerprint `current`, computed when not given) needs no ingest run: every stage's
    report is in the chain above, with today's code. `run_key` (`sources.ingested.config_key` of a run config)
    is compared when given: `vak run --config` asks for its own settings; the sensor and the schedule take any
    complete ingest of these files."""
    if current is None:
        try:
            current = fingerprint(layout.upload_dir(upload))
        except OSError:
            return False
    for report, section, version, upstream in CHAIN:
        made = _made_of(report(layout, upload), section)
        if made is None or made.get("version") != version() or made.get("input") != upstream(layout, upload, current):
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
