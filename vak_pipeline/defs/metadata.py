"""The one builder of table metadata: issue tables (every stage's and check's `Issue`s, same columns) and
the capped row tables of the GX checks. Values are types, codes and positions, never PII values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Any

import dagster as dg

from vak_pipeline.core.issue import Issue

ISSUES_CAP = 50  # rows shown in the UI; the full list is in the report file the metadata links to
ISSUE_COLUMNS = ("severity", "code", "file", "line", "record_id", "turn_index", "field", "message", "fix")
_INT_COLUMNS = frozenset({"line", "turn_index"})


def rows_table(
    rows: Iterable[Any],
    columns: Iterable[str],
    cap: int = ISSUES_CAP,
    int_columns: Iterable[str] = (),
    float_columns: Iterable[str] = (),
) -> dg.MetadataValue:
    """A table of at most `cap` rows (mappings, or objects read by attribute) with the named columns.

    Missing values are '' in string columns and None in number columns; enums show their value."""
    cols = tuple(columns)
    ints, floats = frozenset(int_columns), frozenset(float_columns)
    records = []
    for row in islice(rows, cap):
        cells: dict[str, Any] = {}
        for c in cols:
            v = row.get(c) if isinstance(row, Mapping) else getattr(row, c, None)
            if c in ints:
                cells[c] = int(v) if isinstance(v, int | float) or (isinstance(v, str) and v.isdigit()) else None
            elif c in floats:
                cells[c] = float(v) if isinstance(v, int | float) else None
            else:
                cells[c] = "" if v is None else str(v.value if hasattr(v, "value") else v)
        records.append(dg.TableRecord(cells))
    kind = {**dict.fromkeys(ints, "int"), **dict.fromkeys(floats, "float")}
    schema = dg.TableSchema(columns=[dg.TableColumn(c, kind.get(c, "string")) for c in cols])
    return dg.MetadataValue.table(records=records, schema=schema)


def issues_table(issues: Iterable[Issue | Mapping[str, Any]], cap: int = ISSUES_CAP) -> dg.MetadataValue:
    """Issues (objects, or rows of a report file) as one table with the same columns everywhere."""
    rows = (i.model_dump(mode="json") if isinstance(i, Issue) else i for i in issues)
    return rows_table(rows, ISSUE_COLUMNS, cap, _INT_COLUMNS)
