"""`vak verify-erased`: every file under the data root checked against the ledger, a trace named by its path.

Ids: every token a file holds that could be a conversation id (JSON strings, file names, printable runs of
binary files such as Parquet, tar and SQLite) is digested and compared with the ledger's digests. Audio:
every WAV/FLAC outside raw/, every audio member of a tar (Lhotse Shar) and every audio blob of a Parquet file
(the HF Audio column's bytes) is decoded, fingerprinted per channel and compared with the ledger's
fingerprints (at any offset, so a clip cut from an erased call is found) and exact keys. Texts: every JSONL
record's normalised text key is compared with the ledger's text digests.
"""

from __future__ import annotations

import re
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.erasure import digest, ledger_path, load_erased
from ..identity.audio import audio_print, bit_error
from ..identity.text import text_print
from ..layout import DataLayout
from ..storage import iter_jsonl
from .run import MAX_BIT_ERROR, MIN_OVERLAP, Stored, stored_prints

_TOKEN = re.compile(rb"[A-Za-z0-9][A-Za-z0-9_.-]{2,199}")
AUDIO_SUFFIXES = {".wav", ".flac"}


@dataclass(frozen=True)
class Trace:
    path: str  # relative to the data root
    kind: str  # id | audio | text

    def render(self) -> str:
        return f"{self.path}: holds an erased conversation's {self.kind}"


def _files(root: Path, include_raw: bool) -> Iterator[Path]:
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).parts
        if not p.is_file() or p.is_symlink():
            continue
        if rel[:2] == ("work", "erasure") or (rel[0] == "raw" and not include_raw):
            continue
        yield p


def _tokens(data: bytes) -> Iterator[str]:
    for m in _TOKEN.finditer(data):
        tok = m.group().decode("ascii")
        yield tok
        stem = tok.rsplit(".", 1)[0]
        if stem != tok:
            yield stem


def verify(layout: DataLayout | Path, include_raw: bool = False) -> list[Trace]:
    """Traces of erased conversations under the data root (empty: nothing left). raw/ is skipped unless
    `include_raw` (an erasure without --purge-raw leaves raw files, which the stages refuse)."""
    layout = DataLayout.at(layout)
    erased = load_erased(layout.root)
    if not erased:
        return []
    stored = stored_prints(erased)
    traces: list[Trace] = []
    for path in _files(layout.root, include_raw):
        rel = path.relative_to(layout.root).as_posix()
        if path == ledger_path(layout.root):
            continue
        if path.suffix.lower() in AUDIO_SUFFIXES and _audio_is_erased(path, erased.pcm, stored):
            traces.append(Trace(rel, "audio"))
        elif path.suffix.lower() in (".tar", ".parquet") and (erased.pcm or stored):
            traces += [Trace(f"{rel}:{name}", "audio") for name, blob in _embedded_audio(path)
                       if _blob_is_erased(blob, erased.pcm, stored)]
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if erased.conversations and (any(digest(t) in erased.conversations for t in _tokens(data))
                                     or any(digest(t) in erased.conversations for t in _tokens(path.name.encode()))):
            traces.append(Trace(rel, "id"))
        if erased.texts and path.suffix == ".jsonl" and _text_is_erased(path, erased.texts):
            traces.append(Trace(rel, "text"))
    return traces


def _audio_is_erased(path: Path, pcm: set[str], stored: Stored) -> bool:
    try:
        ap = audio_print(path)
    except Exception:  # noqa: BLE001 - a file that does not decode holds no erased audio we can find
        return False
    if ap.exact in pcm:
        return True
    mine = [(c, w) for c, w in zip((*ap.channels, ap.mix), (*ap.weights, ap.mix_weights), strict=False)
            if c is not None]
    return any(bit_error(m, fp, MIN_OVERLAP, _any_offset(m, fp), wa=w, wb=fw) <= MAX_BIT_ERROR
               for chans in stored for fp, fw in chans for m, w in mine)


def _any_offset(a: np.ndarray, b: np.ndarray) -> int:
    """Shifts enough to slide the shorter fingerprint along the whole of the longer one (a clip of a call)."""
    from ..identity.audio import MAX_SHIFT_FRAMES

    return max(MAX_SHIFT_FRAMES, abs(len(a) - len(b)))


def _embedded_audio(path: Path) -> Iterator[tuple[str, bytes]]:
    """(member name, encoded audio) of every audio member of a tar and every audio blob of a Parquet file."""
    if path.suffix.lower() == ".tar":
        try:
            with tarfile.open(path) as tar:
                for m in tar:
                    if m.isfile() and Path(m.name).suffix.lower() in AUDIO_SUFFIXES:
                        f = tar.extractfile(m)
                        if f is not None:
                            yield m.name, f.read()
        except (OSError, tarfile.TarError):
            return
        return
    try:
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(path)
    except Exception:  # noqa: BLE001 - not a readable Parquet file: its bytes were token-scanned above
        return
    for g in range(pf.num_row_groups):
        table = pf.read_row_group(g)
        for name in table.column_names:
            for i, value in enumerate(table.column(name).to_pylist()):
                blob = value.get("bytes") if isinstance(value, dict) else value
                if isinstance(blob, bytes) and blob[:4] in (b"RIFF", b"fLaC"):
                    yield f"row group {g}, row {i}, column {name}", blob


def _blob_is_erased(blob: bytes, pcm: set[str], stored: Stored) -> bool:
    suffix = ".flac" if blob[:4] == b"fLaC" else ".wav"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"blob{suffix}"
        path.write_bytes(blob)
        return _audio_is_erased(path, pcm, stored)


def _text_is_erased(path: Path, texts: set[str]) -> bool:
    for jl in iter_jsonl(path):
        rec = jl.value
        if not isinstance(rec, dict) or not isinstance(rec.get("turns"), list):
            continue
        turns = [(str(t.get("speaker") or ""), str(t.get("text") or "")) for t in rec["turns"]
                 if isinstance(t, dict) and t.get("text")]
        if turns and digest(text_print(turns).exact) in texts:
            return True
    return False


def summary(layout: DataLayout | Path) -> dict:
    """The steward report's erasure section: requests, conversations and hours, per reference; no values."""
    from ..core.erasure import read_entries

    entries = read_entries(DataLayout.at(layout).root)
    return {"requests": len(entries),
            "conversations": sum(len(e.conversations) for e in entries),
            "hours": round(sum(e.hours for e in entries), 4),
            "by_reference": [{"reference": e.reference or "(none)", "at": e.at, "selector": e.selector,
                              "conversations": len(e.conversations), "hours": e.hours} for e in entries]}

