"""The e2e bench's stage table: one row per asset step and per asset-check step, read from a run's events,
each with its share of the total; nothing folded into another name."""

from __future__ import annotations

import pytest

from bench.bench_e2e import by_stage, stage_rows, step_times

pytestmark = pytest.mark.timeout(60)


def _step(run_id: str, run: str, partition: str | None, step: str, start: float, end: float,
          assets: tuple[str, ...] = (), checks: tuple[str, ...] = (), failed: bool = False) -> list[dict]:
    base = {"run_id": run_id, "run": run, "partition": partition, "step": step}
    evs = [dict(base, type="STEP_START", t=start)]
    evs += [dict(base, type="ASSET_MATERIALIZATION", t=end - 0.01, asset=a) for a in assets]
    evs += [dict(base, type="ASSET_CHECK_EVALUATION", t=end - 0.01, check=c) for c in checks]
    evs.append(dict(base, type="STEP_FAILURE" if failed else "STEP_SUCCESS", t=end))
    return evs


# a recorded shape: two upload partitions of ingest (synth among them), then publish with checks and release
EVENTS = (
    _step("r1", "ingest_job", "calls", "normalized_audio", 0.0, 4.0, ("normalized_audio",))
    + _step("r1", "ingest_job", "calls", "normalized_audio_gx", 4.0, 5.0, checks=("rate", "clipping"))
    + _step("r1", "ingest_job", "calls", "synth", 5.0, 5.5, ("synth",))
    + _step("r2", "ingest_job", "chats", "normalized_audio", 0.0, 1.0, ("normalized_audio",))
    + _step("r2", "ingest_job", "chats", "synth", 1.0, 31.0, ("synth",))
    + _step("r3", "publish_job", None, "validated_manifest", 40.0, 50.0, ("validated_manifest",),
            checks=("inline_rule",))
    + _step("r3", "publish_job", None, "manifest_rule_checks", 50.0, 52.0, checks=("rules_structure",))
    + _step("r3", "publish_job", None, "duplex_s2s", 52.0, 60.0, ("duplex_s2s",))
    + _step("r3", "publish_job", None, "release", 60.0, 62.0, ("release",))
    + [{"run_id": "r3", "run": "publish_job", "partition": None, "step": "orphan", "type": "STEP_START", "t": 1.0}]
)


def test_each_step_is_timed_from_its_start_and_end_events_and_named_by_what_it_produced():
    steps = step_times(EVENTS)
    got = {(s["partition"], s["step"]): (s["kind"], s["name"], round(s["s"], 3)) for s in steps}
    assert got[("chats", "synth")] == ("asset", "synth", 30.0)
    assert got[("calls", "normalized_audio_gx")] == ("check", "normalized_audio_gx", 1.0)
    assert got[(None, "release")] == ("asset", "release", 2.0)
    assert (None, "orphan") not in got  # a step that never ended has no duration to report


def test_partitions_add_up_per_asset_and_checks_keep_their_own_names():
    stages = by_stage(step_times(EVENTS))
    assert stages[("asset", "normalized_audio")] == pytest.approx(5.0)
    assert stages[("asset", "synth")] == pytest.approx(30.5)
    assert stages[("check", "manifest_rule_checks")] == pytest.approx(2.0)
    only_calls = by_stage(step_times(EVENTS), {"calls"})
    assert only_calls[("asset", "synth")] == pytest.approx(0.5)
    assert ("asset", "validated_manifest") in only_calls  # unpartitioned steps always count


def test_rows_name_every_asset_and_check_step_with_shares_of_the_total():
    rows = stage_rows("e2e", "run 1", step_times(EVENTS), wall=70.0)
    by = {r["metric"]: r for r in rows}
    total = 5.0 + 1.0 + 30.5 + 10.0 + 2.0 + 8.0 + 2.0
    for name in ("synth", "duplex_s2s", "release", "validated_manifest", "normalized_audio"):
        assert f"run 1: {name}" in by
    assert by["run 1: synth"]["note"].startswith(f"{100 * 30.5 / total:.1f}% of the step time")
    assert by["run 1: check normalized_audio_gx"]["value"] == 1.0
    assert by["run 1: check manifest_rule_checks"]["value"] == 2.0
    assert by["run 1: asset checks (all check steps)"]["value"] == 3.0
    assert by["run 1: all steps"]["value"] == round(total, 1)
    assert by["run 1: outside steps"]["value"] == round(70.0 - total, 1)
    assert "evaluates 1 asset check(s) in its own step" in by["run 1: validated_manifest"]["note"]
    asset_rows = [r for r in rows if r["metric"].startswith("run 1: ") and "check" not in r["metric"]
                  and r["metric"] not in ("run 1: all steps", "run 1: outside steps")]
    assert sum(r["value"] for r in asset_rows) + 3.0 == pytest.approx(total, abs=0.3)  # no step is left out
    assert not any("GX, rules" in r["metric"] for r in rows)  # nothing folded into a catch-all row


def test_export_bytes_count_each_file_once_and_linked_audio_not_at_all(tmp_path):
    import json
    import os

    from bench.bench_e2e import bytes_rows, export_bytes

    (tmp_path / "audio").mkdir()
    (tmp_path / "audio" / "c1.wav").write_bytes(b"a" * 1000)
    moshi, tb, cas, pq = (tmp_path / "exports" / n for n in ("moshi_lora", "turn_based", "cascaded", "parquet"))
    for d in (moshi, tb, cas, pq):
        d.mkdir(parents=True)
    os.link(tmp_path / "audio" / "c1.wav", moshi / "c1.wav")  # linked: stored once
    (cas / "clip.wav").write_bytes(b"c" * 300)
    os.link(cas / "clip.wav", tb / "clip.wav")  # the same clip in two exports
    (pq / "rows.parquet").write_bytes(b"p" * 500)
    (pq / "build.json").write_text(json.dumps({"counts": {"audio_bytes_embedded": 400}}))
    audio, disk, embedded = export_bytes(tmp_path)
    build = (pq / "build.json").stat().st_size
    assert audio == 1000
    assert disk == {"cascaded": 300, "moshi_lora": 0, "parquet": 500 + build, "turn_based": 0}
    assert embedded == {"parquet": 400}
    total = {r["metric"]: r for r in bytes_rows("e2e", "run 1", tmp_path)}["run 1: bytes of all exports"]
    assert total["value"] == 800 + build and total["reference"] == 1000
