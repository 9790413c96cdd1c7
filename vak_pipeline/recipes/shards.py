"""Exports on every core: the manifest is cut into contiguous shards, one worker process runs the recipe
over each, and the shards' appended files are joined in shard order, so the export is the same bytes
as a one-process build (record files keep their names; per-split indexes and skipped rows keep
manifest order).

A recipe is a `body(build, config)` that streams `build.eligible()` and writes through the build
(`append_path` / `writers` for shared files, `path` / `claim` for a record's own files). Counters from
the workers are added up; `finish(build)` runs once at the end for figures that need the whole export.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..layout import DataRoot
from ..splits import open_splits
from ..storage import JsonlWriter, Span, line_spans
from .common import PART_SUFFIX, BuildResult, ExportBuild, export_build
from .incremental import build_incrementally

PARALLEL_MIN_BYTES = 8 << 20  # below this a worker's start-up costs more than it saves
Body = Callable[[ExportBuild, Any], None]


def effective_workers(workers: int) -> int:
    """0 means one per core."""
    return max(1, workers or os.cpu_count() or 1)


def run_recipe(recipe: str, data_root: DataRoot, config: BaseModel, body: Body,
               out_dir: str | Path | None = None, finish: Callable[[ExportBuild], None] | None = None,
               require_splits: bool = True, diagnostics_ext: str = ".jsonl", incremental: bool = False,
               part_name: Callable[[str, int], str] | None = None, version: str = "") -> BuildResult:
    """Build exports/<recipe>/ with `body`, in `config.workers` processes when the manifest is big enough.

    `incremental`: the recipe's files are shard-composable (a record's own files, appended files joined in
    order), so an export into the data root's exports/ builds only the shards of what changed since the last
    build (recipes.incremental); one into another `out_dir` is built whole. `part_name(file name, k)` names
    a file that shard 0 wrote as shard k's (default: `<file>.part-0000` -> `<file>.part-000k`). `version`: the
    recipe's RECIPE_VERSION, part of every cached shard's key (required with `incremental`)."""
    if incremental and not version:
        raise ValueError(f"{recipe}: an incremental recipe passes its RECIPE_VERSION (version=...)")
    workers = effective_workers(getattr(config, "workers", 1))
    with export_build(recipe, data_root, config, out_dir, require_splits, diagnostics_ext) as build:
        build.version = version
        manifest = build.layout.manifest
        spans = line_spans(manifest, workers) if workers > 1 and manifest.stat().st_size >= PARALLEL_MIN_BYTES \
            else []
        if incremental and out_dir is None and manifest.stat().st_size > 0 and _cache_writable(build):
            build_incrementally(build, body, workers, _shard, _join_parts, _add,
                                *([part_name] if part_name is not None else []))
        elif len(spans) > 1:
            _run_shards(build, body, spans)
        else:
            body(build, config)
        if finish is not None:
            finish(build)
    return build.result()


def _cache_writable(build: ExportBuild) -> bool:
    try:
        (build.layout.publish_cache / "exports").mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only data root (`vak export -o` elsewhere): built whole, nothing kept
        return False
    return True


def _run_shards(build: ExportBuild, body: Body, spans: list[Span]) -> None:
    jobs = [(build.recipe, build.layout, build.config, body, str(build.stage), build.manifest_sha256,
             build.published or build.final, k, span, build.diagnostics_ext) for k, span in enumerate(spans)]
    with ProcessPoolExecutor(max_workers=len(spans), mp_context=get_context("spawn")) as pool:
        results = list(pool.map(_shard, jobs))
    for counts, skipped, flags, tallies in results:
        _add(build.counts, counts)
        build.skipped_counts.update(skipped)
        build.flag_counts.update(flags)
        for name, tally in tallies.items():
            build.tallies[name].update(tally)
    _join_parts(build, len(spans))


def _shard(job: tuple) -> tuple[dict[str, Any], dict[str, int], dict[str, int], dict[str, Counter]]:
    """One worker: the recipe body over one span of the manifest, appended files written as parts."""
    recipe, layout, config, body, stage, sha, published, part, span, ext = job
    stage = Path(stage)
    splits = open_splits(layout.splits)
    build = ExportBuild(recipe=recipe, layout=layout, config=config, manifest_sha256=sha, splits=splits,
                        stage=stage, final=stage, published=published, part=part, span=span, diagnostics_ext=ext)
    try:
        with JsonlWriter(build.append_path(f"skipped{ext}")) as skipped, \
                JsonlWriter(build.append_path(f"flagged{ext}")) as flagged:
            build._skipped, build._flagged = skipped, flagged
            body(build, config)
    finally:
        if splits is not None:
            splits.close()
    return dict(build.counts), dict(build.skipped_counts), dict(build.flag_counts), dict(build.tallies)


def _add(total: Counter, part: dict[str, Any]) -> None:
    for key, value in part.items():
        total[key] = round(total.get(key, 0) + value, 6) if isinstance(value, float) else total[key] + value


def _join_parts(build: ExportBuild, n: int) -> None:
    """<file>.part-0000 ... -> <file>, in shard order; skipped/flagged rows go through the build's writers."""
    groups: dict[Path, list[Path]] = {}
    for part in build.stage.rglob(f"*{PART_SUFFIX}*"):
        base, _, index = part.name.rpartition(PART_SUFFIX)
        if index.isdigit():
            groups.setdefault(part.with_name(base), []).append(part)
    ext = build.diagnostics_ext
    into = {build.stage / f"skipped{ext}": build._skipped, build.stage / f"flagged{ext}": build._flagged}
    for base, parts in groups.items():
        parts.sort(key=lambda p: int(p.name.rpartition(PART_SUFFIX)[2]))
        writer = into.get(base)
        if writer is not None:
            for part in parts:
                with open(part, encoding="utf-8") as fh:
                    for line in fh:
                        writer.write(line)
        else:
            with open(base, "wb") as out:
                for part in parts:
                    with open(part, "rb") as fh:
                        while chunk := fh.read(1 << 20):
                            out.write(chunk)
        for part in parts:
            part.unlink()
