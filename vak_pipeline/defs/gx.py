"""One factory for the per-upload Great Expectations checks (audio bounds, turn bounds): WARN results, one
per rule, with the failing rows as a capped table. The suites themselves are in the library."""

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import dagster as dg

from .config import library_settings
from .metadata import ISSUES_CAP, rows_table
from .partitions import uploads_partitions
from .resources import DataResource

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
