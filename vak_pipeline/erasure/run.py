"""Carry an erasure plan out: ledger entry first, then every private and published file of the conversations."""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..core.corrections import drop_conversations
from ..core.erasure import ErasedSet, ErasureEntry, append_entry, digest, load_erased, now
from ..identity import ContentIndex
from ..identity.audio import audio_print, bit_error
from ..layout import DataLayout
from ..schema import VakRecord
from ..storage import atomic_open, atomic_write_json
from .plan import ErasurePlan, raw_file, text_key

MAX_BIT_ERROR, MIN_OVERLAP = 0.15, 0.8  # the identity defaults: a re-encoded copy of erased audio is refused


def _prints(layout: DataLayout, conv_ids: list[str]) -> tuple[list[str], list[str], list[dict], list[dict]]:
    """(PCM exact keys, text key digests, fingerprints, their energy weights) the content index holds for the
    conversations."""
    pcm: list[str] = []
    texts: list[str] = []
    prints: list[dict] = []
    weights: list[dict] = []
    if not layout.content_index.is_file():
        return pcm, texts, prints, weights
    conn = sqlite3.connect(str(layout.content_index))
    try:
        for conv in conv_ids:
            row = conn.execute("SELECT seq FROM item WHERE conv_id = ?", (conv,)).fetchone()
            if row is None:
                continue
            for (k,) in conn.execute("SELECT k FROM exact WHERE seq = ?", row):
                kind, _, value = k.partition(":")
                (pcm if kind == "audio" else texts).append(value if kind == "audio" else digest(value))
            chans = {ch: base64.b64encode(fp).decode() for ch, fp in
                     conn.execute("SELECT ch, fp FROM chan WHERE seq = ?", row)}
            if chans:
                prints.append({str(ch): fp for ch, fp in sorted(chans.items())})
                weights.append({str(ch): base64.b64encode(w).decode() for ch, w in _weights(conn, row[0])})
    finally:
        conn.close()
    return pcm, texts, prints, weights


Stored = list[list[tuple[np.ndarray, "np.ndarray | None"]]]  # per recording: (fingerprint, weights) per channel


def _weights(conn: sqlite3.Connection, seq: int) -> list[tuple[int, bytes]]:
    try:
        return sorted(conn.execute("SELECT ch, w FROM cweight WHERE seq = ?", (seq,)).fetchall())
    except sqlite3.OperationalError:  # an index from before weights were kept
        return []


def stored_prints(erased: ErasedSet) -> Stored:
    """Per erased recording, its channels' (fingerprint, energy weights or None) from the ledger."""
    out = []
    for p, w in zip(erased.prints, erased.weights, strict=True):
        out.append([(np.frombuffer(base64.b64decode(fp), dtype="<u4"),
                     np.frombuffer(base64.b64decode(w[ch]), dtype=np.uint8) if ch in w else None)
                    for ch, fp in p.items()])
    return out


def _raw_sha(layout: DataLayout, upload: str, public_rel: str) -> str | None:
    rel = raw_file(layout, upload, public_rel)
    try:
        inv = json.loads(layout.inventory(upload).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for f in inv.get("files", []):
        if f.get("name") == rel:
            return f.get("sha256")
    return None


def _per_conversation_files(layout: DataLayout, upload: str, conv: str) -> list[Path]:
    """Its private files (normalized audio, word timings, surrogate map, the release files its upload keeps)
    and its published ones (they go with the next swap anyway; removed now so nothing waits for it)."""
    files = layout.release_files(upload)
    return [layout.root / layout.normalized_audio_rel(upload, conv), layout.work_alignment(upload, conv),
            layout.synth_sidecar(upload, conv),
            *(root / rel for root in (files, layout.root)
              for rel in (layout.audio_rel(conv), layout.alignment_rel(conv), layout.redaction_rel(conv)))]


def carry_out(layout: DataLayout | Path, p: ErasurePlan, by: str | None = None, reference: str | None = None,
              purge_raw: bool = False) -> ErasureEntry:
    """Record the erasure and remove what it names now; the stages do the rest on the next run (and
    `vak erase` runs them at once). Returns the ledger entry (digests and counts only)."""
    layout = DataLayout.at(layout)
    convs = p.conv_ids
    pcm, texts, prints, weights = _prints(layout, convs)
    texts += [digest(f.text_key) for f in p.found if f.text_key and not f.is_audio]
    files: list[str] = []
    for f in p.found:
        if f.file and f.is_audio:  # a recording is the conversation: its bytes are erased with it
            sha = _raw_sha(layout, f.upload, f.file.split("/", 1)[-1])
            if sha:
                files.append(sha)
    for rel in sorted(p.whole_files):
        upload, _, name = rel.partition("/")
        sha = _raw_sha(layout, upload, name)
        if sha:
            files.append(sha)
    entry = ErasureEntry(at=now(), by=by, reference=reference, selector=p.selector,
                         speakers=sorted({digest(v) for v in p.values}) if p.selector == "speaker" else [],
                         conversations=sorted({digest(c) for c in convs}), files=sorted(set(files)),
                         pcm=sorted(set(pcm)), texts=sorted(set(texts)), prints=prints, weights=weights,
                         hours=round(p.hours, 4),
                         uploads=sorted({digest(u) for u in p.uploads}))
    purged = 0
    if purge_raw:
        purged = _purge_raw(layout, p)
        entry.purged_raw = purged
    append_entry(layout.root, entry)  # first: whatever happens next, every later run honours it
    drop_conversations(layout.root, set(convs), "erased", entry.at)  # reviews of them: noted without ids
    _drop_review_tasks(layout.root / "work" / "review" / "tasks.json", set(convs))
    for f in p.found:
        for path in _per_conversation_files(layout, f.upload, f.conv_id):
            path.unlink(missing_ok=True)
    if layout.content_index.is_file():
        with ContentIndex.open(layout.content_index) as index:
            index.remove(convs)
    # the uploads touched need nothing deleted: tagged_turns is made of the erasure ledger's entries that touch
    # its upload (speech.stage.tag_upstream), so report.freshness finds exactly these uploads stale and the next
    # run re-ingests them (every unchanged item is reused)
    layout.publish_marker.unlink(missing_ok=True)
    return entry


def _drop_review_tasks(path: Path, convs: set[str]) -> None:
    """The review tasks file (`vak review export`) without the erased conversations' tasks."""
    try:
        tasks = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(tasks, list):
        kept = [t for t in tasks if not (isinstance(t, dict) and (t.get("data") or {}).get("conv_id") in convs)]
        if len(kept) != len(tasks):
            atomic_write_json(path, kept)


def _purge_raw(layout: DataLayout, p: ErasurePlan) -> int:
    """Delete the raw files the plan's conversations came from: a recording (and its events file) whole; a text
    file whole when every record in it is erased, else rewritten without the erased records' lines."""
    n = 0
    lines: dict[str, set[int]] = {}
    for f in p.found:
        if not f.file:
            continue
        upload, _, public = f.file.partition("/")
        path = layout.raw / upload / raw_file(layout, upload, public)
        if f.is_audio or f.file in p.whole_files:
            for q in (path, path.with_name(path.stem + ".events.jsonl")):
                if q.is_file() and not q.is_symlink():
                    q.unlink()
                    n += 1
        else:
            lines.setdefault(f.file, set())
    for rel in lines:  # shared text files: keep the other records
        upload, _, public = rel.partition("/")
        path = layout.raw / upload / raw_file(layout, upload, public)
        if not path.is_file():
            continue
        erased = set(p.conv_ids)
        keep = []
        for raw_line in path.read_text(encoding="utf-8").splitlines(keepends=True):
            if not any(_line_is(raw_line, c) for c in erased):
                keep.append(raw_line)
        with atomic_open(path, "w") as out:
            out.writelines(keep)
        n += 1
    return n


def _line_is(line: str, conv_id: str) -> bool:
    """Whether a raw text line is the source of `conv_id` (its own id is the id's last part)."""
    try:
        obj = json.loads(line)
    except ValueError:
        return False
    rid = str(obj.get("id") or obj.get("conversation_id") or "") if isinstance(obj, dict) else ""
    return bool(rid) and conv_id.endswith(rid)


def refuse_audio(root: Path) -> Callable[[Path], bool] | None:
    """The audio stage's test for a newly normalized file: is it a copy of erased audio (same decoded samples,
    or a re-encoding of it or of one of its channels, found by fingerprint)? None without a ledger."""
    erased = load_erased(root)
    if not erased or not (erased.pcm or erased.prints):
        return None
    stored = stored_prints(erased)

    def refuse(wav: Path) -> bool:
        ap = audio_print(wav)
        if ap.exact in erased.pcm:
            return True
        mine = [(c, w) for c, w in zip((*ap.channels, ap.mix), (*ap.weights, ap.mix_weights), strict=False)
                if c is not None]  # one side alone is still that voice
        return any(bit_error(m, fp, MIN_OVERLAP, wa=mw, wb=fw) <= MAX_BIT_ERROR
                   for chans in stored for fp, fw in chans for m, mw in mine)

    return refuse


def refuse_text(root: Path) -> Callable[[VakRecord], bool] | None:
    """The text import's test for a record: is its text an erased conversation's, under any id?"""
    erased = load_erased(root)
    if not erased or not erased.texts:
        return None

    def refuse(record: VakRecord) -> bool:
        key = text_key(record.dump())
        return key is not None and digest(key) in erased.texts

    return refuse
