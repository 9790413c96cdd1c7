"""Where a record came from: the uploaded file and line (text sources) or recording (audio).

Importers set it in meta (text sources: meta.origin = {upload, file, line}; transcribed calls:
meta.upload and meta.source_file), so a rejected row or a failed check names what the customer
uploaded, not work/<upload>/redacted.jsonl.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Origin(NamedTuple):
    upload: str | None
    file: str | None  # <upload>/<path inside the upload>
    line: int | None  # line of a text source; None for a recording


def record_origin(record: Any) -> Origin:
    """The origin of a record given as a dict (a parsed JSON line) or a VakRecord; all None when unknown."""
    meta = record.get("meta") if isinstance(record, dict) else getattr(record, "meta", None)
    if meta is not None and not isinstance(meta, dict):
        meta = meta.model_dump(mode="json")
    if not isinstance(meta, dict):
        return Origin(None, None, None)
    origin = meta.get("origin")
    if isinstance(origin, dict) and isinstance(origin.get("file"), str):
        upload = origin.get("upload") if isinstance(origin.get("upload"), str) else origin["file"].split("/")[0]
        line = origin.get("line") if isinstance(origin.get("line"), int) else None
        return Origin(upload, origin["file"], line)
    upload, source = meta.get("upload"), meta.get("source_file")
    if isinstance(upload, str) and isinstance(source, str):
        return Origin(upload, f"{upload}/{source}", None)
    return Origin(upload if isinstance(upload, str) else None, None, None)
