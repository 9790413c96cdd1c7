"""What every recipe shares: the eligible records of a split manifest, a staged export directory with
build.json (lineage) and skipped.jsonl (what was left out, and why), and config hashing.

A recipe is a pure function of the manifest, splits.json and its config. It writes into a staging
directory beside exports/<recipe>/ and swaps it in at the end, so a failed build never leaves a
half-written export and files of an earlier build never linger next to a new one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from .. import __version__
from ..layout import DataLayout, DataRoot
from ..manifest_hash import manifest_hash
from ..pii import PLACEHOLDER_RE  # noqa: F401  (re-exported: the recipes drop words/turns carrying one)
from ..schema import VakRecord
from ..speech.language_fit import unfit_asr_turns
from ..splits import SplitStore, open_splits, without_fix
from ..storage import JsonlWriter, Span, atomic_write_json, give_umask_mode, iter_jsonl, link_or_copy

PART_SUFFIX = ".part-"  # <file>.part-0003: shard 3's share of an appended file, joined into <file> at the end
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str) -> str:
    """A file/dir name that cannot escape its folder (conversation ids and voices come from data)."""
    cleaned = _SAFE_NAME.sub("_", name).strip("._") or "_"
    return cleaned[:120]


EXECUTION_ONLY = ("workers",)  # settings that change how an export is built, never what it holds


def config_hash(config: BaseModel | dict[str, Any]) -> str:
    data = config.model_dump(mode="json") if isinstance(config, BaseModel) else dict(config)
    for key in EXECUTION_ONLY:
        data.pop(key, None)
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def data_version(manifest_sha256: str, config: BaseModel | dict[str, Any]) -> str:
    """An export's data version: changes exactly when the manifest bytes or the recipe config change."""
    return hashlib.sha256(f"{manifest_sha256}:{config_hash(config)}".encode()).hexdigest()


class MissingInput(RuntimeError):
    """The manifest or splits.json an export needs is not there; the message says what to run."""


@dataclass
class BuildResult:
    recipe: str
    out_dir: Path
    manifest_hash: str
    config: dict[str, Any]
    counts: dict[str, Any]
    skipped: dict[str, int]
    flags: dict[str, int]
    diagnostics_ext: str = ".jsonl"
    warnings: list[str] = field(default_factory=list)  # build.json `warnings`: empty splits and parts, and why

    @property
    def build_json(self) -> Path:
        return self.out_dir / "build.json"

    @property
    def skipped_path(self) -> Path:
        return self.out_dir / f"skipped{self.diagnostics_ext}"

    @property
    def data_version(self) -> str:
        return data_version(self.manifest_hash, self.config)


@dataclass
class ExportBuild:
    """A staged export: collects counts, skipped rows and flags, then writes build.json and swaps in."""

    recipe: str
    layout: DataLayout
    config: BaseModel
    manifest_sha256: str
    splits: SplitStore | None  # the on-disk index of splits.json: lookups, never the whole map
    stage: Path
    final: Path
    counts: Counter = field(default_factory=Counter)
    skipped_counts: Counter = field(default_factory=Counter)
    flag_counts: Counter = field(default_factory=Counter)
    extra: dict[str, Any] = field(default_factory=dict)
    tallies: defaultdict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))  # for finish hooks
    published: Path | None = None  # where `final` will live once its release is swapped in (None: final itself)
    part: int | None = None  # the shard number when a worker builds one shard of the manifest (recipes.shards)
    # skipped/flagged file extension: moshi-finetune globs every "*jsonl" under a data folder, so its export
    # names them .ndjson (same JSON Lines content)
    diagnostics_ext: str = ".jsonl"
    span: Span | None = None  # that shard's bytes and first line number
    version: str = ""  # the recipe's RECIPE_VERSION: part of its cached shards' keys (recipes.incremental)
    _skipped: JsonlWriter | None = None
    _flagged: JsonlWriter | None = None

    def skip(self, record_id: str | None, code: str, reason: str, *, part: str | None = None,
             turn: int | None = None, line: int | None = None) -> None:
        """Report a record (or one turn of it, with `turn`) left out of this export, and why."""
        row: dict[str, Any] = {"id": record_id, "code": code, "reason": reason}
        if part:
            row["part"] = part
        if turn is not None:
            row["turn"] = turn
        if line is not None:
            row["line"] = line
        assert self._skipped is not None
        self._skipped.write(row)
        self.skipped_counts[f"{part}:{code}" if part else code] += 1

    def share_audio(self, src: Path, *parts: str) -> Path:
        """The release's recording `src` as this export's file at `parts`, stored once: a hard link to it
        (release files are never edited in place, every write replaces, so a link can neither dangle nor change
        under the export when the audio is re-released), or a copy where the file system cannot link
        (`storage.link_or_copy`: EXDEV across file systems, EPERM ...). Counted as `audio_files_shared`."""
        dst = self.path(*parts)
        link_or_copy(src, dst)
        self.counts["audio_files_shared"] += 1
        self.counts["audio_bytes_shared"] += dst.stat().st_size
        return dst

    def write_clip(self, samples: Any, rate: int, *parts: str) -> float:
        """A 16-bit PCM WAV of `samples` at `parts`; returns its duration. In a release candidate a clip is
        stored once across exports: turn_based and cascaded cut the same turns into the same bytes, and
        moshi_lora, parquet (embed_audio false) and duplex_s2s (audio reference) write the same re-masked
        agent-left recording, so the first export to write a clip also links it into the candidate's store by
        content (`shared_clips`, never released, gone with the candidate) and the others link to it instead of
        writing it again."""
        from .audio_io import wav_bytes

        dst = self.path(*parts)
        data = wav_bytes(samples, rate)
        store = self._clip_store()
        blob = store / f"{hashlib.sha256(data).hexdigest()}.wav" if store is not None else None
        if blob is not None and blob.is_file():
            link_or_copy(blob, dst)
        else:
            dst.write_bytes(data)
            give_umask_mode(dst)  # a file `claim` created has 0777 & ~umask: a release file's mode, to be linked
            if blob is not None:
                blob.parent.mkdir(parents=True, exist_ok=True)
                with contextlib.suppress(OSError):  # already there (another export), or cannot link: not shared
                    os.link(dst, blob)
        return len(samples) / rate

    def _clip_store(self) -> Path | None:
        """The candidate's clip store, only for an export built into that candidate's exports/."""
        if not self.layout.is_candidate or self.published != self.layout.published().export_dir(self.recipe):
            return None
        return self.layout.shared_clips

    def flag(self, record_id: str, flag: str, message: str) -> None:
        """A record exported in a degraded way (synthetic stereo, derived word times ...)."""
        assert self._flagged is not None
        self._flagged.write({"id": record_id, "flag": flag, "message": message})
        self.flag_counts[flag] += 1

    def result(self) -> BuildResult:
        return BuildResult(self.recipe, self.final, self.manifest_sha256, self.config.model_dump(mode="json"),
                           dict(self.counts), dict(self.skipped_counts), dict(self.flag_counts), self.diagnostics_ext,
                           self.warnings())

    def warnings(self) -> list[str]:
        """One line per empty split (`empty_splits`) and empty part (`empty_parts`: a TTS without voices),
        saying why: build.json `warnings`, read by the steward report and printed by `vak export`."""
        out = []
        empty = self.extra.get("empty_splits") or {}
        for key, why in empty.items():
            if isinstance(why, dict):  # per part: {"stt": {"test": why}}
                out += [f"{self.recipe} {key} split {split} is empty: {w}" for split, w in why.items()]
            else:
                out.append(f"{self.recipe} split {key} is empty: {why}")
        for part, why in (self.extra.get("empty_parts") or {}).items():
            out.append(f"{self.recipe} {part} is empty: {why}")
        return out

    def eligible(self, splits_wanted: list[str] | None = None) -> Iterator[tuple[VakRecord, str]]:
        """(record, split) for every record this export may use (`iter_eligible`)."""
        return iter_eligible(self, splits_wanted)

    def asr_fit(self, splits_wanted: list[str] | None,
                asr_language_unfit: Literal["exclude", "keep"]) -> Iterator[tuple[VakRecord, str]]:
        """`eligible`, less the records an ASR model transcribed without their language (`iter_asr_fit`)."""
        return iter_asr_fit(self, splits_wanted, asr_language_unfit)

    def explain_empty(self, rows: dict[str, int], splits: list[str], needs_audio: bool,
                      part: str | None = None) -> dict[str, str]:
        """build.json `empty_splits` (`explain_empty_splits`)."""
        return explain_empty_splits(self, rows, splits, needs_audio, part)

    def write_json(self, obj: Any, *parts: str) -> None:
        """A compact JSON file of the export at `parts` (`write_json`)."""
        write_json(self.path(*parts), obj)

    def writers(self, names: list[str], pattern: str = "{split}.jsonl") -> SplitWriters:
        """One streamed JSONL file per split (created even when empty, so consumers find every split)."""
        return SplitWriters(self, names, pattern)

    def path(self, *parts: str) -> Path:
        """A file of one record (a clip, an alignment): the same path whichever worker writes it."""
        p = self.stage.joinpath(*parts)
        p.parent.mkdir(parents=True, exist_ok=True)
        return p

    def append_path(self, *parts: str) -> Path:
        """A file many records append to (an index, metadata.csv): one part per shard, joined in order."""
        p = self.path(*parts)
        return p.with_name(f"{p.name}{PART_SUFFIX}{self.part:04d}") if self.part is not None else p

    def claim(self, *parts: str) -> Path | None:
        """Create a record's file exclusively: None when another record (in any worker) already has it."""
        p = self.path(*parts)
        try:
            os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return None
        return p


@contextlib.contextmanager
def export_build(recipe: str, data_root: DataRoot, config: BaseModel,
                 out_dir: str | Path | None = None, require_splits: bool = True,
                 diagnostics_ext: str = ".jsonl") -> Iterator[ExportBuild]:
    """Stage exports/<recipe>/: yields an ExportBuild; on success writes build.json and swaps the dir in."""
    layout = DataLayout.at(data_root)
    if not layout.manifest.exists():
        raise MissingInput(f"{layout.manifest} does not exist: materialize validated_manifest (or run `vak validate`)")
    splits = open_splits(layout.splits)
    if splits is None and require_splits:
        raise MissingInput(f"{layout.splits} does not exist: run `vak split {layout.root}` first")
    header = splits.header if splits is not None else None
    sha = manifest_hash(layout.manifest)
    final = Path(out_dir) if out_dir is not None else layout.export_dir(recipe)
    final.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".stage", dir=final.parent))
    give_umask_mode(stage, directory=True)  # renamed to exports/<recipe>/: readable as the umask says
    published = layout.published().export_dir(recipe) if out_dir is None and layout.is_candidate else final
    build = ExportBuild(recipe=recipe, layout=layout, config=config, manifest_sha256=sha, splits=splits,
                        stage=stage, final=final, published=published, diagnostics_ext=diagnostics_ext)
    try:
        with contextlib.ExitStack() as closing:
            if splits is not None:
                closing.callback(splits.close)
            with JsonlWriter(stage / f"skipped{diagnostics_ext}") as skipped, \
                    JsonlWriter(stage / f"flagged{diagnostics_ext}") as flagged:
                build._skipped, build._flagged = skipped, flagged
                yield build
        stale = header is not None and header.manifest_hash not in (None, sha)
        atomic_write_json(stage / "build.json", {
            "recipe": recipe,
            "manifest_hash": sha,
            "manifest": "vakforge.jsonl",
            "splits_manifest_hash": header.manifest_hash if header else None,
            "splits_stale": stale,
            "split_seed": header.seed if header else None,
            "config": config.model_dump(mode="json"),
            "config_hash": config_hash(config),
            "data_version": data_version(sha, config),
            "counts": dict(sorted(build.counts.items())),
            "skipped": dict(sorted(build.skipped_counts.items())),
            "flags": dict(sorted(build.flag_counts.items())),
            "diagnostics": {"skipped": f"skipped{diagnostics_ext}", "flagged": f"flagged{diagnostics_ext}"},
            **build.extra,
            "warnings": build.warnings(),
            "vak_pipeline_version": __version__,
        })
        _swap_in(stage, final)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def export_warnings(data_root: DataRoot) -> list[str]:
    """The `warnings` of every built export's build.json (exports/*/build.json), for the steward report."""
    out: list[str] = []
    exports = DataLayout.at(data_root).exports
    for path in sorted(exports.glob("*/build.json")) if exports.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("warnings"), list):
            out += [w for w in data["warnings"] if isinstance(w, str)]
    return out


class SplitWriters:
    """JsonlWriters keyed by split, closed together (use as a context manager)."""

    def __init__(self, build: ExportBuild, names: list[str], pattern: str) -> None:
        self._stack = contextlib.ExitStack()
        self.writers = {n: JsonlWriter(build.append_path(pattern.format(split=n))) for n in names}
        self.counts: Counter = Counter()

    def __enter__(self) -> SplitWriters:
        for w in self.writers.values():
            self._stack.enter_context(w)
        return self

    def write(self, split: str, obj: Any) -> None:
        self.writers[split].write(obj)
        self.counts[split] += 1

    def __exit__(self, *exc: Any) -> bool | None:
        return self._stack.__exit__(*exc)


def write_json(path: Path, obj: Any) -> None:
    """Compact JSON file (the export dir is staged and swapped in whole, so a plain write is atomic enough)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


def _swap_in(stage: Path, final: Path) -> None:
    old = None
    if final.exists():
        old = final.with_name(f".{final.name}.old-{os.getpid()}")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(final, old)
    os.replace(stage, final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def iter_records(manifest: Path, span: Span | None = None) -> Iterator[tuple[int, VakRecord | None, str | None]]:
    """(line, record, error): the manifest (or one shard of it) streamed and validated one line at a time."""
    for jl in iter_jsonl(manifest, parse=False, span=span):
        if jl.error is not None:
            yield jl.line, None, jl.error
            continue
        try:
            yield jl.line, VakRecord.model_validate_json(jl.raw), None
        except ValidationError as exc:
            yield jl.line, None, f"record does not match the schema ({exc.error_count()} errors)"


def iter_eligible(build: ExportBuild, splits_wanted: list[str] | None = None) -> Iterator[tuple[VakRecord, str]]:
    """(record, split) for every record an export may use; everything else is reported to skipped.jsonl.

    Left out: unreadable lines, records without a split (or held out), consent "none" (never in a
    published artifact) and rows produced with skip_redaction.
    """
    splits = build.splits
    for line, record, error in iter_records(build.layout.manifest, build.span):
        if record is None:
            build.skip(None, "unreadable", f"manifest line {line}: {error}", line=line)
            continue
        if record.meta.consent == "none":
            build.skip(record.id, "consent_none", "consent is 'none': excluded from every published artifact")
            continue
        if record.meta.skip_redaction:
            build.skip(record.id, "skip_redaction", "produced with skip_redaction: never exported")
            continue
        split = splits.split_of(record.id) if splits is not None else (record.meta.split or "train")
        if split is None:
            held = splits.held_out_reason(record.id) if splits is not None else None
            if held is not None:
                build.skip(record.id, "held_out", without_fix(held))
            else:
                build.skip(record.id, "no_split", "not in splits.json: re-run `vak split` after the manifest changed")
            continue
        if splits_wanted is not None and split not in splits_wanted:
            continue
        if not synthesized_audio_allowed(build, record):
            continue
        build.counts[f"records_{split}"] += 1
        yield record, split


def iter_asr_fit(build: ExportBuild, splits_wanted: list[str] | None,
                 asr_language_unfit: Literal["exclude", "keep"]) -> Iterator[tuple[VakRecord, str]]:
    """iter_eligible, less (with "exclude") the records transcribed by an ASR model without their language.

    Each such record is skipped once, naming its first unfit turn, and all its unfit turns are counted in
    `asr_language_unfit_turns` (a whole conversation goes: its turns make one audio stream).
    """
    for record, split in iter_eligible(build, splits_wanted):
        unfit = unfit_asr_turns(record) if asr_language_unfit == "exclude" else {}
        if unfit:
            turn, why = next(iter(unfit.items()))
            build.skip(record.id, "asr_language_unfit", why, turn=turn)
            build.counts["asr_language_unfit_turns"] += len(unfit)
            continue
        yield record, split


def explain_empty_splits(build: ExportBuild, rows: dict[str, int], splits: list[str], needs_audio: bool,
                         part: str | None = None) -> dict[str, str]:
    """build.json `empty_splits`: {split: why} for each configured split this export wrote nothing to.

    The why comes from splits.json (its `strata` say how many conversations with audio each split got, and
    its warnings say why one got none) or, when the split had eligible conversations, from this export's
    own skips. The steward report shows it.
    """
    header = build.splits.header if build.splits is not None else None
    out: dict[str, str] = {}
    for split in splits:
        if rows.get(split, 0):
            continue
        assigned = (header.counts.get(split, 0) if header is not None else 0)
        audio = (header.strata.get("audio", {}).get(split, 0) if header is not None else 0)
        if header is not None and assigned == 0:
            out[split] = f"splits.json assigns no conversation to {split}"
        elif needs_audio and header is not None and audio == 0:
            why = next((w for w in header.warnings if "conversation with audio" in w), None)
            out[split] = (f"splits.json puts no conversation with audio in {split} ({assigned} text-only); "
                          + (why or "the manifest has no conversation with audio"))
        else:
            n = audio if needs_audio else assigned
            out[split] = (f"the {n} eligible conversation(s) of {split} were all left out of this export "
                          f"(see skipped{build.diagnostics_ext})")
    if part is None:
        build.extra["empty_splits"] = out
    else:
        build.extra.setdefault("empty_splits", {})[part] = out
    return out


SynthesizedAudio = Literal["include", "exclude"]


def synthesized_audio_allowed(build: ExportBuild, record: VakRecord) -> bool:
    """Rows whose audio a synthesizer rendered (synth stage): counted and flagged, or left out when the
    recipe's `synthesized_audio` setting says exclude. build.json says how many either way."""
    synthesis = record.audio.synthesis if record.audio is not None else None
    if synthesis is None:
        return True
    build.counts["synthesized_audio_rows"] += 1
    if getattr(build.config, "synthesized_audio", "include") == "exclude":
        build.skip(record.id, "synthesized_audio", "audio rendered by a synthesizer; excluded by the recipe's "
                                                   "synthesized_audio setting")
        return False
    voices = ", ".join(synthesis.voices.values())
    build.flag(record.id, "synthesized_audio", f"audio rendered by {synthesis.engine} {synthesis.engine_version} "
                                               f"from the record's text (voices {voices})")
    return True
