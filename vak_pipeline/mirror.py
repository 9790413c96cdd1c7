"""A data directory on object storage (any fsspec URL: s3://, gs://, az://, file://), worked on locally.

Every stage reads and writes plain local files (soundfile decodes from paths; outputs are renamed
into place), so a URL root is served by a local mirror: `pull` brings down what changed remotely,
`push` uploads what changed locally. Both are incremental (a state file remembers each file's remote
version and local size/mtime), so a step costs a listing plus the bytes it really moved.

Rules: raw/ is only ever pulled (uploads are never written back); hidden working files (temp files,
export staging dirs, the split index, the run lock) stay local; a file deleted locally after it was
synced is deleted remotely on the next push, and one deleted remotely is deleted locally on the next
pull. Pull and push take a lock on the mirror, so steps of one machine can share it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .storage import atomic_open

STATE_DIR = ".vak-mirror"
PULL_ONLY = ("raw/",)
SHARED_DOTFILES = (".publish_done.json",)  # markers that must travel with the data


def is_url(root: str | os.PathLike[str]) -> bool:
    """True for an fsspec URL (s3://bucket/x, file:///srv/x); plain paths and mounted volumes are not URLs."""
    return "://" in str(root)


def default_cache(url: str) -> Path:
    """Where the mirror of `url` lives: $VAK_CACHE/<hash>, default ~/.cache/vak_pipeline/<hash>."""
    base = Path(os.environ.get("VAK_CACHE") or Path.home() / ".cache" / "vak_pipeline")
    return base / hashlib.sha256(url.rstrip("/").encode()).hexdigest()[:16]


def local_root(root: str | os.PathLike[str]) -> Path:
    """The local directory the stages work in for a data root (the mirror for a URL, the path itself else)."""
    return default_cache(str(root)) if is_url(root) else Path(root)


@dataclass
class SyncStats:
    moved: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0
    left: int = 0  # not needed by this step
    bytes: int = 0

    def __str__(self) -> str:
        return (f"{len(self.moved)} file(s) ({self.bytes / 2**20:.1f} MiB) copied, {len(self.deleted)} deleted, "
                f"{self.unchanged} unchanged" + (f", {self.left} not needed here" if self.left else ""))


def step_scope(partition: str | None) -> Callable[[str], bool]:
    """What one step needs pulled. An upload's ingest: its own raw/ and work/ folders plus the published
    files; publish: everything but raw/ and the private per-conversation folders under work/<upload>/
    (normalized audio, word timings) except work/<upload>/release/, the files a release places. Folders are
    always mirrored, so upload listings stay right."""
    if partition:
        mine = (f"raw/{partition}/", f"work/{partition}/")
        return lambda rel: rel.startswith(mine) or not rel.startswith(("raw/", "work/"))
    return lambda rel: not rel.startswith("raw/") and not (rel.startswith("work/") and rel.count("/") > 2
                                                           and rel.split("/")[2] != "release")


def _syncable(rel: str) -> bool:
    """Hidden working files stay local: temp files, staging dirs, the split index, locks, the mirror state."""
    parts = rel.split("/")
    return not any(p.startswith(".") and p not in SHARED_DOTFILES for p in parts)


def _version(info: dict[str, Any]) -> str:
    """A remote file's version: its ETag / generation / mtime as the backend reports it, plus its size."""
    for key in ("ETag", "etag", "generation", "md5Hash", "mtime", "LastModified", "last_modified", "created"):
        if info.get(key) is not None:
            return f"{info.get('size')}:{info[key]}"
    return str(info.get("size"))


def _remote_mtime(info: dict[str, Any]) -> float | None:
    """The remote modification time in epoch seconds, whatever form the backend gives it in."""
    from datetime import datetime

    for key in ("mtime", "LastModified", "last_modified", "updated", "created"):
        value = info.get(key)
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, datetime):
            return value.timestamp()
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    return None


class Mirror:
    """A local copy of a data directory at an fsspec URL."""

    def __init__(self, url: str, cache: Path | None = None, **storage_options: Any) -> None:
        import fsspec

        self.url = url.rstrip("/")
        self.cache = Path(cache) if cache is not None else default_cache(self.url)
        self.fs, self.base = fsspec.core.url_to_fs(self.url, **storage_options)
        self.base = self.base.rstrip("/")
        self._state_path = self.cache / STATE_DIR / "state.json"

    # --- state: rel -> {"remote": version, "local": [size, mtime_ns]}
    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            return json.loads(self._state_path.read_text())
        except (OSError, ValueError):
            return {}

    def _save(self, state: dict[str, dict[str, Any]]) -> None:
        self._state_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._state_path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(state, separators=(",", ":")))
        os.replace(tmp, self._state_path)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        import fcntl

        (self.cache / STATE_DIR).mkdir(parents=True, exist_ok=True)
        with open(self.cache / STATE_DIR / "lock", "a+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _remote(self) -> dict[str, dict[str, Any]]:
        self.fs.invalidate_cache(self.base)  # object-store listings are cached per process
        if not self.fs.exists(self.base):
            return {}
        found = self.fs.find(self.base, detail=True)
        prefix = self.base + "/"
        out = {}
        for path, info in found.items():
            path = path.rstrip("/")
            if info.get("type") == "directory" or not path.startswith(prefix):
                continue
            out[path[len(prefix):]] = info
        return out

    def upload_fingerprints(self) -> dict[str, str]:
        """upload -> hash of its remote files' names, sizes and versions: change detection from one listing,
        without downloading anything (what the upload sensor needs)."""
        per_upload: dict[str, list[str]] = {}
        for rel, info in self._remote().items():
            parts = rel.split("/")
            if len(parts) >= 3 and parts[0] == "raw" and not parts[1].startswith("."):
                per_upload.setdefault(parts[1], []).append(f"{'/'.join(parts[2:])}:{_version(info)}")
        return {u: hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()[:32]
                for u, lines in sorted(per_upload.items())}

    @staticmethod
    def _stat(path: Path) -> list[int]:
        st = path.stat()
        return [st.st_size, st.st_mtime_ns]

    def pull(self, wanted: Callable[[str], bool] | None = None) -> SyncStats:
        """Bring the mirror up to date with the remote directory (only the files `wanted` accepts; the
        folders of the others are made, empty, so listings of uploads agree with the remote)."""
        stats = SyncStats()
        with self._locked():
            state = self._load()
            remote = self._remote()
            for rel, info in sorted(remote.items()):
                if not _syncable(rel):
                    continue
                local = self.cache / rel
                if wanted is not None and not wanted(rel):
                    local.parent.mkdir(parents=True, exist_ok=True)
                    stats.left += 1
                    continue
                version = _version(info)
                known = state.get(rel)
                if known and known.get("remote") == version and local.is_file() \
                        and self._stat(local) == known.get("local"):
                    stats.unchanged += 1
                    continue
                with atomic_open(local, "wb", encoding=None) as out, self.fs.open(f"{self.base}/{rel}", "rb") as src:
                    shutil.copyfileobj(src, out, 1 << 20)
                mtime = _remote_mtime(info)
                if mtime is not None:  # so fingerprints (name, size, mtime) agree on every machine
                    os.utime(local, (mtime, mtime))
                state[rel] = {"remote": version, "local": self._stat(local)}
                stats.moved.append(rel)
                stats.bytes += int(info.get("size") or 0)
            for rel in [r for r in state if r not in remote]:
                (self.cache / rel).unlink(missing_ok=True)
                del state[rel]
                stats.deleted.append(rel)
            self._save(state)
        return stats

    def push(self) -> SyncStats:
        """Upload every file created or changed in the mirror since it was last synced (never raw/)."""
        stats = SyncStats()
        with self._locked():
            state = self._load()
            seen: set[str] = set()
            made: set[str] = set()
            for path in sorted(self.cache.rglob("*")):
                rel = path.relative_to(self.cache).as_posix()
                if not path.is_file() or path.is_symlink() or not _syncable(rel) or rel.startswith(PULL_ONLY):
                    continue
                seen.add(rel)
                stat = self._stat(path)
                known = state.get(rel)
                if known and known.get("local") == stat:
                    stats.unchanged += 1
                    continue
                target = f"{self.base}/{rel}"
                parent = target.rsplit("/", 1)[0]
                if parent not in made:  # one call per folder (object stores have none to make)
                    self.fs.makedirs(parent, exist_ok=True)
                    made.add(parent)
                self.fs.put_file(str(path), target)
                state[rel] = {"remote": _version(self.fs.info(target)), "local": stat}
                stats.moved.append(rel)
                stats.bytes += stat[0]
            for rel in [r for r in state if r not in seen and not r.startswith(PULL_ONLY)]:
                if not (self.cache / rel).exists():
                    with contextlib.suppress(FileNotFoundError):
                        self.fs.rm_file(f"{self.base}/{rel}")
                    del state[rel]
                    stats.deleted.append(rel)
            self._save(state)
        return stats
