"""Where a record came from: the uploaded file and line (text sources) or recording (audio).

Importers set it in meta (text sources: meta.origin = {upload, file, line}; transcribed calls:
meta.upload and meta.source_file), so a rejected row or a failed check names what the customer
uploaded, not work/<upload>/redacted.jsonl.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple


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


def synthesized_audio(record: Any) -> bool:
    """True when the record's audio was rendered from its text by the synth stage (audio.synthesis set)."""
    audio = record.get("audio") if isinstance(record, dict) else getattr(record, "audio", None)
    if audio is None:
        return False
    synthesis = audio.get("synthesis") if isinstance(audio, dict) else getattr(audio, "synthesis", None)
    return synthesis is not None


def record_kind(record: Any) -> Literal["audio", "text"]:
    """What the customer uploaded: "audio" for a real recording, "text" for a chat or ticket (with or without
    synthesized audio). Counts, quality and turn-taking go by this: synthesized audio is a property of synth's
    settings, not of the data."""
    audio = record.get("audio") if isinstance(record, dict) else getattr(record, "audio", None)
    if audio is None or (isinstance(record, dict) and not isinstance(audio, dict)):
        return "text"
    return "text" if synthesized_audio(record) else "audio"
