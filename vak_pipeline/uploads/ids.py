"""Stable conversation ids, derived from the upload and the file so a re-run names things the same way.

`<upload>-<file stem slug>` for a recording, `<upload>-<file stem slug>-<record id slug>` for one record of a
text source; a `conv_id` given in recordings.csv wins. Slugs hold only [a-z0-9_-] because ids become file
names (`audio/<conv_id>.wav`). Non-ASCII names are folded to ASCII where a letter has an ASCII base
(`Müller` -> `muller`); a file or folder name with characters that have none (`देविका.wav`) is published
with `text` in their place and the file's tag (below), never a hash of the name (`unfoldable_as_text`).
Elsewhere (upload folders, record ids), characters that had to be dropped leave a short hash of the original.

No id carries PII from a source name (issue 26). Every part (upload, folders, stem, record id, a given
`conv_id`) is checked by `pii.identifiers` with its strict, high-recall policy (the pack's recognizers plus
any country's top name that is not derived identifier vocabulary: `kurz.wav`, `fox_2026.wav` are cleaned,
`billing-march.wav` stays); each hit is replaced by its type (`phone`, `email`, `name`) and the public name gets an
8-letter tag from the *source file's own sha256*: `call_4155550123.wav` -> `call_phone-kdwqbnzt.wav`
(consonants only, so a tag never reads as a name).
Why that tag is safe: it is a function of the file's bytes, not of the number or name, so guessing a
phone number or a name and hashing it tells nothing (a short hash of the value itself could be brute
forced over the ~10^10 numbers of a country in minutes). It is stable across re-runs and machines;
editing the file's bytes gives it a new tag (rename it to a clean name to keep an id forever). The raw
name stays private: `work/<upload>/names.jsonl` maps each public name back (`vak lookup`).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

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


# a tag's letters: consonants only, so a tag never spells a name or a word a PII check would flag again
TAG_ALPHABET = "bcdfghjklmnpqrstvwxz"


def tag_of(hexdigest: str, n: int = 8) -> str:
    """n letters of TAG_ALPHABET from a hex digest (20^8 ~ 2.6e10 tags)."""
    v, out = int(hexdigest[:24], 16), []
    for _ in range(n):
        v, r = divmod(v, len(TAG_ALPHABET))
        out.append(TAG_ALPHABET[r])
    return "".join(out)


_MERGE_GLUE = re.compile(r"^[\s._\-]*$")
_LABEL = {"person_name": "name", "unsure_number": "number"}


def _pack(locale: str | None):  # noqa: ANN202 - LocalePack, imported lazily (packs load in ~0.15 s)
    from ..locales import get_pack

    try:
        return get_pack(locale or "en-US")
    except Exception:  # noqa: BLE001 - an unknown locale is reported by the descriptor; names still get scanned
        return get_pack("en-US")


def redact_name(text: str, locale: str | None = None) -> tuple[str, bool]:
    """`text` with each PII hit replaced by its type label (neighbouring hits of one type merged); True when
    something was replaced."""
    from ..pii.identifiers import identifier_pii

    found = identifier_pii(_pack(locale), text, strict=True)  # ids and file names: the high-recall policy
    if not found:
        return text, False
    spans: list[list[Any]] = []
    for f in found:
        if spans and spans[-1][2] == f.type and _MERGE_GLUE.match(text[spans[-1][1]:f.start]):
            spans[-1][1] = f.end
        else:
            spans.append([f.start, f.end, f.type])
    out, pos = [], 0
    for s, e, kind in spans:
        out += [text[pos:s], _LABEL.get(kind, kind).replace("_", "-")]
        pos = e
    out.append(text[pos:])
    return "".join(out), True


# a word holding a character with no ASCII base (`Łukasz`: Ł does not fold), and the next such words
_NON_ASCII_WORD = r"[^\s._\-/]*[^\x00-\x7f][^\s._\-/]*"
_NON_ASCII = re.compile(rf"{_NON_ASCII_WORD}(?:[\s._\-]+{_NON_ASCII_WORD})*")


def _folded(text: str) -> str:
    """`text` with accents dropped where a letter has an ASCII base (`Müller` -> `Muller`); others kept."""
    return "".join(c for c in unicodedata.normalize("NFKD", unicodedata.normalize("NFC", text))
                   if not unicodedata.combining(c))


def unfoldable_as_text(text: str) -> tuple[str, bool]:
    """`text` with each word holding characters that have no ASCII base (`देविका`, `张伟`, `Łukasz`) replaced by
    `text`; True when one was. Why: such a run is dropped by `slugify`, which would tell two names apart by a
    short hash of the name itself, and a hash of a name can be tested against a list of names; a name the
    recognizers miss in a script they do not read must not become one. The file's own tag (from its bytes)
    tells the files apart."""
    folded = _folded(text)
    if folded.isascii():
        return text, False
    return _NON_ASCII.sub("text", folded), True


def public_file(file: str, sha256: str | Callable[[], str], locale: str | None = None) -> str:
    """The name a source file is published and logged under: `file` itself when no part of it carries PII,
    else each hit replaced by its type and the stem tagged with 8 letters from the file's sha256 (a callable is
    called only then). Without a sha256 (a name in a message about an absent file) there is no tag."""
    name = file.replace("\\", "/")
    parts = name.split("/")
    low = parts[-1].lower()
    suffix = next((x for x in COMPOUND_SUFFIXES if low.endswith(x)), None)
    if suffix is None:
        p = PurePosixPath(parts[-1])
        suffix = p.suffix if p.suffix and p.stem else ""
    stem = parts[-1][: len(parts[-1]) - len(suffix)] if suffix else parts[-1]
    changed = False
    safe: list[str] = []
    for part in [*parts[:-1], stem]:
        new, hit = redact_name(_folded(part), locale)  # `Wójcik` is read as `Wojcik`
        new, lossy = unfoldable_as_text(new)
        safe.append(new)
        changed |= hit or lossy
    if not changed:
        return file
    digest = sha256() if callable(sha256) else sha256  # a callable: hashed only when needed
    tag = f"-{tag_of(digest)}" if digest else ""  # never a hash of the name: that could be brute forced
    return "/".join([*safe[:-1], f"{safe[-1]}{tag}{suffix}"])


def shown_name(name: str) -> str:
    """`name` as a message may show it: each PII hit replaced by its type (no tag: the file may be absent)."""
    return public_file(name, "")


def is_safe_id(value: str) -> bool:
    """True when `value` can be used as given: it becomes a file name, so no slashes, no leading dot."""
    return bool(_SAFE_ID.match(value)) and ".." not in value


def _id_part(text: str, locale: str | None, tag: str | Callable[[], str]) -> str:
    """`text` with PII replaced by its type and tagged; `tag` (a callable is called only when needed) comes from
    the source file's bytes, never from the text."""
    new, hit = redact_name(text, locale)
    if tag:  # with a tag, an unreadable script is replaced too (without one, slugify's hash keeps ids apart)
        new, lossy = unfoldable_as_text(new)
        hit |= lossy
    if not hit:
        return text
    digest = tag() if callable(tag) else tag
    return f"{new}-{tag_of(digest)}" if digest else new


def conversation_id(upload: str, file: str, override: str | None = None, record_id: str | None = None,
                    locale: str | None = None, sha256: str | Callable[[], str] = "") -> str:
    """The conversation id of `file` in `upload` (and of record `record_id` inside it, for text sources).

    `override` (recordings.csv `conv_id`, or an id the source itself carries) is returned unchanged when it is
    a safe id free of PII; otherwise it is cleaned (PII replaced by its type, see the module docstring) and
    slugified, so an id can never escape the audio/ folder nor name a caller. `file` may already be the
    public name (`public_file`); `sha256` (of the source file; a callable is called only when a part had to be
    cleaned) tags a part that had to be cleaned.
    """
    tag = sha256  # the file's bytes, never the name (see the module docstring)
    if override:
        clean = _id_part(override, locale, tag)
        return clean if clean == override and is_safe_id(override) else slugify(clean)
    parts = [slugify(upload), slugify(file_stem(public_file(file, sha256, locale)))]
    if record_id is not None and str(record_id) != "":
        def record_tag() -> str:  # the file's bytes and the record's id: one tag per record, never the id's hash
            digest = tag() if callable(tag) else tag
            return _short_hash(f"{digest}/{record_id}") if digest else ""

        parts.append(slugify(_id_part(str(record_id), locale, record_tag if tag else "")))
    return "-".join(parts)
