"""The split assignment on disk: a SQLite index of splits.json, so a million conversations are assigned,
looked up and checked without holding every id in memory.

splits.json stays the file people read, edit by hand and ship. The index beside it
(`.splits.json.sqlite`) is a cache of that file keyed by its sha256: when the JSON changes (a hand edit,
another writer) the index is rebuilt from it, streamed with ijson. The splits stage writes both.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..storage import Closing, atomic_open, sha256_file
from .model import JSON_KEY_ORDER, MAPS, SplitsFile, SplitsHeader

BATCH = 10_000
_HEADER_KEY = "header"
_SOURCE_KEY = "json_sha256"


class SplitsFileError(ValueError):
    """splits.json cannot be read (bad JSON, wrong shape); the message names the file and the fix."""


def index_path(json_path: Path) -> Path:
    return json_path.with_name(f".{json_path.name}.sqlite")


def connect(path: Path | str, readonly: bool = False) -> sqlite3.Connection:
    """A connection tuned for bulk work: a bounded page cache, temp tables and sorts spilled to disk."""
    if readonly:
        conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True, check_same_thread=False)
    else:
        conn = sqlite3.connect(str(path), check_same_thread=False)
        conn.execute("PRAGMA journal_mode=OFF")  # the file is built aside and renamed in: no journal needed
        conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA temp_store=FILE")
    conn.execute("PRAGMA cache_size=-16384")  # 16 MiB per database, whatever the size of the data
    return conn


class SplitStore(Closing):
    """One splits.json as SQLite tables: the header as JSON, each map as a (k, v) table keyed by k."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn
        self._header: SplitsHeader | None = None

    # --- opening
    @classmethod
    def create(cls, path: Path) -> SplitStore:
        """A new, empty, writable store at `path` (replacing any file there)."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        conn = connect(path)
        conn.executescript("".join(
            f"CREATE TABLE {name} (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID;\n" for name in MAPS)
            + "CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);\n")
        return cls(path, conn)

    @classmethod
    def create_temp(cls, directory: Path | None = None, name: str = "splits") -> SplitStore:
        """A new store under a fresh hidden name in `directory` (default: the system temp dir), to be renamed
        into place (publish) or deleted."""
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".sqlite.tmp", dir=directory)
        os.close(fd)
        return cls.create(Path(tmp))

    @classmethod
    def open(cls, path: Path) -> SplitStore:
        return cls(path, connect(path, readonly=True))

    @classmethod
    def temporary(cls, directory: Path | None = None) -> SplitStore:
        """A scratch store deleted on close (for in-memory splits that need the same queries)."""
        store = cls.create_temp(directory)
        store.delete_on_close = True
        return store

    @classmethod
    def from_file(cls, splits: SplitsFile, directory: Path | None = None) -> SplitStore:
        store = cls.temporary(directory)
        for name in MAPS:
            store.insert(name, getattr(splits, name).items())
        store.set_header(splits.header())
        store.conn.commit()
        return store

    delete_on_close = False

    def close(self) -> None:
        self.conn.close()
        if self.delete_on_close:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)


    # --- header
    @property
    def header(self) -> SplitsHeader:
        if self._header is None:
            text = self.meta(_HEADER_KEY)
            if text is None:
                raise SplitsFileError(f"{self.path}: split index has no header; re-run `vak split`")
            self._header = SplitsHeader.model_validate_json(text)
        return self._header

    def set_header(self, header: SplitsHeader) -> None:
        self._header = header
        self.set_meta(_HEADER_KEY, header.model_dump_json())

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        return row[0] if row else None

    @property
    def source_sha256(self) -> str | None:
        """The sha256 of the splits.json this index was built from: what every lookup answers from."""
        return self.meta(_SOURCE_KEY)

    # --- maps
    def insert(self, name: str, pairs: Iterable[tuple[str, str]]) -> None:
        self.conn.executemany(f"INSERT OR REPLACE INTO {_table(name)} (k, v) VALUES (?, ?)", pairs)

    def get(self, name: str, key: str) -> str | None:
        row = self.conn.execute(f"SELECT v FROM {_table(name)} WHERE k = ?", (key,)).fetchone()
        return row[0] if row else None

    def get_many(self, name: str, keys: Iterable[str]) -> dict[str, str]:
        """The values of `keys` found in a map, in a few queries (a pass over many records at once)."""
        keys = list(dict.fromkeys(keys))
        out: dict[str, str] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            out.update(self.conn.execute(
                f"SELECT k, v FROM {_table(name)} WHERE k IN ({','.join('?' * len(chunk))})", chunk))
        return out

    def split_of(self, conv_id: str) -> str | None:
        return self.get("assignment", conv_id)

    def held_out_reason(self, conv_id: str) -> str | None:
        return self.get("held_out", conv_id)

    def items(self, name: str) -> Iterator[tuple[str, str]]:
        """A map's pairs in key order (the order splits.json lists them), streamed."""
        yield from self.conn.execute(f"SELECT k, v FROM {_table(name)} ORDER BY k")

    def count(self, name: str) -> int:
        return self.conn.execute(f"SELECT COUNT(*) FROM {_table(name)}").fetchone()[0]

    # --- conversions
    def to_file(self) -> SplitsFile:
        """Everything in memory: for small datasets and tests only."""
        return SplitsFile.model_validate({**self.header.model_dump(mode="json"),
                                          **{name: dict(self.items(name)) for name in MAPS}})

    def write_json(self, path: Path) -> str:
        """Write splits.json (keys in JSON_KEY_ORDER, like SplitsFile.dump), streamed; returns its sha256,
        computed on the way out rather than by reading the file back."""
        header = self.header.model_dump(mode="json")
        digest = hashlib.sha256()
        with atomic_open(Path(path), "wb", encoding=None) as fh:
            def write(text: str) -> None:
                data = text.encode("utf-8")
                digest.update(data)
                fh.write(data)

            write("{")
            for i, key in enumerate([*JSON_KEY_ORDER, *(k for k in header if k not in JSON_KEY_ORDER)]):
                write(("," if i else "") + f"\n {json.dumps(key)}: ")
                if key in MAPS:
                    _write_map(write, self.items(key))
                else:
                    write(json.dumps(header.get(key), ensure_ascii=False))
            write("\n}\n")
        return digest.hexdigest()


def _table(name: str) -> str:
    if name not in MAPS:
        raise KeyError(name)
    return name


def _write_map(write: Callable[[str], None], pairs: Iterable[tuple[str, str]]) -> None:
    """A map as `{`, then `\n  "key": "value"` per pair joined by commas, then `\n }` (`{}` when empty): a batch
    of pairs at a time, each by one json.dumps of a dict (its C encoder, one call, not two per pair)."""
    first = True
    it = iter(pairs)
    while batch := dict(itertools.islice(it, BATCH)):
        text = json.dumps(batch, ensure_ascii=False, separators=(",\n  ", ": "))
        write(("{\n  " if first else ",\n  ") + text[1:-1])
        first = False
    write("{}" if first else "\n }")


def import_json(json_path: Path, store: SplitStore) -> None:
    """Stream splits.json into `store`: maps row by row, everything else into the header."""
    import ijson

    header: dict[str, Any] = {}
    seen_maps: set[str] = set()
    try:
        with open(json_path, "rb") as fh:
            events = ijson.parse(fh, use_float=True)
            prefix, event, value = next(events)
            if event != "start_map":
                raise SplitsFileError(f"{json_path}: splits.json must hold one JSON object")
            for prefix, event, value in events:
                if event == "end_map" and prefix == "":
                    break
                if event != "map_key":  # pragma: no cover - ijson only yields keys at the top level here
                    continue
                key = value
                if key in MAPS:
                    seen_maps.add(key)
                    _import_map(json_path, key, events, store)
                else:
                    header[key] = _build_value(events)
    except ijson.JSONError as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise SplitsFileError(f"{json_path}: not valid JSON ({reason}). Fix: restore it from version control or "
                              "re-run `vak split`") from exc
    if "assignment" not in seen_maps:
        raise SplitsFileError(f"{json_path}: no 'assignment' object. Fix: re-run `vak split`")
    try:
        store.set_header(SplitsHeader.model_validate(header))
    except ValidationError as exc:
        raise SplitsFileError(f"{json_path}: {exc.error_count()} field(s) do not match the splits format "
                              f"({', '.join(str(e['loc'][0]) for e in exc.errors()[:5])}). Fix: re-run `vak split`"
                              ) from exc


def _import_map(json_path: Path, name: str, events: Iterator[tuple[str, str, Any]], store: SplitStore) -> None:
    _, event, _ = next(events)
    if event != "start_map":
        raise SplitsFileError(f"{json_path}: '{name}' must be an object of id -> value. Fix: re-run `vak split`")
    batch: list[tuple[str, str]] = []
    key = None
    for _prefix, event, value in events:
        if event == "end_map":
            break
        if event == "map_key":
            key = value
        elif event == "string":
            batch.append((key, value))
            if len(batch) >= BATCH:
                store.insert(name, batch)
                batch.clear()
        else:
            raise SplitsFileError(f"{json_path}: '{name}' entry {key!r} is not a string. Fix: give a split name "
                                  "(or a reason, under held_out) as a string")
    store.insert(name, batch)


def _build_value(events: Iterator[tuple[str, str, Any]]) -> Any:
    """One whole JSON value from the event stream (header fields are small)."""
    from ijson.common import ObjectBuilder

    builder = ObjectBuilder()
    depth = 0
    for _prefix, event, value in events:
        builder.event(event, value)
        if event in ("start_map", "start_array"):
            depth += 1
        elif event in ("end_map", "end_array"):
            depth -= 1
        if depth == 0:
            return builder.value
    raise SplitsFileError("splits.json ends early")  # pragma: no cover - ijson raises first


def open_splits(json_path: str | Path) -> SplitStore | None:
    """The index of the splits.json at `json_path` (rebuilt if the JSON changed), or None when it does not exist.

    Raises SplitsFileError when the JSON cannot be read.
    """
    json_path = Path(json_path)
    if not json_path.exists():
        return None
    sha = sha256_file(json_path)
    idx = index_path(json_path)
    if idx.exists():
        try:
            store = SplitStore.open(idx)
        except sqlite3.Error:
            store = None
        if store is not None:
            try:
                if store.meta(_SOURCE_KEY) == sha:
                    return store
            except sqlite3.Error:  # a damaged or foreign file: rebuilt below
                pass
            store.close()
    directory = json_path.parent if os.access(json_path.parent, os.W_OK) else None
    store = SplitStore.create_temp(directory, json_path.name)
    tmp = store.path
    try:
        import_json(json_path, store)
        store.set_meta(_SOURCE_KEY, sha)
        store.conn.commit()
        store.close()
    except BaseException:
        store.close()
        tmp.unlink(missing_ok=True)
        raise
    if directory is None:  # read-only folder: a private index, deleted on close
        store = SplitStore.open(tmp)
        store.delete_on_close = True
        return store
    os.replace(tmp, idx)
    return SplitStore.open(idx)


def publish(store: SplitStore, json_path: Path) -> Path:
    """Write splits.json from a freshly built store and make the store its index (both atomically)."""
    sha = store.write_json(json_path)
    store.set_meta(_SOURCE_KEY, sha)
    store.conn.commit()
    store.close()
    os.replace(store.path, index_path(json_path))
    return json_path


@contextlib.contextmanager
def as_store(splits: SplitStore | SplitsFile | dict[str, Any]) -> Iterator[SplitStore]:
    """The same queries for every form of splits: a store as it is, a file or a plain dict in a scratch store."""
    if isinstance(splits, SplitStore):
        yield splits
        return
    sp = splits if isinstance(splits, SplitsFile) else SplitsFile.model_validate(dict(splits))
    with SplitStore.from_file(sp) as store:
        yield store


def write_splits(path: str | Path, splits: SplitsFile) -> Path:
    """Write an in-memory splits file with the one splits.json writer (SplitStore.write_json)."""
    with SplitStore.from_file(splits) as store:
        store.write_json(Path(path))
    return Path(path)
