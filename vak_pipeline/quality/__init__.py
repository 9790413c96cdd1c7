"""Table-level data quality: Great Expectations suites run over small pandas tables (no Dagster here)."""

from .gx import ExpectationOutcome, ExpectationSpec, failing_rows, run_suite

__all__ = ["ExpectationOutcome", "ExpectationSpec", "failing_rows", "run_suite"]
