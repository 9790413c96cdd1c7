"""Clean every published string outside the turns (pii.fields): speaker ids pseudonymised, PII elsewhere
replaced by numbered placeholders, so nothing leaves around the record (issue 26).

Speaker ids must stay consistent across conversations and uploads (speaker-disjoint splits group by them),
so an id that carries PII (`devika.r@example.com`, `+1 415 555 0123`, `cust-rahul`) becomes
`spk-<10 letters>`: an HMAC-SHA256 of the id under a random key kept in `work/.pseudonym-key` (private,
created once per data directory). Why keyed: an unkeyed hash of an e-mail or a phone number can be
tested against a guess in microseconds ("is this customer in the dataset?"); without the key it cannot.
Keep the key with work/: a new key gives speakers new pseudonyms (conversation ids do not use it).
Clean speaker ids (`cust-4471`) and the persona's name stay as they are.

Other strings (domain, scenario, tool descriptions and schemas, metadata keys and values) get the same
placeholders as the turns, numbered after the record's highest of each type; a tool name that carries
PII gets its type in place of the value (tool names are identifiers), in the tools list and every call.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..locales.base import LocalePack
from ..pii.fields import PublishedString, findings, published_strings
from ..pii.placeholders import format_placeholder
from ..pii.recognizers import PLACEHOLDER_PREFIX, persona_names
from ..pii.scan import PiiFinding
from ..schema.record import VakRecord
from ..uploads.ids import redact_name, tag_of
from .memo import remembered

KEY_BYTES = 32
_PH = re.compile(r"<([A-Z][A-Z0-9_]*)_(\d+)>")


def pseudonym_key(work: Path) -> bytes:
    """The data directory's pseudonym key (work/.pseudonym-key), created on first use (0600, O_EXCL)."""
    path = work / ".pseudonym-key"
    try:
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    except FileNotFoundError:
        pass
    work.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another worker made it first
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    key = os.urandom(KEY_BYTES)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(key.hex())
    return key


def speaker_pseudonym(key: bytes, speaker: str) -> str:
    """`spk-` and 10 consonants (never a word or a name a PII check would flag)."""
    return "spk-" + tag_of(hmac.new(key, speaker.encode("utf-8"), hashlib.sha256).hexdigest(), 10)


# (pack id, string, names, persona) -> its findings: what `clean_published` remembers across the records of one run
Memo = dict[tuple[str, str, tuple[str, ...], frozenset[str]], list[PiiFinding]]
MEMO_LIMIT = 50_000  # strings remembered at most (then forgotten at once): memory stays flat on any upload


def clean_published(rec: VakRecord, pack: LocalePack, names: tuple[str, ...], key: Callable[[], bytes],
                    memo: Memo | None = None) -> tuple[VakRecord, dict[str, int]]:
    """`rec` with every published string outside the turns cleaned; replacements per type (never values).

    `memo` (a dict the caller keeps for a run): the findings of each string, remembered. The strings outside
    the turns are mostly the same in every record of an upload (tool schemas, metadata keys, domain, speaker
    roles), and their findings depend on the string, the pack, the names and the persona only."""
    doc = rec.dump()
    persona = persona_names(rec.system_prompt)
    hits = [(s, f) for s in published_strings(doc) if (f := _findings(pack, s, names, persona, memo))]
    if not hits:
        return rec, {}
    counters = _counters(doc)
    counts: dict[str, int] = {}
    renamed: dict[str, str] = {}
    for s, found in reversed(hits):  # deepest and last first: a key's rename never moves a path still to do
        for f in found:
            counts[f.type] = counts.get(f.type, 0) + 1
        if s.kind == "speaker":
            _set(doc, s.path, speaker_pseudonym(key(), s.text))
        elif s.kind == "tool_name":
            new = re.sub(r"[^A-Za-z0-9_-]+", "_", redact_name(s.text, rec.locale)[0])[:64] or "tool"
            renamed[s.text] = new
            _set(doc, s.path, new)
        else:
            new = _splice(s.text, found, counters)
            if s.kind == "key":
                parent = _get(doc, s.path[:-1])
                parent[new] = parent.pop(s.text)
            else:
                _set(doc, s.path, new)
    for turn in doc.get("turns", []):
        call = turn.get("tool_call")
        if call and call.get("name") in renamed:
            call["name"] = renamed[call["name"]]
    return VakRecord.model_validate(doc), counts


def _findings(pack: LocalePack, s: PublishedString, names: tuple[str, ...], persona: frozenset[str],
              memo: Memo | None) -> list[PiiFinding]:
    return remembered(memo, (pack.id, s.text, names, persona), MEMO_LIMIT, lambda: findings(pack, s, names, persona))


def _counters(doc: dict[str, Any]) -> dict[str, int]:
    import json

    out: dict[str, int] = {}
    for m in _PH.finditer(json.dumps(doc, ensure_ascii=False)):
        out[m.group(1)] = max(out.get(m.group(1), 0), int(m.group(2)))
    return out


def _splice(text: str, found: list[Any], counters: dict[str, int]) -> str:
    out, pos = [], 0
    for f in found:
        prefix = PLACEHOLDER_PREFIX.get(f.type, f.type.upper())
        counters[prefix] = counters.get(prefix, 0) + 1
        out += [text[pos:f.start], format_placeholder(prefix, counters[prefix])]
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def _get(doc: Any, path: tuple[str | int, ...]) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def _set(doc: Any, path: tuple[str | int, ...], value: Any) -> None:
    _get(doc, path[:-1])[path[-1]] = value


__all__ = ["PublishedString", "clean_published", "pseudonym_key", "speaker_pseudonym"]
