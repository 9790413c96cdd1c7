"""validated_manifest: every upload's redacted records, validated by the format's rules, as vakforge.jsonl."""


import dagster as dg

from vak_pipeline.identity import IdentitySettings
from vak_pipeline.release import begin_candidate

# structural and provenance failures stop the release (report.decision reads them); the rest notify the steward
from vak_pipeline.report.decision import BLOCKING_FAMILIES
from vak_pipeline.rules.publish import FAMILIES, PUBLISH_VERSION, family_rows, publish_manifest

from .blocking import block_release_on_failure
from .config import library_settings
from .failures import os_errors_as_sentences
from .metadata import issues_table
from .quality import QualityOpConfig
from .resources import DataResource


@dg.asset(
    group_name="dataset",
    deps=[dg.AssetKey("synth")],  # synth passes every redacted record on
    kinds={"jsonl"},
    code_version=PUBLISH_VERSION,
    hooks={block_release_on_failure},
    description="vakforge.jsonl of the next release (work/.release-candidate/ until `release` swaps it in): valid "
                "records only, JSON Schema beside it, rejected rows with reasons.",
)
@os_errors_as_sentences
def validated_manifest(context: dg.AssetExecutionContext, config: QualityOpConfig,
                       data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.quality.recordings import quality_rules

    layout = begin_candidate(data.layout)  # a fresh candidate; the published release is not touched
    inputs = [layout.manifest_input(u) for u in layout.uploads() if layout.manifest_input(u).is_file()]
    result = publish_manifest(layout, inputs, extra_rules=quality_rules(layout, config.quality.thresholds()),
                              identity=library_settings(config.identity, IdentitySettings))
    dup_note = f" ({result.duplicates} duplicates of earlier deliveries left out)" if result.duplicates else ""
    context.log.info(f"{result.valid} valid, {result.rejected} rejected of {result.records_in} records{dup_note}")
    top = dict(result.issues_by_code.most_common(20))
    return dg.MaterializeResult(
        data_version=dg.DataVersion(result.manifest_sha256),
        metadata={
            "manifest_sha256": result.manifest_sha256,
            "dagster/row_count": result.valid,
            "records_in": result.records_in,
            "rejected": result.rejected,
            "duplicates": result.duplicates,
            "warnings": result.warnings,
            "rules_checked": result.rules_checked,  # records whose rules ran; the rest were unchanged (rules.cache)
            "rules_reused": result.rules_reused,
            "issues_by_code": dg.MetadataValue.json(top),
            "manifest": dg.MetadataValue.path(str(layout.final(layout.manifest))),
            "rejected_report": dg.MetadataValue.path(str(layout.final(layout.rejected))),
            "schema": dg.MetadataValue.path(str(layout.final(layout.schema))),
            "inputs": dg.MetadataValue.json([str(p) for p in inputs]),
        },
    )


@dg.multi_asset_check(
    specs=[
        # not blocking in Dagster terms: the `release` step reads the same report and decides (so a block still
        # gets its verdict and BLOCKED report, and no step downstream is skipped)
        dg.AssetCheckSpec(f"rules_{fam}", asset="validated_manifest", blocking=False,
                          description=f"Rows that broke a {fam} rule of the vakforge format.")
        for fam in FAMILIES
    ],
)
def manifest_rule_checks(data: DataResource):
    """One check per rule family: failing rows as a capped table plus the path of the full report.

    A failing check of a blocking family stops the release (the `release` step decides): the published
    release stays, the candidate gets its verdict and BLOCKED report."""
    layout = data.layout.candidate()
    report = layout.validation_report
    for fam in FAMILIES:
        errors, warnings, rows = family_rows(report, fam)
        # a family whose rule rejected rows fails as ERROR (the rows are out of the dataset), blocking or not;
        # warnings alone never fail a check
        severity = dg.AssetCheckSeverity.ERROR if errors or fam in BLOCKING_FAMILIES else dg.AssetCheckSeverity.WARN
        table = issues_table(rows, cap=len(rows))
        yield dg.AssetCheckResult(
            check_name=f"rules_{fam}",
            asset_key="validated_manifest",
            passed=errors == 0,
            severity=severity,
            metadata={"errors": errors, "warnings": warnings,
                      "failing_rows": table, "failing_rows_shown": f"{len(rows)} of {errors + warnings}",
                      "release": ("blocks the release: the published release stays as it was" if errors and
                                  fam in BLOCKING_FAMILIES else "not blocked by this check"),
                      # where the files are once `release` swaps the candidate in (the candidate folder goes)
                      "full_report": dg.MetadataValue.path(str(layout.final(report))),
                      "rejected_rows": dg.MetadataValue.path(str(layout.final(layout.rejected)))},
        )
