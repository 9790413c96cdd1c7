"""Index a canonical record by its content: real audio by its recording, everything else by its text."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..storage import resolve_inside, sha256_file
from .audio import audio_print
from .index import ContentIndex, Match
from .text import PRINT_VERSION, text_print

_encode = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(..., ensure_ascii=False), built once


def _turns(record: dict[str, Any]) -> list[tuple[str, str]]:
    return [(str(t.get("speaker") or ""), str(t.get("text") or "")) for t in record.get("turns") or []
            if isinstance(t, dict) and t.get("text")]


def index_record(index: ContentIndex, record: dict[str, Any], upload: str, base_dir: Path,
                 sha256: Callable[[Path], str] | None = None) -> Match | None:
    """Index one valid record: the match of its recording; None for a text (queued, matched a batch at a time:
    `ContentIndex.add_text_later`) or a record with nothing to identify it by (no readable audio, no text).
    `sha256`: how a file's digest is found (core.file_digests remembers them across publishes).

    Synthesized audio is rendered from the text, so a synthesized call is identified by its text too:
    two copies of one chat are the same chat whatever voices or seeds rendered them."""
    audio = record.get("audio") or {}
    if audio.get("path") and not audio.get("synthesis"):
        path = resolve_inside(Path(base_dir), str(audio["path"]))
        if path is not None and path.is_file():
            key = f"file:{(sha256 or sha256_file)(path)}"
            quality = record_quality(record) if index.settings.keep == "best" else 0
            return index.add_audio(record["id"], upload, key, lambda: audio_print(path), quality=quality)
    turns = _turns(record)
    if not turns:
        return None
    index_text(index, record["id"], upload, _text_key(turns), lambda: record)
    return None


# Recording conditions, worst to best (schema.record.Condition); a record without one ranks below all.
_CONDITIONS = ("noisy", "phone", "clean", "studio")


def record_quality(record: dict[str, Any]) -> int:
    """How good this delivery of a conversation is, as one integer (larger is better), for keep="best".

    A call by what the audio stage found: its recording condition (a telephone-band or noisy copy ranks
    below the clean original), then more channels (a stereo call over its mono mix), then the longer
    recording (an untrimmed copy); a text by more turns, then more characters (the fuller export). Only the
    members of one duplicate group are compared, and ties go to the first delivered."""
    audio = record.get("audio") or {}
    if audio.get("path") and not audio.get("synthesis"):
        condition = audio.get("condition")
        rank = _CONDITIONS.index(condition) + 1 if condition in _CONDITIONS else 0
        channels = min(max(int(audio.get("channels") or 0), 0), 255)
        centis = min(max(int(float(audio.get("duration_s") or 0) * 100), 0), 2**32 - 1)
        return (rank << 40) | (channels << 32) | centis
    turns = _turns(record)
    chars = min(sum(len(text) for _, text in turns), 2**32 - 1)
    return (min(len(turns), 2**20) << 32) | chars


def text_identity(record: dict[str, Any]) -> tuple[str, str] | None:
    """(id, content key) of a record that `index_record` always identifies by its text (no recording of its
    own to read), else None: a pure function of the line, so a cached finding can carry it (rules.cache)."""
    audio = record.get("audio") or {}
    if audio.get("path") and not audio.get("synthesis"):
        return None
    turns = _turns(record)
    return (record["id"], _text_key(turns)) if turns else None


def index_text(index: ContentIndex, conv_id: str, upload: str, key: str,
               record_of: Callable[[], dict[str, Any]]) -> None:
    """Queue a text under its content key (`text_identity`); `record_of()` gives the record, called only
    when its text must be printed (a content the index has not seen) or its quality weighed (keep="best")."""
    quality = record_quality(record_of()) if index.settings.keep == "best" else 0
    index.add_text_later(conv_id, upload, key, lambda: text_print(_turns(record_of())), quality=quality)


def _text_key(turns: list[tuple[str, str]]) -> str:
    return f"turns{PRINT_VERSION}:" + hashlib.sha256(_encode(turns).encode()).hexdigest()
