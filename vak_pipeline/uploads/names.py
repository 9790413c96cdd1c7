"""The private map from public (PII-free) names back to the raw files they came from, and its lookup.

Conversation ids and published file names never carry a value from a source file or folder name that is
PII (`uploads.ids`). An operator still needs to find the source of a published id: each stage that names
things writes `work/<upload>/names/<source>.json` (private, like everything under work/), and
`vak lookup ID --data DIR` reads those maps. Upload folder names are Dagster partition keys, shown in the
UI and the event log, so they cannot be mapped away: an upload whose folder name carries PII is refused
(`upload_name_issue`), with the type and character range, never the value, and the fix to rename it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.issue import Issue
from ..layout import DataLayout
from ..storage import atomic_write_json
from .ids import file_stem, redact_name, shown_name, slugify

NAME_MAP_VERSION = 2  # 2: ids and file names cleaned by the strict identifier policy (pii.identifiers)


def write_name_map(path: Path, rows: list[tuple[str | None, str, str]]) -> None:
    """(conversation id or None for a whole text file, public file, raw file) per row; rewritten only on change."""
    doc = {"version": NAME_MAP_VERSION,
           "names": [{"id": conv, "public_file": pub, "file": raw} for conv, pub, raw in sorted(rows, key=str)]}
    try:
        if json.loads(path.read_text(encoding="utf-8")) == doc:
            return
    except (OSError, ValueError):
        pass
    atomic_write_json(path, doc)


def lookup(root: str | Path, conv_id: str) -> list[dict[str, Any]]:
    """Where `conv_id` came from: {upload, file, public_file[, record]} per match (usually one)."""
    layout = DataLayout.at(root)
    work = layout.root / "work"
    found: list[dict[str, Any]] = []
    if not work.is_dir():
        return found
    for upload_dir in sorted(p for p in work.iterdir() if p.is_dir() and not p.name.startswith(".")):
        upload = upload_dir.name
        for map_path in sorted((upload_dir / "names").glob("*.json")):
            try:
                rows = json.loads(map_path.read_text(encoding="utf-8")).get("names", [])
            except (OSError, ValueError):
                continue
            for row in rows:
                hit = _match(upload, row, conv_id)
                if hit is not None:
                    found.append({"upload": upload, "file": row["file"], "public_file": row["public_file"]} | hit)
    return found


def _match(upload: str, row: dict[str, Any], conv_id: str) -> dict[str, Any] | None:
    if row.get("id") is not None:
        return {} if row["id"] == conv_id else None
    prefix = f"{slugify(upload)}-{slugify(file_stem(row['public_file']))}-"
    return {"record": conv_id[len(prefix):]} if conv_id.startswith(prefix) else None


def shown_issue(issue: dict[str, Any]) -> dict[str, Any]:
    """A stage report's issue as the steward report and `vak run` may show it: the file named without PII
    (each hit by its type: shown_name) and the record id likewise, whatever stage wrote it and however old the
    report. A safety net: the stages already name public files; a reader that quoted a raw name is caught here."""
    out = dict(issue)
    if isinstance(out.get("file"), str):
        out["file"] = shown_name(out["file"])
    if isinstance(out.get("record_id"), str):
        out["record_id"], _ = redact_name(out["record_id"])
    return out


def upload_name_issue(upload: str) -> Issue | None:
    """An error when the upload folder's name carries PII (it would become a partition key), else None."""
    from ..pii.identifiers import identifier_pii
    from .ids import _pack

    found = identifier_pii(_pack(None), upload, strict=True)
    if not found:
        return None
    what = ", ".join(f"a {f.type} at characters {f.start}-{f.end}" for f in found)
    safe, _ = redact_name(upload)
    return Issue(code="upload_name_pii", family="upload", file=f"raw/{safe}",
                 message=f"the upload folder's name holds {what}; folder names become partition keys, run tags "
                         "and ids, so it is not processed",
                 fix="rename the folder under raw/ to a name without personal data (e.g. the date and a "
                     "ticket number), then run again")


__all__ = ["lookup", "shown_issue", "upload_name_issue", "write_name_map"]
