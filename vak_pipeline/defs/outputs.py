"""Outputs: splits (+ blocking leak check), the three recipe exports, Parquet/HF, the steward report.

Thin assets over vak_pipeline.splits / recipes / report. Each export's data version is the manifest
hash combined with its config hash, so exports go stale exactly when the data or the config change.
"""


import importlib
import importlib.util
from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import Field

from vak_pipeline.core.erasure import forget_in_splits
from vak_pipeline.core.issue import Severity
from vak_pipeline.identity import split_links
from vak_pipeline.layout import DataLayout
from vak_pipeline.manifest_hash import manifest_hash
from vak_pipeline.recipes.cascaded import RECIPE_VERSION as CASCADED_VERSION
from vak_pipeline.recipes.cascaded import CascadedConfig
from vak_pipeline.recipes.common import BuildResult, data_version
from vak_pipeline.recipes.duplex_s2s import RECIPE_VERSION as DUPLEX_S2S_VERSION
from vak_pipeline.recipes.duplex_s2s import DuplexS2SConfig
from vak_pipeline.recipes.moshi_lora import RECIPE_VERSION as MOSHI_LORA_VERSION
from vak_pipeline.recipes.moshi_lora import MoshiConfig
from vak_pipeline.recipes.parquet import RECIPE_VERSION as PARQUET_VERSION
from vak_pipeline.recipes.parquet import ParquetConfig
from vak_pipeline.recipes.turn_based import RECIPE_VERSION as TURN_BASED_VERSION
from vak_pipeline.recipes.turn_based import TurnBasedConfig
from vak_pipeline.release import RELEASE_VERSION
from vak_pipeline.report.steward import REPORT_VERSION, ReportSettings
from vak_pipeline.splits import SplitConfig, check_manifest, open_splits, split_manifest
from vak_pipeline.splits.assign import SPLIT_VERSION
from vak_pipeline.storage import sha256_file

from .blocking import block_release_on_failure
from .config import config_class, library_settings
from .failures import os_errors_as_sentences
from .metadata import issues_table
from .quality import QualityOpConfig
from .resources import DataResource

GROUP = "dataset"
HOOKS = {block_release_on_failure}  # a crashed step still blocks the candidate, however it was launched
MAX_ROWS = 50


class SplitsConfig(config_class(SplitConfig)):
    """splits.SplitConfig as run config: speaker-disjoint split settings; assignments already in splits.json
    never move."""


class MoshiLoraConfig(config_class(MoshiConfig)):
    """recipes.moshi_lora.MoshiConfig as run config."""


class TurnBasedExportConfig(config_class(TurnBasedConfig)):
    """recipes.turn_based.TurnBasedConfig as run config."""


class CascadedExportConfig(config_class(CascadedConfig)):
    """recipes.cascaded.CascadedConfig as run config."""


class ParquetExportConfig(config_class(ParquetConfig)):
    """recipes.parquet.ParquetConfig as run config."""


class DuplexS2SExportConfig(config_class(DuplexS2SConfig)):
    """recipes.duplex_s2s.DuplexS2SConfig as run config."""


def _export_result(context: dg.AssetExecutionContext, result: BuildResult,
                   layout: DataLayout) -> dg.MaterializeResult:
    context.log.info(f"{result.recipe}: {result.counts} skipped={sum(result.skipped.values())}")
    return dg.MaterializeResult(
        data_version=dg.DataVersion(result.data_version),
        metadata={
            "manifest_hash": result.manifest_hash,
            "counts": dg.MetadataValue.json(result.counts),
            "skipped": dg.MetadataValue.json(result.skipped),
            "skipped_total": sum(result.skipped.values()),
            "flags": dg.MetadataValue.json(result.flags),
            "path": dg.MetadataValue.path(str(layout.final(result.out_dir))),
            "build_json": dg.MetadataValue.path(str(layout.final(result.build_json))),
            "skipped_report": dg.MetadataValue.path(str(layout.final(result.skipped_path))),
        },
    )


@dg.asset(group_name=GROUP, hooks=HOOKS,
          deps=[dg.AssetKey("validated_manifest")], kinds={"json"}, code_version=SPLIT_VERSION,
          description="splits.json: speaker-disjoint, seeded, stable train/validation/test by conversation id.")
@os_errors_as_sentences
def splits(context: dg.AssetExecutionContext, config: SplitsConfig, data: DataResource) -> dg.MaterializeResult:
    layout = data.layout.candidate()
    lib_config = library_settings(config, SplitConfig)
    with split_links(layout.content_index) as links:  # duplicate groups land in one split
        result, issues = split_manifest(layout.manifest, layout.splits, lib_config, links=links,
                                        forget=forget_in_splits(layout.root), cache=layout.split_rows)
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
            "path": dg.MetadataValue.path(str(layout.final(layout.splits))),
        },
    )


@dg.asset_check(asset=splits, blocking=False,  # the release step decides (it reads the same splits.json)
                description="Every manifest conversation is assigned (or explicitly held out) and no speaker is "
                            "in two splits.")
def splits_complete_and_leak_free(data: DataResource) -> dg.AssetCheckResult:
    layout = data.layout.candidate()
    current = open_splits(layout.splits)
    if current is None:
        return dg.AssetCheckResult(passed=False, severity=dg.AssetCheckSeverity.ERROR,
                                   metadata={"error": "splits.json does not exist"})
    with current:
        issues = check_manifest(layout.manifest, current, layout.split_rows)
        built_from = current.header.manifest_hash
    errors = [i for i in issues if i.severity == Severity.ERROR]
    by_code: dict[str, int] = {}
    for i in issues:
        by_code[i.code] = by_code.get(i.code, 0) + 1
    table = issues_table(issues, MAX_ROWS)
    stale = built_from != manifest_hash(layout.manifest)
    return dg.AssetCheckResult(
        passed=not errors, severity=dg.AssetCheckSeverity.ERROR,
        metadata={"errors": len(errors), "warnings": len(issues) - len(errors),
                  "issues_by_code": dg.MetadataValue.json(by_code), "issues": table,
                  "splits_built_from_other_manifest": stale,
                  "release": "blocked: the release step keeps the published release" if errors else "not blocked",
                  "path": dg.MetadataValue.path(str(layout.final(layout.splits)))},
    )


def _export_asset(name: str, export: str, config_cls: type, settings_cls: type, version: str, kinds: set[str],
                  description: str, needs: str | None = None) -> dg.AssetsDefinition:
    """One export asset: the recipe function `export` (`module:function`, looked up when the step runs) on the
    candidate with its run config, the same way for every recipe. `needs`: a package the recipe cannot work
    without; where it is not installed the asset says so and builds nothing, instead of failing the run."""
    module, function = export.split(":")

    def build(context: dg.AssetExecutionContext, config: config_cls, data: DataResource) -> dg.MaterializeResult:
        if needs is not None and importlib.util.find_spec(needs) is None:
            why = f"{needs} is not installed: pip install 'vak_pipeline[nemo]'"
            context.log.warning(f"{name} not built: {why}")
            return dg.MaterializeResult(metadata={"built": False, "why": why})
        layout = data.layout.candidate()
        run_recipe = getattr(importlib.import_module(module), function)
        return _export_result(context, run_recipe(layout, library_settings(config, settings_cls)), layout)

    build.__name__ = name  # what a failure's sentence names ("running <name>")
    return dg.asset(name=name, group_name=GROUP, hooks=HOOKS, deps=[splits], code_version=version, kinds=kinds,
                    description=description)(os_errors_as_sentences(build))


moshi_lora = _export_asset(
    "moshi_lora", "vak_pipeline.recipes.moshi_lora:export_moshi_lora",
    MoshiLoraConfig, MoshiConfig, MOSHI_LORA_VERSION, {"wav", "jsonl"},
    "kyutai moshi-finetune layout: stereo WAV (agent left), word alignments, index per split.")
turn_based = _export_asset(
    "turn_based", "vak_pipeline.recipes.turn_based:export_turn_based",
    TurnBasedExportConfig, TurnBasedConfig, TURN_BASED_VERSION, {"wav", "jsonl"},
    "Turn-based speech-LLM set: messages + audios (LLaMA-Factory / ms-swift), OpenAI tool calls.")
cascaded = _export_asset(
    "cascaded", "vak_pipeline.recipes.cascaded:export_cascaded",
    CascadedExportConfig, CascadedConfig, CASCADED_VERSION, {"wav", "jsonl", "csv"},
    "Cascaded sets: NeMo STT manifest, OpenAI chat fine-tuning JSONL, LJSpeech/Piper TTS per voice.")
parquet_export = _export_asset(
    "parquet_export", "vak_pipeline.recipes.parquet:export_parquet",
    ParquetExportConfig, ParquetConfig, PARQUET_VERSION, {"parquet"},
    "The manifest as Parquet shards per split with a Hugging Face dataset card.")
duplex_s2s = _export_asset(
    "duplex_s2s", "vak_pipeline.recipes.duplex_s2s:export_duplex_s2s",
    DuplexS2SExportConfig, DuplexS2SConfig, DUPLEX_S2S_VERSION, {"wav", "jsonl"},
    "NeMo speechlm2 DuplexS2S: Lhotse Shar per split (user audio = recording, agent audio = custom target_audio, "
    "turns as user/assistant supervisions) and the NeMo data block.", needs="lhotse")


def _file_hash(path: Path) -> str:
    return sha256_file(path) if path.exists() else "-"


class StewardReportConfig(QualityOpConfig):
    """The quality thresholds plus where the page's Dagster UI links point (`dagster_url`)."""

    dagster_url: str = Field(default_factory=lambda: ReportSettings().dagster_url,
                             description=ReportSettings.model_fields["dagster_url"].description)


@dg.asset(group_name=GROUP, hooks=HOOKS,
          deps=[dg.AssetKey("validated_manifest"), splits], kinds={"html"},
          code_version=REPORT_VERSION,
          description="Steward report: whether this release is live (or blocked, and why), what changed since the "
                      "previous release, warnings on what may be trained on, then the funnel per upload with every "
                      "dropped file and rejected row (uploaded file, line, fix), quality per recording, turn-taking "
                      "per split and locale, counts; HTML with PNG charts plus `report.json`.")
@os_errors_as_sentences
def steward_report(context: dg.AssetExecutionContext, config: StewardReportConfig,
                   data: DataResource) -> dg.MaterializeResult:
    from .steward import steward_report_result

    layout = data.layout.candidate()
    inputs: dict[str, Any] = {"splits": _file_hash(layout.splits), "rejected": _file_hash(layout.rejected)}
    return steward_report_result(context, layout, config.quality.thresholds(), inputs, config.dagster_url)


EXPORTS = (moshi_lora, turn_based, cascaded, parquet_export, duplex_s2s)


@dg.asset(group_name=GROUP, hooks=HOOKS,
          deps=[splits, *EXPORTS, steward_report], kinds={"json"}, code_version=RELEASE_VERSION,
          output_required=False,
          description="Decides, whatever launched the run: swaps the candidate (manifest, schema, splits, reports, "
                      "exports) into `data/` whole, or, when a blocking check failed, keeps the published release, "
                      "writes the candidate's `verdict.json` and its BLOCKED steward report (kept in "
                      "`work/.release-blocked/`), and tells the published report. A block is a log line, not a "
                      "failure; an export that failed stops the run before this step (the job's hook blocks then).")
@os_errors_as_sentences
def release(context: dg.AssetExecutionContext, data: DataResource):
    from vak_pipeline.release import promote
    from vak_pipeline.report.decision import block_candidate, block_sentence, blocking_causes
    from vak_pipeline.report.freshness import mark_published
    from vak_pipeline.report.steward import render_page

    from .versions import job_code

    layout = data.layout
    cand = layout.candidate()
    causes = blocking_causes(cand)
    if causes:
        verdict = block_candidate(layout, [c.sentence() for c in causes], causes, run_id=context.run.run_id)
        context.log.error(block_sentence(verdict, layout))
        context.log_event(dg.AssetObservation(asset_key="release", metadata={
            "verdict": "blocked", "causes": dg.MetadataValue.json(verdict.causes),
            "blocked_report": dg.MetadataValue.path(str((layout.root / verdict.kept_at / "steward" / "index.html")
                                                        .resolve())) if verdict.kept_at else "",
            "verdict_json": dg.MetadataValue.path(str((layout.root / verdict.kept_at / "verdict.json").resolve()))
            if verdict.kept_at else ""}))
        return
    sha = manifest_hash(cand.manifest)
    items = promote(layout, sha, run_id=context.run.run_id)
    # "already published" is one answer, whoever launched this run (vak run, the sensor, the UI)
    mark_published(layout, job_code(context.job_def), context.run.run_config, context.run.run_id)
    if layout.steward_dir.joinpath("page.json").is_file():
        render_page(layout)  # the published page now says LIVE, with this run
    context.log.info(f"released manifest {sha[:12]}: {', '.join(items)}")
    yield dg.MaterializeResult(data_version=dg.DataVersion(sha),
                               metadata={"manifest_hash": sha, "items": dg.MetadataValue.json(items),
                                         "steward_report": dg.MetadataValue.path(str(layout.steward_html.resolve())),
                                         "path": dg.MetadataValue.path(str(layout.root.resolve()))})
