"""Per-record rule findings kept across publishes (issue 34): a delivery re-checks only what changed.

A record's findings (its issues, whether it passed, its canonical line) are a function of: the exact bytes of
its manifest line, where that line is (file and line number: issues name them), the bytes of every file it
names as the release tree holds them when its rules run (audio, redaction log, alignments), and, once per
publish, RULES_VERSION (explicit: bumped when any rule's finding would change), the record schema's version,
identity's PRINT_VERSION (a finding carries its text's content key),
the locale packs, the name lexicon,
the recognizers' version, the validation context's switches and the extra rules' own fingerprint (the
steward's thresholds) with each record's extra inputs (`ExtraRules.record_key`). All of it is hashed into
the key, so a hit is what the rules would find again. Rules that look across records (duplicate ids,
identity, splits) are not cached: publish runs them over every record, from the cached canonical line.

Stored in SQLite under work/.publish/rules.sqlite; entries the latest publish did not use are removed
when it closes, so the store holds one publish's worth of findings.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..core.file_digests import FileDigests
from ..core.keyed_store import KeyedStore, line_key
from ..identity.records import text_identity
from ..release import record_file_rels
from ..schema.record import SCHEMA_VERSION
from ..storage import dumps_line
from .context import ValidationContext

# bump when a rule's finding for the same record, files and settings would change, or how one is stored
# 2: a finding's line and issues stored as the lines publish writes (Finding.dumps); 3: with its text identity
RULES_VERSION = "3"


@runtime_checkable
class CacheableRules(Protocol):
    """Extra rules (publish's `extra_rules`) whose findings may be cached: what shapes them, per publish and
    per record. Extra rules without these two are run on every record, every time."""

    def __call__(self, record: dict[str, Any]) -> list[Any]: ...

    def fingerprint(self) -> str:
        """Every setting and threshold that can change a finding, and the rules' version."""
        ...

    def record_key(self, record: dict[str, Any]) -> str | None:
        """What one record's findings read beyond its line and its own files (None: do not cache it)."""
        ...


@dataclass
class Finding:
    """What the per-record rules said about one line: its id, whether it is kept, its canonical line and its
    issues, each as the JSONL line publish writes (`storage.dumps_line`: a cached finding is written without
    being encoded again), with each issue's (code, severity, family) for the tallies, and the (id, content key)
    identity indexes a kept text by (`identity.records.text_identity`: a reused finding's line is then not
    parsed again). Build with `of`."""

    record_id: str | None
    ok: bool
    line_text: str | None
    issue_lines: list[str]
    tallies: list[list[Any]]
    text_identity: list[str] | None = None

    @classmethod
    def of(cls, record_id: str | None, ok: bool, line: dict[str, Any] | None,
           issues: list[dict[str, Any]]) -> Finding:
        """From the canonical line and the issues as dicts (reports/validation.jsonl's)."""
        ident = text_identity(line) if line is not None else None
        return cls(record_id, ok, dumps_line(line) if line is not None else None, [dumps_line(i) for i in issues],
                   [[i["code"], i.get("severity"), i.get("family")] for i in issues],
                   list(ident) if ident is not None else None)

    @property
    def line(self) -> dict[str, Any] | None:
        return json.loads(self.line_text) if self.line_text is not None else None

    @property
    def issues(self) -> list[dict[str, Any]]:
        return [json.loads(t) for t in self.issue_lines]

    def dumps(self) -> str:
        """A head line (JSON) then the lines as written: a JSONL line holds no raw newline, so no escaping."""
        head = json.dumps([self.record_id, self.ok, self.line_text is not None, self.tallies, self.text_identity],
                          ensure_ascii=False)
        return "\n".join([head, *([self.line_text[:-1]] if self.line_text is not None else []),
                          *(t[:-1] for t in self.issue_lines)])

    @classmethod
    def loads(cls, text: str) -> Finding:
        head, *lines = text.split("\n")
        rid, ok, has_line, tallies, ident = json.loads(head)
        lines = [f"{t}\n" for t in lines]
        return cls(rid, ok, lines[0] if has_line else None, lines[1:] if has_line else lines, tallies, ident)


def settings_fingerprint(ctx: ValidationContext, extra: str | None) -> str:
    """The once-per-publish part of every key: explicit versions, data fingerprints (packs, names), switches."""
    from ..identity.text import PRINT_VERSION
    from ..locales.registry import packs_fingerprint
    from ..pii.name_table import fingerprint as names_fingerprint
    from ..redaction.settings import RECOGNIZERS_VERSION

    shaping = [RULES_VERSION, PRINT_VERSION, SCHEMA_VERSION, packs_fingerprint(), names_fingerprint(),
               RECOGNIZERS_VERSION, ctx.check_audio, ctx.check_pii, ctx.allow_unconsented, list(ctx.names),
               str(ctx.base_dir), extra]
    return hashlib.sha256(json.dumps(shaping).encode()).hexdigest()


class RuleCache:
    """Open with `RuleCache.open(path, fingerprint, digests)`; `key`, `get`, `put`; `close` keeps what was used.
    The findings live in a `core.keyed_store` table (the one store of per-record results)."""

    def __init__(self, store: KeyedStore, fingerprint: str, digests: FileDigests | None) -> None:
        self.store, self.fingerprint, self.digests = store, fingerprint, digests
        self.checked = 0  # records whose rules ran (a miss, or a record that cannot be cached)
        self.reused = 0  # records whose findings came from the store
        self._dirs: dict[str, bool] = {}

    @classmethod
    def open(cls, path: Path, fingerprint: str, digests: FileDigests | None) -> RuleCache:
        """The store at `path` (created); an unwritable place gives a cache that remembers nothing."""
        return cls(KeyedStore.open(path, "finding"), fingerprint, digests)

    def close(self) -> None:
        self.store.close()

    def key(self, raw: bytes | None, file: str | None, line: int, record: dict[str, Any], release_root: Path,
            extra: Callable[[dict[str, Any]], str | None] | None) -> bytes | None:
        """The record's key, or None when it must be checked afresh (no store, a link among its files)."""
        if self.store.conn is None or raw is None or self.digests is None:
            return None
        files = []
        for rel in record_file_rels(record):
            state = self._file_state(release_root, rel)
            if state is None:
                return None
            files.append(state)
        more = extra(record) if extra is not None else ""
        if more is None:
            return None
        return line_key(self.fingerprint, raw, file, line, files, more)

    def get(self, key: bytes | None) -> Finding | None:
        text = self.store.get(key)
        if text is None:
            return None
        self.reused += 1
        return Finding.loads(text)

    def put(self, key: bytes | None, finding: Finding) -> None:
        self.checked += 1
        self.store.put(key, finding.dumps())

    def _file_state(self, root: Path, rel: str) -> str | None:
        """A file's part of the key: its sha256, '-' when absent, 'not-a-file'; None for a link (or a path
        through one, or an unusual path): the rules resolve links, so such a record is always checked."""
        parts = rel.replace("\\", "/").split("/")
        if len(parts) != 2 or not all(parts) or ".." in parts or "\x00" in rel or rel != "/".join(parts):
            return None
        if not self._real_dir(root, parts[0]):
            return None
        path = os.path.join(root, rel)  # two plain parts (checked above): what `root / rel` names
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return "-"
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode):
            return None
        if not stat.S_ISREG(st.st_mode):
            return "not-a-file"
        try:
            return self.digests.sha256(Path(path)) if self.digests is not None else None
        except OSError:
            return None

    def _real_dir(self, root: Path, name: str) -> bool:
        """`root/name` is a directory and not a link (or absent), checked once per publish: the file then
        resolves inside the release tree exactly when the rules would find it there."""
        hit = self._dirs.get(name)
        if hit is None:
            try:
                st = os.lstat(root / name)
                hit = not stat.S_ISLNK(st.st_mode) and stat.S_ISDIR(st.st_mode)
            except FileNotFoundError:
                hit = True
            except OSError:
                hit = False
            self._dirs[name] = hit
        return hit
