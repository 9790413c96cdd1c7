"""The duplicate check of validated_manifest: a delivery that is mostly copies of earlier ones is a WARN."""

import json

import dagster as dg

from vak_pipeline.identity import IdentitySettings

from .metadata import rows_table
from .resources import DataResource


@dg.asset_check(asset="validated_manifest", blocking=False,
                description="Duplicate conversations left out by content (exact or near audio, exact or near text), "
                            "per pair of uploads; WARN when a delivery is mostly duplicates.")
def duplicates(data: DataResource) -> dg.AssetCheckResult:
    layout = data.layout.candidate()
    try:
        summary = json.loads(layout.duplicates_report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        summary = {"duplicates": 0, "groups": [], "by_upload": {}}
    share = summary.get("mostly_duplicates_share", IdentitySettings().mostly_duplicates)
    mostly = sorted(u for u, c in summary["by_upload"].items()
                    if c["records"] and c["duplicates"] / c["records"] >= share)
    return dg.AssetCheckResult(
        passed=not mostly,
        severity=dg.AssetCheckSeverity.WARN,
        description=(f"upload(s) {', '.join(mostly)} are mostly duplicates of earlier deliveries" if mostly
                     else f"{summary['duplicates']} duplicate(s) left out"),
        metadata={"duplicates": summary["duplicates"],
                  "groups": rows_table(summary["groups"], ("kept_upload", "upload", "kind", "copies", "hours"),
                                       int_columns=("copies",), float_columns=("hours",)),
                  "mostly_duplicates": dg.MetadataValue.json(mostly),
                  "report": dg.MetadataValue.path(str(layout.final(layout.duplicates_report)))},
    )
