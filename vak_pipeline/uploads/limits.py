"""Bounds on what an upload may make the pipeline read: descriptor size, nesting and YAML aliases, a JSONL
line's length and a turn's text length.

Why: an upload is supplied by someone outside the pipeline (docs/security.md). A 1.5 KB upload.yaml of
nested aliases expands to 10^9 leaves, and a 20 MB chat message is imported and rendered by synth for hours;
either takes the machine down. Each limit is checked before the expensive step (bytes before parsing,
aliases while composing, a turn's length before mapping), so a hostile file fails fast in bounded memory
and the rest of the upload goes on. The limits are one settings model (`InputLimits`) that every stage reading
an upload takes (normalize, tagged_turns and the text import, redaction, synth); in Dagster it is one resource,
`limits` (defs.resources.LimitsResource, derived from it), so a limit is set once for the whole graph. Every
refusal is an Issue naming file, line, record id, turn and field.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

MIB = 1 << 20


class InputLimits(BaseModel):
    """How large and how deep one uploaded file or record may be; beyond a limit it is refused, not read."""

    model_config = ConfigDict(extra="forbid")
    max_descriptor_bytes: int = Field(
        default=1 * MIB, ge=1024, description="upload.yaml and recordings.csv: larger files are refused unread.")
    max_descriptor_depth: int = Field(
        default=32, ge=2, description="upload.yaml: deepest nesting of mappings and lists.")
    max_yaml_aliases: int = Field(
        default=20, ge=0, description="upload.yaml: most YAML aliases (*name) allowed (alias bombs expand "
        "exponentially).")
    max_line_bytes: int = Field(
        default=8 * MIB, ge=1024, description="Text sources and vakforge imports: a longer JSONL line is "
        "skipped without being loaded.")
    max_turns: int = Field(
        default=2000, ge=1, description="Text sources and vakforge imports: a record with more turns (messages) "
        "is refused.")
    max_turn_chars: int = Field(
        default=20_000, ge=1, description="Text sources and vakforge imports: a record with a longer turn "
        "text is refused.")


    def stricter(self, other: InputLimits) -> InputLimits:
        """Each limit the lower of the two (every field is a maximum): a lowered limit anywhere holds."""
        return InputLimits(**{k: min(getattr(self, k), getattr(other, k)) for k in type(self).model_fields})


DEFAULT_LIMITS = InputLimits()


class InputRefused(ValueError):
    """A file broke a limit or is a link: `code` and a message that names no value, only sizes and counts."""

    def __init__(self, code: str, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.code, self.line = code, line


def read_bounded(path: Path, max_bytes: int) -> bytes:
    """The bytes of the regular file `path`, opened without following a link, refused beyond `max_bytes`.

    O_NOFOLLOW makes the check and the open one step: a link swapped in after an lstat is still refused.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if Path(path).is_symlink():
            raise InputRefused("symlink", "it is a symbolic link") from exc
        raise
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise InputRefused("not_a_file", "it is not a regular file")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputRefused("too_large", f"it is larger than {max_bytes} bytes")
    return data


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader that counts aliases and nesting while composing, before any object is built."""

    max_aliases = DEFAULT_LIMITS.max_yaml_aliases
    max_depth = DEFAULT_LIMITS.max_descriptor_depth

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > self.max_aliases:
                mark = self.peek_event().start_mark
                raise InputRefused("yaml_aliases", f"it uses more than {self.max_aliases} YAML aliases",
                                   mark.line + 1)
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > self.max_depth:
                mark = self.peek_event().start_mark
                raise InputRefused("too_deep", f"it is nested deeper than {self.max_depth} levels", mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_yaml_bounded(text: str, limits: InputLimits = DEFAULT_LIMITS) -> Any:
    """yaml.safe_load with the alias and depth limits of `limits` (InputRefused when one is broken)."""
    loader_cls = type("_Loader", (_BoundedLoader,), {"max_aliases": limits.max_yaml_aliases,
                                                     "max_depth": limits.max_descriptor_depth})
    loader = loader_cls(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def turn_texts(obj: dict[str, Any], kind: str) -> list[tuple[int, str, int]]:
    """(turn index, field, characters) of every turn text of a parsed line, by format (before mapping it).

    kind: "messages" (messages[].content, a string or content parts), "aidb" or "vakforge" (turns[].text).
    """
    key, fld = ("messages", "content") if kind == "messages" else ("turns", "text")
    turns = obj.get(key)
    out: list[tuple[int, str, int]] = []
    if not isinstance(turns, list):
        return out
    for i, t in enumerate(turns):
        if not isinstance(t, dict):
            continue
        v = t.get(fld)
        if isinstance(v, str):
            out.append((i, f"{key}[{i}].{fld}", len(v)))
        elif isinstance(v, list):  # OpenAI content parts
            n = sum(len(p.get("text", "")) for p in v if isinstance(p, dict) and isinstance(p.get("text"), str))
            out.append((i, f"{key}[{i}].{fld}", n))
    return out


def turn_count(obj: dict[str, Any], kind: str) -> int:
    """How many turns (messages) a parsed line holds."""
    turns = obj.get("messages" if kind == "messages" else "turns")
    return len(turns) if isinstance(turns, list) else 0


def first_long_turn(obj: dict[str, Any], kind: str, max_chars: int) -> tuple[int, str, int] | None:
    """The first turn whose text is longer than `max_chars`, or None."""
    return next((t for t in turn_texts(obj, kind) if t[2] > max_chars), None)
