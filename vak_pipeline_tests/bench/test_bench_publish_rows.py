"""bench_publish in the e2e corpus's shape: a row per publish step (the steward report included), wall and CPU
totals, each against the first publish of the same data directory."""

from __future__ import annotations

import pytest


@pytest.mark.timeout(300)
def test_the_publish_bench_prints_every_step_and_both_totals_against_the_first_publish():
    from bench import bench_publish

    rows = bench_publish.run(calls=1, chats=40)
    metrics = [r["metric"] for r in rows]
    for step in ("validated_manifest", "splits", "moshi_lora", "turn_based", "cascaded", "parquet", "duplex_s2s",
                 "steward_report", "release"):
        assert f"after a 5% delivery: {step}" in metrics
    totals = [r for r in rows if "whole publish" in r["metric"]]
    assert [t["unit"] for t in totals] == ["s", "CPU s"]
    assert all(t["reference"] > 0 and t["ratio"] > 0 for t in totals)
    assert "1 calls + 40 chats" in totals[0]["metric"]
