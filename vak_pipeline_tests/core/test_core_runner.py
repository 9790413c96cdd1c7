"""The one stage runner: a stage declares items, keys, process and outputs; run_stage does the rest the same way
for every stage (reuse of unchanged items, one ledger entry and one reported issue per failure, the same bytes
whatever the pool kind or worker count, a report)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from vak_pipeline.core.issue import Issue
from vak_pipeline.core.runner import Job, RunCounts, Stage, run_stage
from vak_pipeline.core.stage import Done, LedgerEntry, PlacedWriter, PoolSettings, StageResult, item_key
from vak_pipeline.layout import DataLayout

pytestmark = pytest.mark.timeout(300)


def _double(jobs: list[dict[str, Any]]) -> list[LedgerEntry]:
    """Module level: it runs in the workers. A negative value fails its item."""
    out = []
    for job in jobs:
        if job["value"] < 0:
            out.append(LedgerEntry(item=job["item"], key=job["key"], failure=Issue(
                code="toy_negative", message="a negative value", fix="give a positive one", record_id=job["item"])))
        else:
            out.append(LedgerEntry(item=job["item"], key=job["key"], outputs={"value": job["value"] * 2}))
    return out


class ToyResult(StageResult):
    stage: str = "toy"
    done: int = 0


class Toy(Stage):
    name = "toy"
    version = "1"
    report = DataLayout.upload_report
    process = staticmethod(_double)

    def __init__(self, root: Path, values: dict[str, int], workers: int = 1, pool: PoolSettings | None = None,
                 keep: bool = True) -> None:
        self.root, self.values, self.workers, self.keep = root, values, workers, keep
        if pool is not None:
            self.pool = pool
        self.batch = 2
        self.layout, self.upload = DataLayout.at(root), "u"
        self.result = ToyResult(upload="u")

    def outputs(self) -> list[Any]:
        self.out = PlacedWriter(self.layout.work("u") / "out.jsonl")
        return [self.out]

    def items(self) -> Iterator[Job | Done]:
        yield Done("header\n")
        for name, value in self.values.items():
            key = item_key(self.version, value)
            yield Job(name, key, {"item": name, "key": key, "value": value})

    def reusable(self, entry: LedgerEntry) -> bool:
        return self.keep

    def passed(self, value: str) -> None:
        self.out.write(value)

    def accept(self, entry: LedgerEntry, reused: bool) -> LedgerEntry | None:
        if entry.item == "drop":
            return None
        if entry.failure is None:
            self.out.write({"item": entry.item, "value": entry.outputs["value"]})
        return entry

    def finish(self, counts: RunCounts) -> None:
        self.result.done = counts.processed


def ledger(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in DataLayout.at(root).stage_ledger("u", "toy").read_text().splitlines()]


def read(root: Path, name: str) -> str:
    return (DataLayout.at(root).work("u") / name).read_text()


def test_an_unchanged_item_is_reused_and_a_changed_one_processed_again(tmp_path):
    first = run_stage(Toy(tmp_path, {"a": 1, "b": 2}))
    again = run_stage(Toy(tmp_path, {"a": 1, "b": 2}))
    changed = run_stage(Toy(tmp_path, {"a": 1, "b": 3}))
    assert (first.processed, first.reused, first.passed) == (2, 0, 1)
    assert (again.processed, again.reused) == (0, 2)
    assert (changed.processed, changed.reused) == (1, 1)
    assert read(tmp_path, "out.jsonl").splitlines()[1:] == [
        '{"item":"a","value":2}', '{"item":"b","value":6}']


def test_an_entry_the_stage_refuses_to_reuse_is_processed_again(tmp_path):
    run_stage(Toy(tmp_path, {"a": 1}))
    assert run_stage(Toy(tmp_path, {"a": 1}, keep=False)).processed == 1


def test_a_failure_is_recorded_once_reported_once_per_run_and_not_retried(tmp_path):
    stage = Toy(tmp_path, {"a": 1, "bad": -1})
    run_stage(stage)
    assert [e["item"] for e in ledger(tmp_path)] == ["a", "bad"]
    assert [i.code for i in stage.result.issues] == ["toy_negative"]
    again = Toy(tmp_path, {"a": 1, "bad": -1})
    counts = run_stage(again)
    assert counts.processed == 0  # the failure comes from the ledger
    assert [i.code for i in again.result.issues] == ["toy_negative"]
    report = json.loads(read(tmp_path, "report.json"))
    assert (report["stage"], [i["code"] for i in report["issues"]]) == ("toy", ["toy_negative"])
    assert [e["item"] for e in ledger(tmp_path)] == ["a", "bad"]


def test_an_item_the_stage_drops_is_not_recorded(tmp_path):
    run_stage(Toy(tmp_path, {"a": 1, "drop": 2}))
    assert [e["item"] for e in ledger(tmp_path)] == ["a"]


def test_the_report_has_the_stage_counts(tmp_path):
    run_stage(Toy(tmp_path, {"a": 1, "b": 2}))
    report = json.loads(read(tmp_path, "report.json"))
    assert report["upload"] == "u" and report["counts"] == {"done": 2}


@pytest.mark.parametrize("pool", [PoolSettings("spawn"), PoolSettings("fork"), PoolSettings("forkserver"),
                                  PoolSettings("forkserver", fresh=True)], ids=lambda p: f"{p.kind}-{p.fresh}")
def test_every_pool_kind_and_worker_count_writes_the_same_bytes(tmp_path, pool):
    values = {f"i{n}": (n if n % 4 else -n) for n in range(1, 10)}
    run_stage(Toy(tmp_path / "here", values))
    run_stage(Toy(tmp_path / "pool", values, workers=2, pool=pool))
    for name in ("out.jsonl", "ledger/toy.jsonl", "report.json"):
        assert read(tmp_path / "here", name) == read(tmp_path / "pool", name), name


def test_a_fresh_pool_is_used_even_for_one_worker(tmp_path):
    """A stage whose library keeps state inside a process (synth: espeak-ng) never runs an item here."""
    run_stage(Toy(tmp_path, {"a": 1}, workers=1, pool=PoolSettings("spawn", fresh=True)))
    assert read(tmp_path, "out.jsonl").splitlines()[1] == '{"item":"a","value":2}'


def test_a_run_smaller_than_the_stage_pool_from_is_done_here_with_the_same_bytes(tmp_path, monkeypatch):
    """A stage declares from how many items a pool pays (`pool_from`); a smaller run never starts one."""
    values = {f"i{n}": (n if n % 4 else -n) for n in range(1, 10)}
    run_stage(Toy(tmp_path / "pool", values, workers=2))

    def no_pool(self, workers):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(PoolSettings, "executor", no_pool)
    small = Toy(tmp_path / "here", values, workers=2)
    small.pool_from = len(values) + 1
    run_stage(small)
    for name in ("out.jsonl", "ledger/toy.jsonl", "report.json"):
        assert read(tmp_path / "here", name) == read(tmp_path / "pool", name), name


def test_a_stage_that_knows_enough_items_are_new_starts_its_pool_at_once_with_the_same_bytes(tmp_path, monkeypatch):
    """`pool_from_now` answers 0: the pool starts before `pool_from` items were read (its workers' start-up
    overlaps the reading); the stage is told how many entries the last run's ledger holds."""
    values = {f"i{n}": (n if n % 4 else -n) for n in range(1, 10)}
    run_stage(Toy(tmp_path / "here", values, workers=1))
    started, told = [], []
    executor = PoolSettings.executor

    def counted(self, workers):
        started.append(workers)
        return executor(self, workers)

    class Knows(Toy):
        def pool_from_now(self, previous: int) -> int:
            told.append(previous)
            return 0

    monkeypatch.setattr(PoolSettings, "executor", counted)
    early = Knows(tmp_path / "pool", values, workers=2)
    early.pool_from = len(values) + 1  # read ahead, this run would be done here
    run_stage(early)
    assert started == [2] and told == [0]
    for name in ("out.jsonl", "ledger/toy.jsonl", "report.json"):
        assert read(tmp_path / "pool", name) == read(tmp_path / "here", name), name
    run_stage(Knows(tmp_path / "pool", values, workers=2))
    assert told == [0, len(values)]


def test_a_pool_pays_from_the_items_whose_time_outweighs_the_start_up():
    """`jobs_to_pay` is `pool_pays` counted in items: the first count at which the pool is estimated faster."""
    from vak_pipeline.parallel import jobs_to_pay, pool_pays

    n = jobs_to_pay(2, job_s=0.0015, start_s=2.0)  # redaction on 2 cores: 1.5 ms a record, 2 s of start-up
    assert 4_000 < n < 5_000
    assert pool_pays(n, 2, n, 1 / 0.0015, start_s=2.0) and not pool_pays(n - 1, 2, n - 1, 1 / 0.0015, start_s=2.0)
    assert jobs_to_pay(1, job_s=0.0015) == 0  # one worker: never a pool
