"""Every table in asset and check metadata comes from one builder: same cells, types and cap everywhere."""

from dataclasses import dataclass
from enum import Enum

from vak_pipeline.core.issue import Issue, Severity
from vak_pipeline.defs.metadata import ISSUE_COLUMNS, issues_table, rows_table


class Stage(Enum):
    REDACTED = "redacted"


@dataclass
class Drop:
    file: str
    line: int | None
    stage: Stage
    hours: float | None


def test_rows_are_mappings_or_objects_read_by_attribute() -> None:
    rows = [Drop("a.jsonl", 3, Stage.REDACTED, 0.5), {"file": "b.wav", "line": "7", "stage": None, "hours": None}]
    table = rows_table(rows, ("file", "line", "stage", "hours"), int_columns=("line",), float_columns=("hours",))
    cells = [r.data for r in table.value.records]
    assert cells == [
        {"file": "a.jsonl", "line": 3, "stage": "redacted", "hours": 0.5},
        {"file": "b.wav", "line": 7, "stage": "", "hours": None},
    ]
    types = {c.name: c.type for c in table.value.schema.columns}
    assert types == {"file": "string", "line": "int", "stage": "string", "hours": "float"}


def test_a_table_shows_at_most_cap_rows_and_reads_lazily() -> None:
    def endless():
        n = 0
        while True:
            n += 1
            yield {"file": f"f{n}"}

    table = rows_table(endless(), ("file",), cap=3)
    assert [r.data["file"] for r in table.value.records] == ["f1", "f2", "f3"]


def test_issue_tables_have_the_same_columns_for_objects_and_report_rows() -> None:
    issue = Issue(severity=Severity.ERROR, code="bad_json", message="line is not JSON", file="u/x.jsonl", line=4,
                  fix="repair the line")
    from_object = issues_table([issue]).value
    from_row = issues_table([issue.model_dump(mode="json")]).value
    assert [c.name for c in from_object.schema.columns] == list(ISSUE_COLUMNS)
    assert from_object.records[0].data == from_row.records[0].data
    assert from_object.records[0].data["line"] == 4
