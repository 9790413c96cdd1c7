"""Outputs: splits (+ blocking leak check), the three recipe exports, Parquet/HF, the steward report.

Thin assets over vak_pipeline.splits / recipes / report. Each export's data version is the manifest
hash combined with its config hash, so exports go stale exactly when the data or the config change.
"""


import hashlib
from pathlib import Path
from typing import Any

import dagster as dg

from vak_pipeline.core.issue import Severity
from vak_pipeline.manifest_hash import manifest_hash
from vak_pipeline.recipes.common import BuildResult, data_version
from vak_pipeline.splits import SplitConfig, check_splits, iter_summaries, open_splits, split_manifest
from vak_pipeline.storage import sha256_file

from .resources import DataResource

GROUP = "dataset"
MAX_ROWS = 50


class SplitsConfig(dg.Config):
    """Speaker-disjoint split settings; assignments already in splits.json never move."""

    seed: int = 1234
    ratios: dict[str, float] = {"train": 0.8, "validation": 0.1, "test": 0.1}
    roles: list[str] = ["agent", "user"]


class MoshiLoraConfig(dg.Config):
    user_words: bool = True
    allow_synthetic_stereo: bool = False
    placeholder_words: str = "drop"  # drop | keep
    splits: list[str] = ["train", "validation", "test"]
    workers: int = 1  # processes over shards of the manifest (0 = one per core); same output


class TurnBasedExportConfig(dg.Config):
    overlap_policy: str = "drop"  # drop | merge
    assistant_audio: bool = True
    leading_assistant: str = "drop"  # drop | placeholder
    placeholder_text: str = "(call connected)"
    min_clip_s: float = 0.05
    absolute_paths: bool = False
    splits: list[str] = ["train", "validation", "test"]
    workers: int = 1  # processes over shards of the manifest (0 = one per core); same output


class CascadedExportConfig(dg.Config):
    parts: list[str] = ["stt", "llm", "tts"]
    splits: list[str] = ["train", "validation", "test"]
    tts_splits: list[str] = ["train"]
    placeholder_turns: str = "drop"  # drop | keep
    drop_overlapping_mono: bool = True
    leading_assistant: str = "drop"
    placeholder_text: str = "(call connected)"
    min_clip_s: float = 0.05
    workers: int = 1  # processes over shards of the manifest (0 = one per core); same output


class ParquetExportConfig(dg.Config):
    embed_audio: bool = False
    rows_per_file: int = 100_000
    batch_size: int = 1000
    splits: list[str] = ["train", "validation", "test"]
    dataset_name: str = "vakforge"
    workers: int = 1  # processes over shards of the manifest (0 = one per core); same rows, same order


def _export_result(context: dg.AssetExecutionContext, result: BuildResult) -> dg.MaterializeResult:
    context.log.info(f"{result.recipe}: {result.counts} skipped={sum(result.skipped.values())}")
    return dg.MaterializeResult(
        data_version=dg.DataVersion(result.data_version),
        metadata={
            "manifest_hash": result.manifest_hash,
            "counts": dg.MetadataValue.json(result.counts),
            "skipped": dg.MetadataValue.json(result.skipped),
            "skipped_total": sum(result.skipped.values()),
            "flags": dg.MetadataValue.json(result.flags),
            "path": dg.MetadataValue.path(str(result.out_dir.resolve())),
            "build_json": dg.MetadataValue.path(str(result.build_json.resolve())),
            "skipped_report": dg.MetadataValue.path(str((result.out_dir / "skipped.jsonl").resolve())),
        },
    )


@dg.asset(group_name=GROUP, deps=[dg.AssetKey("validated_manifest")], kinds={"json"},
          description="splits.json: speaker-disjoint, seeded, stable train/validation/test by conversation id.")
def splits(context: dg.AssetExecutionContext, config: SplitsConfig, data: DataResource) -> dg.MaterializeResult:
    layout = data.layout
    lib_config = SplitConfig(seed=config.seed, ratios=dict(config.ratios), roles=list(config.roles))
    result, issues = split_manifest(layout.manifest, layout.splits, lib_config)
    for w in result.warnings:
        context.log.warning(w)
    return dg.MaterializeResult(
        data_version=dg.DataVersion(data_version(result.manifest_hash or "", lib_config)),
        metadata={
            "manifest_hash": result.manifest_hash,
            "seed": result.seed,
            "counts": dg.MetadataValue.json(result.counts),
            "held_out": result.counts.get("held_out", 0),
            "conflicts": len(result.conflicts),
            "warnings": dg.MetadataValue.json(result.warnings[:MAX_ROWS]),
            "issues": len(issues),
            "path": dg.MetadataValue.path(str(layout.splits.resolve())),
        },
    )


_ISSUE_COLUMNS = ("severity", "code", "record_id", "field", "message")


@dg.asset_check(asset=splits, blocking=True,
                description="Every manifest conversation is assigned (or explicitly held out) and no speaker is "
                            "in two splits.")
def splits_complete_and_leak_free(data: DataResource) -> dg.AssetCheckResult:
    layout = data.layout
    current = open_splits(layout.splits)
    if current is None:
        return dg.AssetCheckResult(passed=False, severity=dg.AssetCheckSeverity.ERROR,
                                   metadata={"error": "splits.json does not exist"})
    with current:
        issues = check_splits(iter_summaries(layout.manifest), current)
        built_from = current.header.manifest_hash
    errors = [i for i in issues if i.severity == Severity.ERROR]
    by_code: dict[str, int] = {}
    for i in issues:
        by_code[i.code] = by_code.get(i.code, 0) + 1
    table = dg.MetadataValue.table(
        records=[dg.TableRecord({c: str(getattr(i, c).value if c == "severity" else getattr(i, c) or "")
                                 for c in _ISSUE_COLUMNS}) for i in issues[:MAX_ROWS]],
        schema=dg.TableSchema(columns=[dg.TableColumn(c, "string") for c in _ISSUE_COLUMNS]),
    )
    stale = built_from != manifest_hash(layout.manifest)
    return dg.AssetCheckResult(
        passed=not errors, severity=dg.AssetCheckSeverity.ERROR,
        metadata={"errors": len(errors), "warnings": len(issues) - len(errors),
                  "issues_by_code": dg.MetadataValue.json(by_code), "issues": table,
                  "splits_built_from_other_manifest": stale,
                  "path": dg.MetadataValue.path(str(layout.splits.resolve()))},
    )


@dg.asset(group_name=GROUP, deps=[splits], kinds={"wav", "jsonl"},
          description="kyutai moshi-finetune layout: stereo WAV (agent left), word alignments, index per split.")
def moshi_lora(context: dg.AssetExecutionContext, config: MoshiLoraConfig, data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.recipes.moshi_lora import MoshiConfig, export_moshi_lora

    return _export_result(context, export_moshi_lora(data.layout.root, MoshiConfig(**config.model_dump())))


@dg.asset(group_name=GROUP, deps=[splits], kinds={"wav", "jsonl"},
          description="Turn-based speech-LLM set: messages + audios (LLaMA-Factory / ms-swift), OpenAI tool calls.")
def turn_based(context: dg.AssetExecutionContext, config: TurnBasedExportConfig,
               data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.recipes.turn_based import TurnBasedConfig, export_turn_based

    return _export_result(context, export_turn_based(data.layout.root, TurnBasedConfig(**config.model_dump())))


@dg.asset(group_name=GROUP, deps=[splits], kinds={"wav", "jsonl", "csv"},
          description="Cascaded sets: NeMo STT manifest, OpenAI chat fine-tuning JSONL, LJSpeech/Piper TTS per voice.")
def cascaded(context: dg.AssetExecutionContext, config: CascadedExportConfig,
             data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.recipes.cascaded import CascadedConfig, export_cascaded

    return _export_result(context, export_cascaded(data.layout.root, CascadedConfig(**config.model_dump())))


@dg.asset(group_name=GROUP, deps=[splits], kinds={"parquet"},
          description="The manifest as Parquet shards per split with a Hugging Face dataset card.")
def parquet_export(context: dg.AssetExecutionContext, config: ParquetExportConfig,
                   data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.recipes.parquet import ParquetConfig, export_parquet

    return _export_result(context, export_parquet(data.layout.root, ParquetConfig(**config.model_dump())))


def _file_hash(path: Path) -> str:
    return sha256_file(path) if path.exists() else "-"


@dg.asset(group_name=GROUP, deps=[dg.AssetKey("validated_manifest"), splits], kinds={"html"},
          description="Steward report: counts, rejected rows by rule, redactions by type, durations, language mix.")
def steward_report(context: dg.AssetExecutionContext, data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.report.steward import build_steward_report, summary_markdown

    layout = data.layout
    report = build_steward_report(layout.root)
    s = report.summary
    inputs: dict[str, Any] = {"splits": _file_hash(layout.splits), "rejected": _file_hash(layout.rejected)}
    version = hashlib.sha256(f"{s.manifest_hash}:{sorted(inputs.items())}".encode()).hexdigest()
    html_path = report.html.resolve()
    return dg.MaterializeResult(
        data_version=dg.DataVersion(version),
        metadata={
            "manifest_hash": s.manifest_hash,
            "report_url": dg.MetadataValue.url(html_path.as_uri()),
            "report_path": dg.MetadataValue.path(str(html_path)),
            "markdown": dg.MetadataValue.path(str(report.markdown.resolve())),
            "summary": dg.MetadataValue.md(summary_markdown(s)),
            "conversations": s.conversations,
            "rejected_rows": s.rejected_rows,
            "redactions_by_type": dg.MetadataValue.json(dict(s.redactions_by_type)),
        },
    )
