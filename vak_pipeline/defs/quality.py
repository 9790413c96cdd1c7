"""The Dagster side of vak_pipeline.quality (thin): the quality thresholds as config, the GX check factory.

The steward's quality thresholds are Dagster config of validated_manifest (exclusion) and steward_report.

Fields and defaults are derived from the library's `QualityThresholds` (a pydantic settings model whose
defaults honour VAK_QUALITY_* at load time), so each threshold is defined once; set the environment
variables to change both assets at once, or override one run:
RunConfig(ops={"validated_manifest": {"config": {"quality": {"exclude": ["snr_db"]}}}}).
"""

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import create_model

from vak_pipeline.identity import IdentitySettings
from vak_pipeline.quality.recordings import QualityThresholds

from .config import config_class, library_settings
from .metadata import ISSUES_CAP, rows_table
from .partitions import uploads_partitions
from .resources import DataResource


def _fields() -> dict:
    defaults = QualityThresholds()
    return {name: (f.annotation, getattr(defaults, name)) for name, f in QualityThresholds.model_fields.items()}


_QualityBase = create_model("_QualityBase", __base__=dg.Config, **_fields())


class QualityConfig(_QualityBase):
    """Quality thresholds per recording; `exclude` names the metrics whose flag leaves a recording out."""

    def thresholds(self) -> QualityThresholds:
        return QualityThresholds(**{k: getattr(self, k) for k in QualityThresholds.model_fields})


IdentityConfig = config_class(IdentitySettings)


class QualityOpConfig(dg.Config):
    quality: QualityConfig = QualityConfig()
    identity: IdentityConfig = IdentityConfig()  # type: ignore[valid-type]  # duplicates across deliveries


# One factory for the per-upload Great Expectations checks (audio bounds, turn bounds): WARN results, one
# per rule, with the failing rows as a capped table. The suites themselves are in vak_pipeline.quality.
# (upload, library settings, layout) -> (the suite's verdicts, the file the rows come from)
Evaluate = Callable[[str, Any, Any], tuple[Iterable[Any], Path]]


def _observed(value: Any) -> dg.MetadataValue:
    """GX's observed value of an aggregate expectation (e.g. the overlap rate) as metadata."""
    if isinstance(value, bool) or value is None:
        return dg.MetadataValue.null() if value is None else dg.MetadataValue.bool(value)
    if isinstance(value, int | float):
        return dg.MetadataValue.float(float(value))
    return dg.MetadataValue.text(str(value))


def gx_checks(name: str, asset: dg.AssetsDefinition, rules: Iterable[str], config_cls: type[dg.Config],
              settings_cls: type, evaluate: Evaluate, table: str, columns: tuple[str, ...],
              int_columns: tuple[str, ...] = (), what: str = "") -> dg.AssetChecksDefinition:
    """A partitioned multi-asset check `name` over `asset`: `evaluate` runs the suite with the library settings
    built from `config_cls`; each rule's verdict (name, passed, checked, failing rows, observed) is one result."""
    specs = [dg.AssetCheckSpec(rule, asset=asset, partitions_def=uploads_partitions, blocking=False,
                               description=f"Great Expectations{what}: {rule} (WARN)") for rule in rules]

    def check(context: dg.AssetCheckExecutionContext, config, data: DataResource):
        verdicts, source = evaluate(context.partition_key, library_settings(config, settings_cls), data.layout)
        for chk in verdicts:
            yield dg.AssetCheckResult(
                check_name=chk.name, asset_key=asset.key, passed=chk.passed, severity=dg.AssetCheckSeverity.WARN,
                metadata={"checked": chk.checked, "failing": len(chk.failing),
                          "observed": _observed(getattr(chk, "observed", None)),
                          table: rows_table(chk.failing, columns, ISSUES_CAP, int_columns=int_columns),
                          "source": dg.MetadataValue.path(str(source))})

    check.__annotations__["config"] = config_cls  # Dagster reads the run config schema from this annotation
    check.__doc__ = f"The {name} suite over the upload; one WARN result per rule with the failing rows."
    return dg.multi_asset_check(specs=specs, name=name)(check)
