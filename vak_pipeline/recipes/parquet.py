"""The manifest as Parquet for the Hugging Face Hub, and a generic streamed Parquet writer.

exports/parquet/
  data/<split>-00000-of-0000N.parquet   one row per conversation, same field layout as vakforge.jsonl
  audio/<conv>.wav                      only with embed_audio=False: the recordings the rows point at (hard
                                        links to the release's audio/ files when nothing is re-masked)
  README.md                             dataset card: HF YAML header (configs/data_files per split, license)
  build.json skipped.jsonl flagged.jsonl

Field layout: nested structs and lists as in the JSONL (language, tools, turns[...], meta), plus a `split`
column. `audio` is what the Hugging Face `Audio` feature stores, {bytes, path}, so
`cast_column("audio", datasets.Audio())` works from this folder alone: the file's bytes (embed_audio, the
default: lossless FLAC unless `audio_format` says wav; redacted spans re-masked as `redacted_audio` says,
silence by default) or a path relative to this folder (embed_audio=False). The record's own audio
metadata is `audio_info`. `turns[].text` is the manifest's text (placeholders kept); `turns[].spoken_text` is
what the row's audio says in that turn (a synthesized call's surrogate spoken, a masked placeholder left
out; recipes/spoken.py), None without audio. Arrow needs one fixed schema, so values that are arbitrary
JSON are stored as JSON strings (decode with json.loads): tools[].parameters, turns[].tool_call.arguments,
turns[].tool_result.content, turns[].entities[].normalized, audio.channel_map, meta.speakers,
meta.transcription, meta.diarization, and meta.extra (any meta keys beyond the named ones, e.g. an
importer's provenance).

`write_parquet(rows, path, schema)` streams dicts into row-group batches through one ParquetWriter and
appears under its final name only when complete; the text-source importers reuse it (aidb Parquet).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..core.parquet import ParquetStreamWriter, write_parquet  # noqa: F401  (re-exported)
from ..core.parquet import arrow as _pa
from ..layout import DataRoot
from ..schema import Meta, VakRecord
from ..storage import atomic_write_text, resolve_inside
from .audio_io import AudioProblem, EmbeddedFormat, encoded_bytes, read_audio
from .common import BuildResult, ExportBuild, SynthesizedAudio, safe_name
from .incremental import part_name
from .masking import RedactedAudio, apply_masks, load_masks
from .shards import run_recipe
from .spoken import SpokenForms, spoken_forms

RECIPE = "parquet"
# bump when the output for the same inputs and settings would change (the asset's code_version);
# 2: embedded audio is FLAC by default (audio_format)
RECIPE_VERSION = "2"
_META_FIELDS = set(Meta.model_fields)
_JSON_META = {"transcription", "diarization", "speakers"}
HF_LICENSES = {"apache-2.0", "mit", "cc0-1.0", "cc-by-4.0", "cc-by-sa-4.0", "cc-by-nc-4.0", "cc-by-nc-sa-4.0",
               "cc-by-nd-4.0", "cc-by-nc-nd-4.0", "odc-by", "odbl", "pddl", "openrail", "bsd-3-clause", "unknown"}


def manifest_schema(embed_audio: bool = False):
    """The Arrow schema of a manifest row (see the module docstring for the JSON-string columns).
    `embed_audio` is accepted for callers of the old signature; the audio column is the same either way."""
    pa = _pa()
    s, f64, b = pa.string(), pa.float64(), pa.bool_()
    entity = pa.struct([("type", s), ("text", s), ("start_char", pa.int64()), ("end_char", pa.int64()),
                        ("normalized", s)])
    turn = pa.struct([
        ("speaker", s), ("start", f64), ("end", f64), ("text", s), ("lang", s), ("overlap", b),
        ("entities", pa.list_(entity)),
        ("spoken_text", s),  # what the row's audio says in this turn (recipes/spoken.py); None without audio
        ("tool_call", pa.struct([("id", s), ("name", s), ("arguments", s)])),
        ("tool_result", pa.struct([("id", s), ("content", s)])),
    ])
    fields = [
        ("id", s), ("schema_version", s),
        ("audio", pa.struct([("bytes", pa.binary()), ("path", s)])),  # the HF Audio feature's storage
        ("audio_info", pa.struct([("path", s), ("sample_rate", pa.int32()), ("channels", pa.int32()),
                                  ("channel_map", s), ("duration_s", f64), ("condition", s),
                                  ("synthesis", s)])),
        ("locale", s), ("language", pa.struct([("primary", s), ("mix", pa.list_(s))])),
        ("domain", s), ("scenario", s), ("system_prompt", s),
        ("tools", pa.list_(pa.struct([("name", s), ("description", s), ("parameters", s)]))),
        ("turns", pa.list_(turn)),
        ("meta", pa.struct([
            ("source", s), ("consent", s), ("consent_ref", s), ("voice_consent_ref", s), ("license", s),
            ("pii_redacted", b), ("redaction_log", s), ("transcription", s), ("diarization", s), ("split", s),
            ("created", s), ("speakers", s), ("allow_unconsented", b), ("skip_redaction", b), ("extra", s)])),
        ("split", s),
    ]
    return pa.schema(fields)


def _js(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def record_row(record: VakRecord, split: str | None, audio_bytes: bytes | None = None,
               embed_audio: bool = False, audio_path: str | None = None,
               forms: SpokenForms | None = None) -> dict[str, Any]:
    """A manifest record as a row of `manifest_schema`; `audio` = {bytes, path} (None without audio).
    With `forms` (a row with audio), each spoken turn's `spoken_text` is its text as heard."""
    d = record.model_dump(mode="json")
    for t, turn in zip(d["turns"], record.turns, strict=True):
        text = turn.text if forms is not None and turn.is_spoken else None
        t["spoken_text"] = forms.text(text) if forms is not None and text and not forms.unspoken(text) else None
    d["audio_info"] = d.pop("audio")
    if d["audio_info"] is not None:
        d["audio_info"]["channel_map"] = _js(d["audio_info"]["channel_map"])
        d["audio_info"]["synthesis"] = _js(d["audio_info"].get("synthesis"))
    for t in d["tools"]:
        t["parameters"] = _js(t["parameters"])
    for t in d["turns"]:
        for e in t["entities"] or []:
            e["normalized"] = _js(e["normalized"])
        if t["tool_call"] is not None:
            t["tool_call"]["arguments"] = _js(t["tool_call"]["arguments"])
        if t["tool_result"] is not None:
            t["tool_result"]["content"] = _js(t["tool_result"]["content"])
    meta = d["meta"]
    extra = {k: meta.pop(k) for k in list(meta) if k not in _META_FIELDS}
    for k in _JSON_META:
        meta[k] = _js(meta.get(k))
    meta["extra"] = _js(extra) if extra else None
    d["split"] = split
    d["audio"] = {"bytes": audio_bytes, "path": audio_path} if (audio_bytes is not None or audio_path) else None
    return d


class _Pieces:
    """One split's rows in files of at most `rows_per_file` rows, named `.<split>-<part>-<n>.parquet` until
    `name_files` gives every split its final `<split>-NNNNN-of-MMMMM.parquet` names (after all workers)."""

    def __init__(self, directory: Path, split: str, part: int, schema, rows_per_file: int, batch_size: int) -> None:
        self.directory, self.split, self.part, self.schema = directory, split, part, schema
        self.rows_per_file, self.batch_size = rows_per_file, batch_size
        self.files = 0
        self._current: ParquetStreamWriter | None = None

    def write(self, row: dict[str, Any]) -> None:
        if self._current is None or self._current.rows + len(self._current._buf) >= self.rows_per_file:
            self.close()
            path = self.directory / f".{self.split}-{self.part:04d}-{self.files:05d}.parquet"
            self.files += 1
            self._current = ParquetStreamWriter(path, self.schema, self.batch_size).__enter__()
        self._current.write(row)

    def close(self) -> None:
        if self._current is not None:
            self._current.__exit__(None, None, None)
            self._current = None


def name_files(directory: Path, splits: list[str]) -> dict[str, list[str]]:
    """Pieces in (part, n) order -> <split>-NNNNN-of-MMMMM.parquet; none for an empty split (`datasets`
    refuses a split whose files hold no rows)."""
    out = {}
    for split in splits:
        pieces = sorted(directory.glob(f".{split}-[0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9].parquet"))
        out[split] = []
        for i, piece in enumerate(pieces):
            dst = directory / f"{split}-{i:05d}-of-{len(pieces):05d}.parquet"
            os.replace(piece, dst)
            out[split].append(f"data/{dst.name}")
    return out


class ParquetConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # audio bytes in the audio column (embed: the export holds a second copy of the audio, build.json counts
    # audio_bytes_embedded); False (reference): audio/<conv>.wav beside the rows, hard links to the release's
    # files where nothing is re-masked (a copy where the file system cannot link)
    embed_audio: bool = True
    # how embedded audio is encoded: flac (lossless, the samples read back bit for bit; about half of WAV's
    # bytes on speech) or wav (the release's own file bytes when nothing is re-masked)
    audio_format: EmbeddedFormat = "flac"
    redacted_audio: RedactedAudio = "silence"  # how a redacted span sounds in the exported audio
    rows_per_file: int = 100_000
    batch_size: int = 1000  # rows per row group (32 when audio is embedded)
    splits: list[str] = ["train", "validation", "test"]
    dataset_name: str = "vakforge"
    synthesized_audio: SynthesizedAudio = "include"  # rows whose audio the synth stage rendered (flagged)
    workers: int = 1  # processes over shards of the manifest (0 = one per core); same rows, same order


TALLIES = ("split", "locale", "source", "consent", "license")


def export_parquet(data_root: DataRoot, config: ParquetConfig | None = None,
                   out_dir: str | Path | None = None) -> BuildResult:
    return run_recipe(RECIPE, data_root, config or ParquetConfig(), _export_rows, out_dir, finish=_finish,
                      incremental=True, version=RECIPE_VERSION, part_name=piece_of_part)


_PIECE = re.compile(r"^data/\.(?P<split>[^/]+)-(?P<part>[0-9]{4})-(?P<n>[0-9]{5})\.parquet$")


def piece_of_part(rel: str, part: int) -> str:
    """A piece `_Pieces` wrote as shard 0, named as shard `part`'s (recipes.incremental): `name_files`
    then orders every shard's pieces as one build would."""
    m = _PIECE.match(rel)
    return f"data/.{m['split']}-{part:04d}-{m['n']}.parquet" if m else part_name(rel, part)


def _export_rows(build: ExportBuild, config: ParquetConfig) -> None:
    schema = manifest_schema(config.embed_audio)
    batch = min(config.batch_size, 32) if config.embed_audio else config.batch_size
    data_dir = build.stage / "data"
    data_dir.mkdir(exist_ok=True)
    pieces = {s: _Pieces(data_dir, s, build.part or 0, schema, config.rows_per_file, batch) for s in config.splits}
    try:
        for record, split in build.eligible(config.splits):
            audio_bytes, audio_path = _audio(build, record, config)
            forms = spoken_forms(build.layout, record) if record.audio is not None else None
            pieces[split].write(record_row(record, split, audio_bytes, config.embed_audio, audio_path, forms))
            for key, value in (("split", split), ("locale", record.locale), ("source", record.meta.source),
                               ("consent", record.meta.consent), ("license", record.meta.license or "(none)")):
                build.tallies[key][value] += 1
            build.tallies["language"].update(set(record.language.mix or [record.language.primary]))
            build.counts["rows"] += 1
            build.counts[f"rows_{split}"] += 1
    finally:
        for p in pieces.values():
            p.close()


def _finish(build: ExportBuild) -> None:
    """After every worker: final file names, per-split row counts, the dataset card."""
    config = build.config
    files = name_files(build.stage / "data", config.splits)
    for s in config.splits:
        build.counts[f"rows_{s}"] += 0  # an empty split is listed with 0 rows
    build.extra["files"] = files
    build.explain_empty({s: len(fs) for s, fs in files.items()}, config.splits, needs_audio=False)
    build.extra["json_string_columns"] = JSON_STRING_COLUMNS
    tallies = {k: build.tallies[k] for k in TALLIES}
    atomic_write_text(build.path("README.md"),
                      dataset_card(config, tallies, build.tallies["language"], build.manifest_sha256))


JSON_STRING_COLUMNS = ["audio_info.channel_map", "audio_info.synthesis", "tools[].parameters",
                       "turns[].entities[].normalized", "turns[].tool_call.arguments", "turns[].tool_result.content",
                       "meta.speakers", "meta.transcription", "meta.diarization", "meta.extra"]


def _audio(build: ExportBuild, record: VakRecord, config: ParquetConfig) -> tuple[bytes | None, str | None]:
    """(bytes, path) of the row's `audio`: the file's bytes embedded (`audio_format`), or a file under audio/ of
    the export. Without a span to re-mask, a WAV is the published file's own bytes (a path: a hard link to
    it); else the samples re-masked and encoded again."""
    if record.audio is None:
        build.flag(record.id, "no_audio", "record has no audio: audio is null")
        return None, None
    path = resolve_inside(build.layout.release_root, record.audio.path)
    if path is None or not path.is_file():
        build.flag(record.id, "no_audio", f"audio file {record.audio.path} is missing: audio is null")
        return None, None
    fmt = config.audio_format if config.embed_audio else "wav"
    try:
        masks = load_masks(build.layout.release_root, record)
        if masks or fmt != "wav":
            data, rate = read_audio(build.layout.release_root, record)
            data, n = apply_masks(data, rate, masks, config.redacted_audio)
            build.counts[f"redacted_spans_{config.redacted_audio}"] += n
            if not config.embed_audio:  # a re-masked file, stored once across the candidate's exports
                rel = f"audio/{safe_name(record.id)}.wav"
                build.write_clip(data, rate, rel)
                build.counts["audio_files_written"] += 1
                return None, rel
            payload = encoded_bytes(data, rate, fmt)
        elif not config.embed_audio:  # a path, not bytes: the release's own file, stored once (a hard link)
            rel = f"audio/{safe_name(record.id)}.wav"
            build.share_audio(path, rel)
            return None, rel
        else:
            payload = path.read_bytes()
    except AudioProblem as exc:
        build.flag(record.id, "no_audio", f"{exc}: audio is null")
        return None, None
    build.counts["audio_bytes_embedded"] += len(payload)
    return payload, f"{safe_name(record.id)}.{fmt}"


def _hf_license(licenses: Counter) -> list[str]:
    names = [k for k in licenses if k != "(none)"]
    if len(names) == 1 and names[0].lower() in HF_LICENSES:
        return [f"license: {names[0].lower()}"]
    if len(names) == 1:
        return ["license: other", f"license_name: {_yaml_str(names[0])}"]
    return ["license: other"] if names else ["license: unknown"]


def _yaml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid YAML scalar


def _table(title: str, counts: Counter) -> str:
    rows = "\n".join(f"| {k} | {v} |" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"### By {title}\n\n| {title} | conversations |\n|---|---|\n{rows or '| (none) | 0 |'}\n"


def dataset_card(config: ParquetConfig, tallies: dict[str, Counter], languages: Counter, sha: str) -> str:
    """README.md with the Hub's YAML header (configs/data_files per non-empty split, license) and count tables."""
    present = [s for s in config.splits if tallies["split"][s]]
    header = ["---", *_hf_license(tallies["license"])]
    langs = sorted({lang.split("-")[0] for lang in languages})
    if langs:
        header += ["language:"] + [f"- {_yaml_str(x)}" for x in langs]
    header += ["pretty_name: " + _yaml_str(config.dataset_name), "tags:", "- audio", "- conversational",
               "- voice-agent", "configs:", "- config_name: default", "  data_files:"]
    for s in present:
        header += [f"  - split: {s}", f"    path: data/{s}-*"]
    header.append("---")
    total = sum(tallies["split"].values())
    body = [
        f"# {config.dataset_name}", "",
        f"{total} conversations exported from `vakforge.jsonl` (sha256 `{sha}`), split speaker-disjoint "
        "(no agent voice or known customer in two splits; see `splits.json`).", "",
        "## Loading", "",
        "Run from this folder (the audio paths, when not embedded, are relative to it):", "",
        "```python",
        "import datasets, json",
        f"ds = datasets.load_dataset(\"parquet\", data_files={{{', '.join(repr(s) + ': ' + repr(f'data/{s}-*.parquet') for s in present)}}})",  # noqa: E501
        f"row = ds[{present[0]!r}][0]" if present else "row = None",
        "calls = [(t['tool_call']['name'], json.loads(t['tool_call']['arguments']))",
        "         for t in (row['turns'] if row else []) if t['tool_call'] is not None]",
        "ds = ds.cast_column(\"audio\", datasets.Audio())  # decoded on access (torchcodec + FFmpeg);",
        "# without FFmpeg: datasets.Audio(decode=False) gives {bytes, path}, readable with soundfile",
        "```", "",
        "## Fields", "",
        "Same layout as `vakforge.jsonl` (one row per conversation; `turns` is a list of structs) plus `split`; "
        "the record's `audio` metadata is `audio_info`, and `audio` is the Hugging Face Audio feature's "
        + (f"{{bytes, path}} with the recording embedded as a {config.audio_format.upper()} file "
           f"(16-bit{', lossless' if config.audio_format == 'flac' else ''})" if config.embed_audio
           else "{bytes, path} with a path relative to this folder") + ". "
        "Values that are arbitrary JSON are stored as **JSON strings** because Parquet needs one fixed schema: "
        + ", ".join(f"`{c}`" for c in JSON_STRING_COLUMNS) + ".", "",
        "Rows with consent `none` or produced with `skip_redaction` are never exported."
        + (f" Empty splits (no files): {', '.join(s for s in config.splits if s not in present)}."
           if len(present) < len(config.splits) else ""), "",
        "## Counts", "",
        _table("split", tallies["split"]), _table("locale", tallies["locale"]), _table("source", tallies["source"]),
        _table("consent", tallies["consent"]), _table("license", tallies["license"]),
        _table("language", languages),
    ]
    return "\n".join(header) + "\n\n" + "\n".join(body)
