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
from ..rules.line_facts import LineFacts, LineFactsStore
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

    A line's id, upload and files come from its facts (rules.line_facts, kept by its bytes: after a delivery
    only the new lines are parsed); its split and its files' digests are looked up every time, a batch of
    lines at a time."""
    layout, splits = build.layout, build.splits
    from ..locales.registry import packs_fingerprint

    base = json.dumps([build.recipe, build.version, SHARDS_VERSION, packs_fingerprint(), config_hash(build.config),
                       str(build.published or build.final), build.diagnostics_ext]).encode()
    uploads = layout.uploads()
    shards: list[Shard] = []
    offset, line = 0, 1
    with open(layout.manifest, "rb") as fh, LineFactsStore.open(layout.line_facts) as store:
        lines = store.iter_facts(fh)
        while batch := list(itertools.islice(lines, PLAN_BATCH)):
            ids = [str(f.id) for _, f in batch if f.record]
            assigned = splits.get_many("assignment", ids) if splits is not None else {}
            for raw, f in batch:
                upload = (f.upload or "") if f.record else ""
                current = shards[-1] if shards else None
                if current is None or current.upload != upload or current.records >= SHARD_RECORDS:
                    if current is not None:
                        current.span = (current.span[0], offset, current.span[2])
                    current = Shard(upload, (offset, None, line))
                    current.key.update(base)
                    shards.append(current)
                current.records += 1
                current.key.update(raw)
                if f.record:
                    current.key.update(_depends_on(f, build, splits, assigned, uploads, digests))
                else:
                    current.cacheable = False
                offset += len(raw)
                line += 1
    return shards


PLAN_BATCH = 2000  # manifest lines whose facts and splits are looked up together


def _depends_on(facts: LineFacts, build: ExportBuild, splits: Any, assigned: dict[str, str], uploads: list[str],
                digests: FileDigests) -> bytes:
    """What a record's exported files depend on beyond its manifest line: its split and its files' bytes."""
    rid = str(facts.id)
    parts: list[str] = []
    if splits is not None:
        split = assigned.get(rid)
        parts.append(split if split is not None else f"held:{splits.held_out_reason(rid)}")
    layout = build.layout
    # the paths as the recipes name them (they read through resolve_inside, which refuses what escapes): the
    # key only needs each file's bytes, so no realpath per file here
    root = layout.release_root
    files = [p for p in (_joined(root, rel) for rel in facts.rels) if p is not None]
    if facts.synthesis:
        files += [layout.synth_sidecar(u, rid) for u in uploads]
    for path in files:
        try:
            parts.append(digests.sha256(path))
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            parts.append("-")
    return ("\0" + "\0".join(parts) + "\n").encode()


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
