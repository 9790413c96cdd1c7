"""Exports in proportion to the change: the manifest is cut into shards (each upload's run of lines, at most
SHARD_RECORDS records each), every shard is built once into work/.publish/exports/ under a key of all it
depends on, and an export is the union of its shards' files with each appended file (per-split indexes,
metadata.csv, skipped rows) joined from the shards' parts in manifest order (recipes.shards).

A shard's key is the sha256 of: the recipe and its RECIPE_VERSION, SHARDS_VERSION (how shards are cut and
joined), the locale packs (data the spoken forms read), the config hash, where
the export is published, and for each of its records the manifest line's bytes, its split (or why it is
held out) and the content of every file the record names (audio, alignments, redaction log, synth's
sidecar). A delivery therefore builds only its own shards; the others are hard-linked from the cache. The
shard cut depends on the manifest alone, so an incremental build and a build from an empty cache write
the same bytes. Entries the latest build did not use are removed after it.

The cut with its lines' and splits' digest and the files each shard names is the same for all five exports,
so one pass per publish makes it (`shard_cuts`, kept in work/.publish/plans.sqlite); each export then adds
its own settings and looks up the files' digests.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from ..core.file_digests import FileDigests
from ..core.keyed_store import KeyedStore, line_key
from ..layout import DataLayout
from ..rules import line_facts
from ..rules.line_facts import LineFacts, LineFactsStore
from ..splits import SplitStore
from ..storage import Span
from .common import PART_SUFFIX, ExportBuild, config_hash

SHARDS_VERSION = "1"  # bump when a shard's files for the same records, config and version would change
SHARD_RECORDS = 2000  # records per shard at most: a big upload is several shards, built in parallel
DONE = "shard.json"  # a finished shard's counters; a shard folder without it is not reused
last_builds: dict[str, dict[str, int]] = {}  # export folder name -> shards of its latest build, and how many built


@dataclass
class Shard:
    upload: str
    span: Span
    key: Any = field(default_factory=hashlib.sha256)
    records: int = 0
    cacheable: bool = True  # a shard with an unreadable line is built every time (its rows carry line numbers)


def plan_shards(build: ExportBuild, digests: FileDigests) -> list[Shard]:
    """The manifest's shards in order, each with its key: runs of one upload, SHARD_RECORDS lines at most.

    The cut, its lines' bytes and splits and the files its records name are the same for every export, so they
    come from `shard_cuts` (one pass per publish, kept); the export's own settings and the files' digests are
    added here, every time."""
    from ..locales.registry import packs_fingerprint

    base = json.dumps([build.recipe, build.version, SHARDS_VERSION, packs_fingerprint(), config_hash(build.config),
                       str(build.published or build.final), build.diagnostics_ext]).encode()
    shards: list[Shard] = []
    for cut in shard_cuts(build.layout, build.splits, build.manifest_sha256):
        shard = Shard(cut.upload, cut.span, records=cut.records, cacheable=cut.cacheable)
        shard.key.update(base)
        shard.key.update(bytes.fromhex(cut.digest))
        for path in cut.files:
            shard.key.update(_file_part(digests, path))
        shards.append(shard)
    return shards


@dataclass
class Cut:
    """One shard as every export cuts it: its lines, the sha256 of their bytes and of each record's split (or
    why it is held out), and the files its records name in order (their bytes are looked up by each export)."""

    upload: str
    span: Span
    records: int
    cacheable: bool
    digest: str
    files: list[str]


PLAN_BATCH = 2000  # manifest lines whose facts and splits are looked up together


def shard_cuts(layout: DataLayout, splits: SplitStore | None, manifest_sha256: str) -> Iterator[Cut]:
    """The manifest's shard cuts, in order: computed by the first export of a publish and kept (layout.shard_plans)
    under all they are a function of, so the others only read them back: the manifest's bytes (`manifest_sha256`),
    splits.json's, the uploads, where the release and the synth sidecars are, SHARDS_VERSION and FACTS_VERSION.
    One shard's files are in memory at a time."""
    head = [manifest_sha256, splits.source_sha256 if splits is not None else None, layout.uploads(),
            str(layout.release_root), str(layout.root)]
    with KeyedStore.open(layout.shard_plans, "shard_cut") as store:
        plan = line_key(f"{SHARDS_VERSION}:{line_facts.FACTS_VERSION}", b"", *head)  # read now: a bump counts
        text = store.get(plan)
        if text is not None:
            for k, (upload, span, records, cacheable, digest) in enumerate(json.loads(text)):
                files = store.get(line_key(plan.hex(), b"", k))
                if files is None:  # a damaged store: the rest computed again (the same cut, by the same inputs)
                    yield from itertools.islice(_cut_manifest(layout, splits), k, None)
                    return
                yield Cut(upload, (span[0], span[1], span[2]), records, cacheable, digest, json.loads(files))
            return
        rows = []
        for k, cut in enumerate(_cut_manifest(layout, splits)):
            store.put(line_key(plan.hex(), b"", k), json.dumps(cut.files, ensure_ascii=False))
            rows.append([cut.upload, list(cut.span), cut.records, cut.cacheable, cut.digest])
            yield cut
        store.put(plan, json.dumps(rows, ensure_ascii=False))


def _cut_manifest(layout: DataLayout, splits: SplitStore | None) -> Iterator[Cut]:
    """The cuts, from every line's facts (rules.line_facts, kept by its bytes: after a delivery only the new lines
    are parsed) and the splits, a batch of lines at a time."""
    uploads = layout.uploads()
    cut: Cut | None = None
    digest: Any = None
    offset, line = 0, 1
    with open(layout.manifest, "rb") as fh, LineFactsStore.open(layout.line_facts) as store:
        lines = store.iter_facts(fh)
        while batch := list(itertools.islice(lines, PLAN_BATCH)):
            ids = [str(f.id) for _, f in batch if f.record]
            assigned = splits.get_many("assignment", ids) if splits is not None else {}
            for raw, f in batch:
                upload = (f.upload or "") if f.record else ""
                if cut is None or cut.upload != upload or cut.records >= SHARD_RECORDS:
                    if cut is not None:
                        cut.span, cut.digest = (cut.span[0], offset, cut.span[2]), digest.hexdigest()
                        yield cut
                    cut, digest = Cut(upload, (offset, None, line), 0, True, "", []), hashlib.sha256()
                cut.records += 1
                digest.update(raw)
                if f.record:
                    digest.update(_split_part(f, splits, assigned))
                    cut.files += _files_of(f, layout, uploads)
                else:
                    cut.cacheable = False
                offset += len(raw)
                line += 1
    if cut is not None:
        cut.digest = digest.hexdigest()
        yield cut


def _split_part(facts: LineFacts, splits: SplitStore | None, assigned: dict[str, str]) -> bytes:
    """A record's split (or why it is held out): its exported files depend on it."""
    if splits is None:
        return b"\0\n"
    rid = str(facts.id)
    split = assigned.get(rid)
    return ("\0" + (split if split is not None else f"held:{splits.held_out_reason(rid)}") + "\n").encode()


def _files_of(facts: LineFacts, layout: DataLayout, uploads: list[str]) -> list[str]:
    """The files a record's exported files are made from, as the recipes name them (they read through
    resolve_inside, which refuses what escapes): the key only needs each file's bytes, so no realpath here."""
    root = layout.release_root
    files = [str(p) for p in (_joined(root, rel) for rel in facts.rels) if p is not None]
    if facts.synthesis:
        files += [str(layout.synth_sidecar(u, str(facts.id))) for u in uploads]
    return files


def _file_part(digests: FileDigests, path: str) -> bytes:
    """A file's part of a shard key: its sha256, or '-' when there is none (the path as a string: a Path per file
    cost more than the digest look-up, most of all for the many files that are not there)."""
    try:
        return f"\0{digests.sha256(path)}".encode()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return b"\0-"


def _joined(root: Path, rel: str) -> str | Path | None:
    """`root / rel` (None for a path with a '..' part), as pathlib names it, without pathlib for a plain relative
    path (most of them): one record's files are named on every export's shard planning."""
    slashed = f"/{rel}/"
    if "/../" in slashed:
        return None
    if "//" in slashed or "/./" in slashed:
        return root / rel
    return f"{root}/{rel}"


def part_name(rel: str, part: int) -> str:
    """A shard's file (a path relative to the export) as shard `part`'s: `<file>.part-0000` (every shard is
    built as shard 0) becomes `<file>.part-000k`; a record's own file keeps its name."""
    base, sep, index = rel.rpartition(PART_SUFFIX)
    return f"{base}{PART_SUFFIX}{part:04d}" if sep and index.isdigit() and "/" not in index else rel


def build_incrementally(build: ExportBuild, body: Callable[[ExportBuild, Any], None], workers: int,
                        run_shard: Callable[[tuple], tuple], join: Callable[[ExportBuild, int], None],
                        add: Callable[[Counter, dict[str, Any]], None],
                        rename: Callable[[str, int], str] = part_name) -> dict[str, int]:
    """Build the export in `build.stage` from cached and newly built shards; {"shards", "built"}.

    Each shard is built as shard 0; `rename(path in the export, k)` names its files as shard k's (`part_name`;
    it is called for shard 0's files first, then shard 1's ...)."""
    cache_root = build.layout.publish_cache / "exports" / build.final.name
    cache_root.mkdir(parents=True, exist_ok=True)
    with FileDigests.open(build.layout.publish_cache / "digests.sqlite") as digests:
        shards = plan_shards(build, digests)
    keys = [s.key.hexdigest() for s in shards]
    todo = [(k, s) for k, s in enumerate(shards) if not s.cacheable or not (cache_root / keys[k] / DONE).is_file()]
    tmp = {k: cache_root / f".{keys[k]}.tmp-{os.getpid()}-{k}" for k, _ in todo}
    jobs = [(build.recipe, build.layout, build.config, body, str(tmp[k]), build.manifest_sha256,
             build.published or build.final, 0, s.span, build.diagnostics_ext) for k, s in todo]
    for k, _ in todo:
        shutil.rmtree(tmp[k], ignore_errors=True)
        tmp[k].mkdir(parents=True)
    try:
        if len(jobs) > 1 and workers > 1:
            with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=get_context("spawn")) as pool:
                results = list(pool.map(run_shard, jobs))
        else:
            results = [run_shard(job) for job in jobs]
        built: dict[int, Path] = {}
        for (k, shard), (counts, skipped, flags, tallies) in zip(todo, results, strict=True):
            (tmp[k] / DONE).write_text(json.dumps({"counts": counts, "skipped": skipped, "flags": flags,
                                                   "tallies": tallies, "records": shard.records}), "utf-8")
            final = cache_root / keys[k]
            if shard.cacheable:
                shutil.rmtree(final, ignore_errors=True)
                os.replace(tmp[k], final)
                built[k] = final
            else:
                built[k] = tmp[k]
        for k in range(len(shards)):
            entry = built.get(k, cache_root / keys[k])
            done = json.loads((entry / DONE).read_text("utf-8"))
            add(build.counts, done["counts"])
            build.skipped_counts.update(done["skipped"])
            build.flag_counts.update(done["flags"])
            for name, tally in done["tallies"].items():
                build.tallies[name].update(tally)
            _place(entry, build.stage, k, rename)
        join(build, len(shards))
    finally:
        for path in tmp.values():
            shutil.rmtree(path, ignore_errors=True)
    _evict(cache_root, set(keys))
    last_builds[build.final.name] = stats = {"shards": len(shards), "built": len(todo)}
    return stats


def _place(entry: Path, stage: Path, part: int, rename: Callable[[str, int], str]) -> None:
    """Link a shard's files into the stage (a copy where links fail), named by `rename` for shard `part`."""
    for src in _files(entry):
        rel = src.relative_to(entry)
        if rel.as_posix() == DONE:
            continue
        dst = stage / (rel if src.is_dir() else rename(rel.as_posix(), part))
        if src.is_dir():
            dst.mkdir(parents=True, exist_ok=True)
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        if dst.exists():  # an earlier shard's record already has this name (its skip row says so)
            continue
        try:
            os.link(src, dst, follow_symlinks=False)
        except OSError:
            shutil.copy2(src, dst, follow_symlinks=False)


def _files(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        here = Path(dirpath)
        for d in dirnames:
            yield here / d
        for f in sorted(filenames):
            yield here / f


def _evict(cache_root: Path, keep: set[str]) -> None:
    """Remove the shards the latest build did not use (their files stay wherever a release links them) and
    any half-built shard a crashed build left (`.<key>.tmp-...`)."""
    for entry in cache_root.iterdir():
        if entry.name not in keep:
            shutil.rmtree(entry, ignore_errors=True)
