"""What an erasure request names: the conversations it reaches, found in the private work files."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..layout import DataLayout
from ..rules.origin import record_origin
from ..storage import iter_jsonl

Selector = Literal["conversation", "speaker", "upload", "file", "value"]
_NOT_ALNUM = re.compile(r"[^0-9a-z@.]+")
_DIGITS = re.compile(r"\D+")
MIN_PHONE_DIGITS = 7


@dataclass
class Found:
    conv_id: str
    upload: str
    file: str | None  # the raw file it came from, relative to raw/ (upload/...)
    is_audio: bool
    seconds: float
    text_key: str | None = None  # identity's exact key of its unredacted text (finds a re-delivery under a new id)


@dataclass
class ErasurePlan:
    """What `carry_out` will remove. `describe` names ids and counts only."""

    selector: Selector
    values: list[str] = field(default_factory=list, repr=False)  # what was asked (never printed)
    found: list[Found] = field(default_factory=list)
    whole_files: set[str] = field(default_factory=set)  # raw files every record of which is erased

    @property
    def conv_ids(self) -> list[str]:
        return [f.conv_id for f in self.found]

    @property
    def uploads(self) -> list[str]:
        return sorted({f.upload for f in self.found})

    @property
    def hours(self) -> float:
        return sum(f.seconds for f in self.found) / 3600

    def describe(self) -> list[str]:
        lines = [f"{len(self.found)} conversation(s) in {len(self.uploads)} upload(s), "
                 f"{sum(f.is_audio for f in self.found)} with recorded audio ({self.hours * 60:.1f} min)"]
        lines += [f"  {f.conv_id}  ({f.upload}{', audio' if f.is_audio else ''})" for f in self.found]
        if self.whole_files:
            lines.append(f"{len(self.whole_files)} raw file(s) hold nothing else (deleted with --purge-raw)")
        return lines


def normalise_value(value: str) -> tuple[str, str]:
    """(kind, normal form) of a value a data subject gives: digits of a phone number, a lower-case e-mail,
    else the lower-case letters and digits of an id."""
    v = unicodedata.normalize("NFKC", value).strip().casefold()
    if "@" in v:
        return "email", v.replace(" ", "")
    digits = _DIGITS.sub("", v)
    if len(digits) >= MIN_PHONE_DIGITS and len(digits) >= len(re.sub(r"[\s()+.-]", "", v)) - 1:
        return "phone", digits
    return "id", _NOT_ALNUM.sub("", v)


def _texts(record: dict[str, Any]) -> Iterator[str]:
    for t in record.get("turns") or []:
        if isinstance(t, dict):
            if t.get("text"):
                yield str(t["text"])
            for k in ("tool_call", "tool_result"):
                if t.get(k):
                    yield str(t[k])
    yield str((record.get("meta") or {}).get("speakers") or "")


def _mentions(record: dict[str, Any], kind: str, norm: str) -> bool:
    for text in _texts(record):
        t = unicodedata.normalize("NFKC", text).casefold()
        if kind == "phone":  # the national part: a country code may or may not be written
            if norm[-MIN_PHONE_DIGITS - 2:] in _DIGITS.sub("", t):
                return True
        elif kind == "email":
            if norm in t.replace(" ", ""):
                return True
        elif norm and norm in _NOT_ALNUM.sub("", t):
            return True
    return False


def raw_file(layout: DataLayout, upload: str, public_rel: str) -> str:
    """The raw file (relative to the upload) behind a public name, read from the private name maps
    (uploads.names); the name itself when no map knows it (a clean name is its own public name)."""
    import json

    for path in sorted((layout.work(upload) / "names").glob("*.json")):
        try:
            rows = json.loads(path.read_text(encoding="utf-8")).get("names", [])
        except (OSError, ValueError):
            continue
        for row in rows:
            if row.get("public_file") == public_rel and isinstance(row.get("file"), str):
                return row["file"]
    return public_rel


def text_key(record: dict[str, Any]) -> str | None:
    """identity's exact text key of a record (None without text)."""
    from ..identity.text import text_print

    turns = [(str(t.get("speaker") or ""), str(t.get("text") or "")) for t in record.get("turns") or []
             if isinstance(t, dict) and t.get("text")]
    return text_print(turns).exact if turns else None


def _records(layout: DataLayout) -> Iterator[tuple[str, dict[str, Any]]]:
    """(upload, record) of every conversation the pipeline knows privately (before redaction)."""
    for upload in sorted({*layout.uploads(), *(p.name for p in (layout.root / "work").glob("*")
                                                 if p.is_dir() and not p.name.startswith("."))}):
        path = layout.conversations(upload)
        if path.is_file():
            for jl in iter_jsonl(path):
                if isinstance(jl.value, dict):
                    yield upload, jl.value


def plan(layout: DataLayout | Path, selector: Selector, values: list[str]) -> ErasurePlan:
    """Every conversation `values` name under `selector` (see the module doc); nothing is changed."""
    layout = DataLayout.at(layout)
    out = ErasurePlan(selector, list(values))
    wanted = set(values)
    norms = [normalise_value(v) for v in values] if selector == "value" else []
    by_file: dict[str, list[bool]] = {}
    for upload, rec in _records(layout):
        origin = record_origin(rec)
        meta = rec.get("meta") or {}
        if selector == "conversation":
            hit = rec.get("id") in wanted
        elif selector == "speaker":
            hit = any(str(v) in wanted for v in (meta.get("speakers") or {}).values())
        elif selector == "upload":
            hit = upload in wanted
        elif selector == "file":  # the raw name an operator gives, or the public one the reports show
            public = (origin.file or "").split("/", 1)[-1]
            hit = bool(origin.file) and (origin.file in wanted or public in wanted
                                         or f"{upload}/{raw_file(layout, upload, public)}" in wanted)
        else:
            hit = any(_mentions(rec, kind, norm) for kind, norm in norms)
        if origin.file:
            by_file.setdefault(origin.file, []).append(hit)
        if hit:
            audio = rec.get("audio") or {}
            out.found.append(Found(str(rec["id"]), upload, origin.file,
                                   bool(audio) and not audio.get("synthesis"), float(audio.get("duration_s") or 0),
                                   text_key(rec)))
    out.whole_files = {f for f, hits in by_file.items() if all(hits)}
    return out
