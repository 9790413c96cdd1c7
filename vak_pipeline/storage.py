"""Files are the interface between stages: atomic writes, streamed JSONL, content hashes.

Every output is written to a temp file in the same directory and renamed into place, so a crash or a
kill never leaves half a file visible under its final name, and any stage can be re-run alone.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Generic, Self, TypeVar

M = TypeVar("M")
DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024  # a single record larger than this is refused, not loaded
_BOM = b"\xef\xbb\xbf"


@contextlib.contextmanager
def atomic_open(path: Path, mode: str = "w", encoding: str | None = "utf-8", durable: bool = True
                ) -> Iterator[IO[Any]]:
    """Open a temp file beside `path`; on success fsync and rename it over `path`, else delete it.

    `durable=False` skips the fsync (the rename stays atomic): for a file whose content a ledger checks by hash
    before it is trusted, so a file a crash lost is made again instead of kept (an fsync per small file was
    half the redaction stage's time)."""
    path = Path(path)
    fd, tmp = _create_temp(path)
    binary = "b" in mode
    try:
        with os.fdopen(fd, mode, encoding=None if binary else encoding) as fh:
            yield fh
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


# O_EXCL and O_NOFOLLOW as mkstemp opens; mode 0666 so the kernel applies the umask (mkstemp's 0600 had to be
# widened by reading the umask from /proc and a chmod: two more system calls per file, a third of a small write)
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _create_temp(path: Path) -> tuple[int, str]:
    """(fd, name) of a new temp file beside `path`, with the mode a plain create gets under the umask (a release
    is read by other accounts); the folder is made only when it is missing (not one mkdir per file)."""
    for _ in range(tempfile.TMP_MAX):
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, _TEMP_FLAGS, 0o666), tmp
        except FileExistsError:
            continue
        except FileNotFoundError:  # the folder is missing: make it, then try a new name
            path.parent.mkdir(parents=True, exist_ok=True)
    raise FileExistsError(errno.EEXIST, "no unused temp file name", str(path.parent))


def current_umask() -> int:
    """The process umask, read without changing it (Linux /proc); else set and restored at once."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def give_umask_mode(target: int | Path, directory: bool = False) -> None:
    """Give a temp file (an fd or a path) or a temp folder (`directory`) the mode a plain create would have
    under the user's umask (0644 / 0755 under 022): `mkstemp` and `mkdtemp` make 0600 / 0700, and what they
    make is renamed into the release, which a steward, a web server or a training job under another
    account must be able to read."""
    mode = (0o777 if directory else 0o666) & ~current_umask()
    if isinstance(target, int):
        os.fchmod(target, mode)
    else:
        os.chmod(target, mode)


def has_umask_mode(path: Path) -> bool:
    """`path`'s permission bits are those a plain create gets under the user's umask (0644 under 022)."""
    return stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~current_umask()


def link_or_copy(src: Path, dst: Path) -> None:
    """`dst` becomes `src`'s content: a hard link where the filesystem allows (no bytes copied; neither file
    is ever edited in place, every write replaces), else an atomic copy.

    A hard link shares the inode, so it shares the mode: a link is made only when `src` already has the mode a
    release file gets (`has_umask_mode`). Otherwise (a raw recording of 0600 or 0444, say) `dst` is a copy with
    that mode, and `src`'s mode is never changed (raw files are never modified)."""
    import shutil

    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not has_umask_mode(src):
        with open(src, "rb") as fin, atomic_open(dst, "wb", encoding=None) as fout:
            shutil.copyfileobj(fin, fout, 1 << 20)
        return
    try:
        tmp = dst.with_name(f".{dst.name}.link.tmp")
        tmp.unlink(missing_ok=True)
        os.link(src, tmp)
        os.replace(tmp, dst)
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
        with open(src, "rb") as fin, atomic_open(dst, "wb", encoding=None) as fout:
            shutil.copyfileobj(fin, fout, 1 << 20)


@contextlib.contextmanager
def data_lock(data_dir: Path, echo: Callable[[str], None] = print) -> Iterator[None]:
    """One writer per data directory at a time (`vak run`, `vak erase --yes`, the erase job): a second one waits,
    so files are never interleaved and an erasure never races a run that is rewriting the same uploads."""
    import fcntl

    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / ".vak-run.lock", "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            echo(f"another vak run or erasure holds {data_dir}; waiting for it to finish ...")
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def atomic_write_text(path: Path, text: str, durable: bool = True) -> Path:
    with atomic_open(path, "w", durable=durable) as fh:
        fh.write(text)
    return Path(path)


def atomic_write_bytes(path: Path, data: bytes, durable: bool = True) -> Path:
    with atomic_open(path, "wb", encoding=None, durable=durable) as fh:
        fh.write(data)
    return Path(path)


def json_file_bytes(obj: Any) -> bytes:
    """The bytes `atomic_write_json` writes for `obj`: for a caller that also keeps their hash."""
    return (json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False) + "\n").encode("utf-8")


def atomic_write_json(path: Path, obj: Any, durable: bool = True) -> Path:
    return atomic_write_bytes(path, json_file_bytes(obj), durable)


_LINE_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # json.dumps would make one per call


def dumps_line(obj: Any) -> str:
    """One compact JSONL line (UTF-8 kept readable)."""
    return _LINE_JSON.encode(obj) + "\n"


class Closing:
    """`with obj:` closes it on the way out: for readers and stores that hold a file or a connection."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class JsonlWriter:
    """Streams records into a JSONL file that appears under its final name only when closed cleanly."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.count = 0
        self._cm = atomic_open(self.path, "w")
        self._fh: IO[str] | None = None

    def __enter__(self) -> JsonlWriter:
        self._fh = self._cm.__enter__()
        return self

    def write(self, obj: Any) -> None:
        assert self._fh is not None, "use JsonlWriter as a context manager"
        self._fh.write(obj if isinstance(obj, str) else dumps_line(obj))
        self.count += 1

    def __exit__(self, *exc: Any) -> bool | None:
        return self._cm.__exit__(*exc)

    def abort(self) -> None:
        """Close without publishing: the file under `path` stays as it was, the temp file is removed."""
        if self._fh is not None:
            self._fh = None
            self._cm.__exit__(_Aborted, _Aborted(), None)


class _Aborted(Exception):
    """Thrown into an atomic write to discard it (JsonlWriter.abort)."""


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class JsonLine:
    """One physical line of a JSONL file: either parsed `value` or a line-numbered `error`."""

    line: int
    value: Any = None
    error: str | None = None
    code: str | None = None
    raw: bytes | None = None  # the bytes of a well-formed line, for fast re-parsing by pydantic


Span = tuple[int, "int | None", int]  # (start byte, end byte or None, number of the first line): a shard of a file


def iter_jsonl(path: Path, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, parse: bool = True,
               span: Span | None = None) -> Iterator[JsonLine]:
    """Stream a JSONL file line by line in bounded memory, turning every defect into a JsonLine error.

    Covers: BOM, non-UTF-8 bytes, malformed JSON, non-object values, over-long lines (skipped without
    loading them), empty files. Blank lines are ignored. Never raises for content problems. With
    `span` (from line_spans) only that shard of the file is read, with the file's own line numbers.
    """
    path = Path(path)
    seen_any = False
    start, end, first = span if span is not None else (0, None, 1)
    with open(path, "rb") as fh:
        fh.seek(start)
        lineno = first - 1
        while True:
            if end is not None and fh.tell() >= end:
                break
            raw = fh.readline(max_line_bytes + 1)
            if not raw:
                break
            lineno += 1
            if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                # drain the rest of this line without keeping it
                while True:
                    more = fh.readline(1 << 20)
                    if not more or more.endswith(b"\n"):
                        break
                seen_any = True
                yield JsonLine(lineno, error=f"line is longer than {max_line_bytes} bytes; it was skipped",
                               code="line_too_long")
                continue
            if lineno == 1 and raw.startswith(_BOM):
                seen_any = True
                yield JsonLine(lineno, error="file starts with a UTF-8 byte-order mark (BOM)", code="bom")
                raw = raw[len(_BOM):]
            stripped = raw.strip()
            if not stripped:
                continue
            seen_any = True
            try:
                text = stripped.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield JsonLine(lineno, error=f"not valid UTF-8 (byte {exc.start})", code="not_utf8")
                continue
            yield parse_json_line(lineno, stripped, text) if parse else JsonLine(lineno, raw=stripped)
    if not seen_any and span is None:
        yield JsonLine(0, error="file is empty: no records", code="empty_file")


def parse_json_line(lineno: int, stripped: bytes, text: str | None = None) -> JsonLine:
    """One stripped, UTF-8 line (`text`: its decoded form) as iter_jsonl parses it: a JSON object, or the error."""
    try:
        value = json.loads(text if text is not None else stripped.decode("utf-8"))
    except json.JSONDecodeError as exc:
        return JsonLine(lineno, error=f"malformed JSON at column {exc.colno}: {exc.msg}", code="json_invalid")
    except RecursionError:
        return JsonLine(lineno, error="JSON nested too deeply", code="json_too_deep")
    if not isinstance(value, dict):
        return JsonLine(lineno, error=f"line holds a JSON {type(value).__name__}, not an object", code="not_an_object")
    return JsonLine(lineno, value=value, raw=stripped)


def line_spans(path: Path, n: int) -> list[Span]:
    """Cut a file into at most `n` shards of about equal size, each starting at a line start, with the
    number of its first line, so shards can be read in parallel and their outputs joined in order."""
    path = Path(path)
    size = path.stat().st_size
    cuts = [0]
    with open(path, "rb") as fh:
        for k in range(1, n):
            fh.seek(max(k * size // n, cuts[-1]))
            if fh.tell() > 0:
                fh.seek(fh.tell() - 1)
                fh.readline()  # to the start of the next line (a cut already at a line start stays)
            if fh.tell() < size and fh.tell() > cuts[-1]:
                cuts.append(fh.tell())
        spans: list[Span] = []
        line = 1
        for i, cut in enumerate(cuts):
            stop = cuts[i + 1] if i + 1 < len(cuts) else None
            spans.append((cut, stop, line))
            if stop is not None:
                fh.seek(cut)
                remaining = stop - cut
                while remaining:
                    chunk = fh.read(min(remaining, 1 << 20))
                    line += chunk.count(b"\n")
                    remaining -= len(chunk)
    return spans


def _no_links_below(base: str, rel: str) -> bool:
    """No part of `rel` under `base` is a link (parts that do not exist are not): one lstat per part,
    where a realpath would lstat every part of the whole absolute path."""
    path = base
    for part in rel.split("/"):
        if part in ("", "."):
            continue
        path = os.path.join(path, part)
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return False
        except FileNotFoundError:
            return True
        except OSError:
            return False
    return True


def resolve_inside(base: Path, rel: str, real_base: Path | None = None) -> Path | None:
    """`rel` resolved under `base`, or None if it is absolute, has a '..' segment or escapes via links.
    `real_base`: `base` already resolved (a caller checking many paths under one base resolves it once)."""
    if not rel or "\x00" in rel or os.path.isabs(rel) or rel.startswith(("/", "\\")) or ":" in rel.split("/")[0][1:2]:
        return None
    parts = rel.replace("\\", "/").split("/")
    if any(p == ".." for p in parts):
        return None
    target = (Path(base) / rel)
    if real_base is not None and _no_links_below(str(base), rel):
        return target  # under a resolved base, a path with no link among its parts cannot leave it
    try:
        real_base = real_base if real_base is not None else Path(base).resolve()
        real = target.resolve()
    except (OSError, ValueError):
        return None
    if real != real_base and real_base not in real.parents:
        return None
    return target


@dataclass(frozen=True)
class ModelLine(Generic[M]):
    """One line of a JSONL file of `M` records: the parsed model, or a line-numbered error (no values)."""

    line: int
    value: M | None = None
    code: str | None = None  # a JsonLine code, or "invalid" when the object does not match the model
    error: str | None = None
    field: str | None = None
    record_id: str | None = None


def iter_models(path: Path, model: type[M], max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[ModelLine[M]]:
    """Stream a JSONL file as `model` instances; an empty file yields nothing. Never raises for content."""
    from pydantic import ValidationError

    for jl in iter_jsonl(path, max_line_bytes=max_line_bytes):
        if jl.error:
            if jl.code != "empty_file":
                yield ModelLine(jl.line, code=jl.code, error=jl.error)
            continue
        try:
            yield ModelLine(jl.line, model.model_validate(jl.value))
        except ValidationError as err:
            e = err.errors(include_url=False, include_input=False)[0]
            fld = ".".join(map(str, e["loc"]))
            rid = jl.value.get("id") if isinstance(jl.value.get("id"), str) else None
            yield ModelLine(jl.line, code="invalid", field=fld or None, record_id=rid,
                            error=f"{err.error_count()} schema error(s); first at {fld or 'record'}: {e['msg']}")


def load_store(path: Path, model: type[M], what: str, fix: str) -> list[M]:
    """Every line of a small private JSONL store (the erasure ledger, the review corrections) as `model`, in
    file order; none without a file. A line that is not one is an error naming the file, the line, `what` it
    should be and the `fix` (never its content: a store holds private values)."""
    if not path.is_file():
        return []
    out: list[M] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(model.model_validate_json(line))  # type: ignore[attr-defined]
            except ValueError as exc:
                raise ValueError(f"{path}:{n}: not {what} ({type(exc).__name__}); {fix}") from None
    return out
