"""Which uploads are already ingested as they are now: what the sensor and the nightly schedule skip.

An upload counts as ingested when the inventory its last ingest recorded (work/<upload>/inventory.json)
has the fingerprint the folder has now, and that ingest got to the end: `vak run`'s marker
(work/<upload>/ingest_done.json) is there, or redacted.jsonl was written after the inventory (an ingest
run launched from Dagster). A folder that changed since, or an ingest that stopped half-way, is not.
"""

from __future__ import annotations

import json

from ..layout import DataLayout
from .inventory import fingerprint


def recorded_fingerprint(layout: DataLayout, upload: str) -> str | None:
    try:
        value = json.loads(layout.inventory(upload).read_text(encoding="utf-8")).get("fingerprint")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def is_ingested(layout: DataLayout, upload: str, current: str | None = None) -> bool:
    """True when `upload` (with fingerprint `current`, computed when not given) needs no ingest run."""
    if current is None:
        try:
            current = fingerprint(layout.upload_dir(upload))
        except OSError:
            return False
    if recorded_fingerprint(layout, upload) != current:
        return False
    out, inv = layout.redacted(upload), layout.inventory(upload)
    if not out.is_file():
        return False
    if layout.ingest_marker(upload).is_file():
        return True
    return out.stat().st_mtime_ns >= inv.stat().st_mtime_ns


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
