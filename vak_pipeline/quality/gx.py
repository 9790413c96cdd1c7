"""Run a Great Expectations 1.x suite over a pandas DataFrame and get plain result rows back.

Generic on purpose: any stage builds a table (inspection metrics, turns, ...) and a list of
`ExpectationSpec`s, calls `run_suite`, and maps the failing row indexes back to its own ids with
`failing_rows`. GX runs with an ephemeral context and the whole frame as one batch (GX Core directly; the
dagster-ge integration does not support GX 1.x). GX is imported lazily: it takes seconds to import.
Cell values are only echoed for numeric columns, so a suite over text never copies text into a report.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class ExpectationSpec:
    """One expectation: the GX class name, its kwargs, and a short name a steward can read."""

    type: str  # e.g. "ExpectColumnValuesToBeBetween" (great_expectations.expectations.<type>)
    kwargs: dict[str, Any] = field(default_factory=dict)
    name: str | None = None  # e.g. "sample_rate == 24000"; defaults to type + column

    @property
    def label(self) -> str:
        col = self.kwargs.get("column")
        return self.name or (f"{self.type}({col})" if col else self.type)


class ExpectationOutcome(BaseModel):
    """The result of one expectation over the table."""

    name: str
    expectation: str  # GX snake_case type, e.g. expect_column_values_to_be_between
    column: str | None = None
    success: bool
    element_count: int = 0
    unexpected_count: int = 0
    unexpected_index: list[int] = Field(default_factory=list)  # row positions of the frame passed in
    observed_value: Any = None  # for aggregate expectations (row count, mean ...), when GX reports one


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def run_suite(df: pd.DataFrame, expectations: list[ExpectationSpec], name: str = "suite") -> list[ExpectationOutcome]:
    """Validate `df` against `expectations`; one outcome per expectation, in order.

    An empty frame passes every column-value expectation without starting GX (nothing to check).
    """
    if not expectations:
        return []
    frame = df.reset_index(drop=True)
    if len(frame) == 0 and all(e.type.startswith("ExpectColumnValues") for e in expectations):
        return [ExpectationOutcome(name=e.label, expectation=_snake(e.type), column=e.kwargs.get("column"),
                                   success=True) for e in expectations]
    import great_expectations as gx
    import great_expectations.expectations as gxe
    from great_expectations.data_context.types.base import ProgressBarsConfig

    logging.getLogger("great_expectations").setLevel(logging.WARNING)
    ctx = gx.get_context(mode="ephemeral")
    ctx.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
    batch_def = (ctx.data_sources.add_pandas("frame").add_dataframe_asset(name)
                 .add_batch_definition_whole_dataframe("whole"))
    built = []
    for spec in expectations:
        cls = getattr(gxe, spec.type, None)
        if cls is None:
            raise ValueError(f"unknown Great Expectations expectation {spec.type!r}")
        built.append(cls(**spec.kwargs))
    suite = ctx.suites.add(gx.ExpectationSuite(name=name, expectations=built))
    res = batch_def.get_batch(batch_parameters={"dataframe": frame}).validate(suite, result_format="COMPLETE")
    outcomes = []
    for spec, r in zip(expectations, res.results, strict=True):
        result = r.result or {}
        outcomes.append(ExpectationOutcome(
            name=spec.label, expectation=r.expectation_config.type, column=spec.kwargs.get("column"),
            success=bool(r.success), element_count=int(result.get("element_count") or len(frame)),
            unexpected_count=int(result.get("unexpected_count") or 0),
            unexpected_index=[int(i) for i in result.get("unexpected_index_list") or []],
            observed_value=_plain(result.get("observed_value"))))
    return outcomes


def _plain(v: Any) -> Any:
    if v is None or isinstance(v, str | int | float | bool):
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)


def failing_rows(df: pd.DataFrame, outcomes: list[ExpectationOutcome], id_columns: list[str]) -> list[dict[str, Any]]:
    """One dict per failing table row: its id columns and `failed` ("name (column=value); ...").

    Values are shown for numeric columns only (never text).
    """
    import pandas as pd

    frame = df.reset_index(drop=True)
    by_row: dict[int, list[str]] = {}
    for o in outcomes:
        if o.success:
            continue
        for i in o.unexpected_index:
            if not 0 <= i < len(frame):
                continue
            what = o.name
            if o.column and o.column in frame.columns and pd.api.types.is_numeric_dtype(frame[o.column]):
                what += f" ({o.column}={frame.at[i, o.column]:g})"
            by_row.setdefault(i, []).append(what)
    return [{**{c: frame.at[i, c] for c in id_columns}, "failed": "; ".join(by_row[i])} for i in sorted(by_row)]
