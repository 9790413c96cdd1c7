"""Every published string of a record that is not a turn's text, tool JSON or the system prompt: one list,
read by the redaction stage (which cleans them) and the `pii_redacted` re-check (which scans them), so
validation catches what redaction missed (issue 26).

Scanned (`identifier_pii`: the pack's recognizers plus the lower-case name check): `domain`, `scenario`,
tool names, descriptions and parameter schemas, the speaker ids of `meta.speakers`, `meta.upload`,
`meta.source_file`, and every key and string value of every meta field outside `STRUCTURED_META`
(`meta.sft_metadata`, `meta.sft`, `meta.aidb.*` with participants, labels, links and extra fields,
`meta.notes`, `meta.origin`, anything an importer adds later). `STRUCTURED_META` is the allow-list of
fields the pipeline itself writes from closed vocabularies, timestamps or its own paths: never scanned.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ..locales.base import LocalePack
from .identifiers import identifier_pii
from .scan import PiiFinding

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
# written by the pipeline from closed vocabularies, its own paths, numbers and timestamps
STRUCTURED_META = frozenset({
    "source", "consent", "consent_ref", "voice_consent_ref", "license", "pii_redacted", "redaction_log",
    "transcription", "diarization", "split", "created", "allow_unconsented", "skip_redaction", "speakers",
    "upload", "source_file", "cleanup", "crosstalk", "removed_segments", "asr", "entities",
})


@dataclass(frozen=True)
class PublishedString:
    """A string at `path` (keys into the record's JSON); `is_key`: the string is that dict key itself."""

    path: tuple[str | int, ...]
    text: str
    kind: str  # "text" | "key" | "speaker" | "tool_name"
    fixed: int = 0  # how many leading path elements are the schema's own names (never checked)

    def field(self, pack: LocalePack) -> str:
        """The dotted field name an issue names (`meta.aidb.labels.contact`, `tools[0].description`); a key
        that is not a plain word, or that holds PII itself, is shown as `{key}` (issues never show values)."""
        out = ""
        for n, k in enumerate(self.path):
            if isinstance(k, int):
                out += f"[{k}]"
                continue
            if n >= self.fixed and (not _PLAIN_KEY.match(k) or identifier_pii(pack, k)):
                k = "{key}"
            out += f".{k}" if out else k
        return out


def published_strings(doc: dict[str, Any]) -> Iterator[PublishedString]:
    """The strings of a record's JSON (`VakRecord.dump()`) that `identifier_pii` must find clean."""
    for key in ("domain", "scenario"):
        if isinstance(doc.get(key), str):
            yield PublishedString((key,), doc[key], "text", 1)
    for i, tool in enumerate(doc.get("tools") or []):
        if isinstance(tool.get("name"), str):
            yield PublishedString(("tools", i, "name"), tool["name"], "tool_name", 3)
        if isinstance(tool.get("description"), str):
            yield PublishedString(("tools", i, "description"), tool["description"], "text", 3)
        yield from _walk(tool.get("parameters"), ("tools", i, "parameters"), 3)
    meta = doc.get("meta") or {}
    for role, spk in (meta.get("speakers") or {}).items():
        if isinstance(spk, str):
            yield PublishedString(("meta", "speakers", role), spk, "speaker", 2)
    for key in ("upload", "source_file"):
        if isinstance(meta.get(key), str):
            yield PublishedString(("meta", key), meta[key], "text", 2)
    for key, value in meta.items():
        if key not in STRUCTURED_META:
            yield from _walk(value, ("meta", key), 2)


def _walk(value: Any, path: tuple[str | int, ...], fixed: int) -> Iterator[PublishedString]:
    if isinstance(value, str):
        yield PublishedString(path, value, "text", fixed)
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                yield PublishedString((*path, k), k, "key", fixed)
            yield from _walk(v, (*path, k), fixed)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, (*path, i), fixed)


def findings(pack: LocalePack, s: PublishedString, names: tuple[str, ...] = (),
             persona: frozenset[str] = frozenset()) -> list[PiiFinding]:
    """PII in one published string (type and range only). A speaker id, a metadata key, and a value with no
    white space (a record id, a handle, a code: `kelly.leonard`, `cust-made-4`), is an identifier and gets the
    strict policy (`pii.identifiers`: `{"kurz": ...}` is a surname as a key too); text gets the text policy, and
    so does a key that is vocabulary (`_vocabulary_key`: `lang`, `line`)."""
    strict = s.kind == "speaker" or (s.kind == "key" and not _vocabulary_key(s.text)) or (
        s.kind == "text" and not any(c.isspace() for c in s.text))
    return identifier_pii(pack, s.text, names, persona, strict=strict)


KEY_ZIPF = 4.5  # an English word at least this frequent (wordfreq) is a key's vocabulary: `line`, `file`, `kind`


@functools.lru_cache(maxsize=4096)
def _vocabulary_key(key: str) -> bool:
    """A key that is a field name of the canonical record or an everyday English word (`line`: a Norwegian given
    name, but as a JSON key a word) keeps the text policy; any other key is an identifier (`kurz`, English
    Zipf 2.3)."""
    import wordfreq

    low = key.lower()
    return low in schema_words() or wordfreq.zipf_frequency(low.replace("_", " "), "en") >= KEY_ZIPF


@functools.cache
def schema_words() -> frozenset[str]:
    """Every field name (and alias) of the canonical record's models: keys a record's metadata reuses from the
    format itself, never a person's name."""
    from ..schema import record

    words: set[str] = set()
    for obj in vars(record).values():
        if isinstance(obj, type) and issubclass(obj, BaseModel):
            for name, f in obj.model_fields.items():
                words.update(w.lower() for w in (name, f.alias) if w)
    return frozenset(words)
