"""Stable conversation ids, derived from the upload and the file so a re-run names things the same way.

`<upload>-<file stem slug>` for a recording, `<upload>-<file stem slug>-<record id slug>` for one record of a
text source; a `conv_id` given in recordings.csv wins. Slugs hold only [a-z0-9_-] because ids become file
names (`audio/<conv_id>.wav`). Non-ASCII names are folded to ASCII where a letter has an ASCII base
(`Müller` -> `muller`); when characters had to be dropped (`电话`), a short hash of the original stem is
appended so two such files never collide.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import PurePosixPath

# compound suffixes of the text sources; their stem is what precedes them
COMPOUND_SUFFIXES = (".aidb.jsonl", ".messages.jsonl", ".vakforge.jsonl", ".events.jsonl")

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$")
_NOT_SLUG = re.compile(r"[^a-z0-9_-]+")


def _short_hash(text: str) -> str:
    return hashlib.sha256(unicodedata.normalize("NFC", text).encode("utf-8")).hexdigest()[:8]


def slugify(text: str) -> str:
    """Lower-case [a-z0-9_-] slug; a hash suffix marks (and disambiguates) characters that were dropped."""
    nfc = unicodedata.normalize("NFC", text)
    folded = "".join(c for c in unicodedata.normalize("NFKD", nfc) if not unicodedata.combining(c))
    lossy = any(ord(c) > 127 for c in folded)
    slug = _NOT_SLUG.sub("-", folded.encode("ascii", "ignore").decode("ascii").lower()).strip("-_")
    slug = re.sub(r"-{2,}", "-", slug)
    if lossy or not slug:
        slug = f"{slug}-{_short_hash(nfc)}" if slug else _short_hash(nfc)
    return slug


def file_stem(file: str) -> str:
    """The relative file name without its (compound) suffix; sub-folders joined by '-'."""
    name = file.replace("\\", "/")
    low = name.lower()
    for suffix in COMPOUND_SUFFIXES:
        if low.endswith(suffix):
            name = name[: -len(suffix)]
            break
    else:
        p = PurePosixPath(name)
        name = str(p.with_suffix("")) if p.suffix else name
    return "-".join(part for part in name.split("/") if part)


def is_safe_id(value: str) -> bool:
    """True when `value` can be used as given: it becomes a file name, so no slashes, no leading dot."""
    return bool(_SAFE_ID.match(value)) and ".." not in value


def conversation_id(upload: str, file: str, override: str | None = None, record_id: str | None = None) -> str:
    """The conversation id of `file` in `upload` (and of record `record_id` inside it, for text sources).

    `override` (recordings.csv `conv_id`, or an id the source itself carries) is returned unchanged when it is
    a safe id; otherwise it is slugified, so an id can never escape the audio/ folder.
    """
    if override:
        return override if is_safe_id(override) else slugify(override)
    parts = [slugify(upload), slugify(file_stem(file))]
    if record_id is not None and str(record_id) != "":
        parts.append(slugify(str(record_id)))
    return "-".join(parts)
