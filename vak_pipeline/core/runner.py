"""One way to be a stage: a `Stage` declares its items, their keys, how to process them and where outputs go;
`run_stage` owns the rest (the ledger, reuse of unchanged items, the parallel map, the report).

Why one runner: a stage that learned to cache, fan out and report once behaves like every other, and "is
this upload up to date" can be read from the ledgers alone (`core.freshness`). NeMo SDP's `BaseProcessor`
is the anchor: a stage is a small object with a few methods, not a loop of its own.

    for each item of stage.items():       a Job(item, key, payload), or Done(value) passed through as it is
        unchanged key + stage.reusable ->  the ledger's entry, not processed (stage.accept(entry, reused=True))
        else                            ->  stage.process([payload, ...]) here or in the pool (stage.pool;
                                            here when fewer than stage.pool_from are to process;
                                            stage.pool_from_now: at once when surely more are)
        stage.accept(entry, reused)     ->  the stage places the outputs; the entry it returns is recorded
    write_report(stage report, stage.result, stage.section, **stage.report_extra())

Outputs are a function of inputs and settings only: results come out in input order, whatever the worker
count or pool kind.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ..layout import DataLayout
from .issue import Issue
from .stage import Done, Ledger, LedgerEntry, PoolSettings, StageResult, ordered_map, write_report


@dataclass(frozen=True)
class Job:
    """One item to process unless the ledger holds it under `key`; `payload` is what `process` is given."""

    item: str
    key: str
    payload: Any


@dataclass(frozen=True)
class _Reused:
    entry: LedgerEntry


@dataclass
class RunCounts:
    """What the runner did with the items: processed in this run, reused from the ledger, passed through."""

    processed: int = 0
    reused: int = 0
    passed: int = 0


class Stage(ABC):
    """A stage for one upload. Subclasses set the class constants and the instance fields, and implement
    `items` and `process` (a staticmethod over a module-level function: it runs in worker processes)."""

    name: ClassVar[str]  # the ledger's name
    version: ClassVar[str]  # an explicit constant: part of every key and the asset's code_version
    pool: PoolSettings = PoolSettings()  # how workers start (a frozen value: shared as the default)
    sized: ClassVar[bool] = False  # True: the items are listed first, so `workers_for` can see what is to do
    # items to process from which a pool pays its workers' start-up (parallel.jobs_to_pay); fewer run here, in
    # this process, whatever `workers` says (0: any number); for a stage that cannot size its work up front
    pool_from: int = 0

    # the report file (a DataLayout method: upload -> path) and its section when several stages share the file;
    # the funnel reads every stage's report (report.stage_reports), a test holds each stage to it
    report: ClassVar[Callable[[DataLayout, str], Path]]
    section: ClassVar[str | None] = None

    layout: DataLayout
    upload: str
    result: StageResult
    workers: int = 1
    batch: int = 1
    run_key: str = ""  # the run config that shaped this run (`made_of`), as its launcher hashed it

    @abstractmethod
    def items(self) -> Iterable[Job | Done]:
        """The stage's items in output order: a Job to key (and process), or Done(value) for `passed`."""

    # payloads -> one entry each, never raising; module level (or a partial of one): it is pickled to workers
    process: Callable[[list[Any]], list[LedgerEntry]]

    def outputs(self) -> Iterable[AbstractContextManager[Any]]:
        """The stage's output files, opened before the first item and closed (put in place) after the last."""
        return ()

    def reusable(self, entry: LedgerEntry) -> bool:
        """Whether an entry with an unchanged key may be taken as it is (its outputs are still in place)."""
        return True

    def accept(self, entry: LedgerEntry, reused: bool) -> LedgerEntry | None:
        """Place the item's outputs; return the entry to record (None records nothing: the item is dropped)."""
        return entry

    def passed(self, value: Any) -> None:  # noqa: B027 - optional hook
        """A Done(value) item, at its place in the order."""

    def workers_for(self, todo: Sequence[Any]) -> int:
        """How many processes for these payloads (`sized` stages only); by default `workers`."""
        return self.workers

    def progress(self, plan: Sequence[Any]) -> Iterable[Any]:
        """The planned items as the map consumes them (`sized` stages: a progress bar may wrap them)."""
        return plan

    def finish(self, counts: RunCounts) -> None:  # noqa: B027 - optional hook
        """After the last item, before the report: the stage's own counters and output files."""

    def report_extra(self) -> dict[str, Any]:
        """Fields of the report besides upload, stage, counts and issues."""
        return {}

    def reported(self, entry: LedgerEntry) -> list[Issue]:
        """What a recorded entry adds to the result's issues (a stage that reports its issues itself: none)."""
        return entry.reported()

    def drain(self) -> Iterable[Any]:
        """What the stage emitted since it was last asked (`iter_stage` yields it); by default nothing."""
        return ()

    def pool_from_now(self, previous: int) -> int:
        """`pool_from` for this run, given how many items the last run's ledger holds (`previous`). A stage that can
        tell cheaply that at least `pool_from` items are new answers 0: the pool starts at once, its workers'
        start-up overlapping the reading of the items instead of following `pool_from` of them. By default
        `pool_from`."""
        return self.pool_from

    def code_version(self) -> str:
        """What the report records as the stage's code: `version`, plus the data fingerprints (packs) that shape
        every item when the stage has them; compared with today's by `report.freshness`."""
        return self.version

    def upstream(self) -> str:
        """What this run was made from: the upstream stage's `output` token (or the upload's fingerprint)."""
        return ""

    def output_path(self) -> Path | None:
        """The stage's main output file, hashed into the report's `output` token (None: the made_of alone)."""
        return None

    def report_path(self) -> Path:
        return type(self).report(self.layout, self.upload)


def _plan(stage: Stage, ledger: Ledger, counts: RunCounts) -> Iterator[Any]:
    for item in stage.items():
        if isinstance(item, Done):
            counts.passed += 1
            yield item
            continue
        prev = ledger.reuse(item.item, item.key)
        if prev is not None and stage.reusable(prev):
            counts.reused += 1
            yield Done(_Reused(prev))
            continue
        counts.processed += 1
        yield item.payload


def run_stage(stage: Stage) -> RunCounts:
    """Run `stage` over its items (see the module docstring); the ledger is replaced only when it ends normally.

    The issues of every recorded entry (`Stage.reported`: its `LedgerEntry.reported` by default) join
    `stage.result.issues` in item order, so a failure is reported each run, once, and retried only when its
    key changes (or `reusable` refuses it)."""
    run = iter_stage(stage)
    while True:
        try:
            next(run)
        except StopIteration as done:
            return done.value


def iter_stage(stage: Stage) -> Generator[Any, None, RunCounts]:
    """`run_stage` as a generator of what the stage emits (`Stage.drain`) after each item, for a consumer that
    takes the stage's output as it comes (tagged_turns takes the text import's records); iterate it to the end."""
    counts = RunCounts()
    with Ledger.load(stage.layout.stage_ledger(stage.upload, stage.name)) as ledger, ExitStack() as files:
        for output in stage.outputs():
            files.enter_context(output)
        plan: Iterable[Any] = _plan(stage, ledger, counts)
        workers = stage.workers
        if stage.sized:
            listed = list(plan)
            workers = stage.workers_for([p for p in listed if not isinstance(p, Done)])
            plan = stage.progress(listed)
        for out in ordered_map(stage.process, plan, workers, stage.batch, pool=stage.pool,
                               pool_from=stage.pool_from_now(len(ledger.previous))):
            if isinstance(out, LedgerEntry | _Reused):
                reused = isinstance(out, _Reused)
                entry = stage.accept(out.entry if isinstance(out, _Reused) else out, reused)
                if entry is not None:
                    ledger.record(entry)
                    stage.result.issues.extend(stage.reported(entry))
            else:
                stage.passed(out)
            yield from stage.drain()
    stage.finish(counts)
    write_report(stage.report_path(), stage.result, stage.section, **stage.report_extra(),
                 **made_of(stage.code_version(), stage.upstream(), stage.run_key, stage.output_path()))
    return counts


def output_token(path: Path, section: str | None = None) -> str:
    """The `output` token a stage's report (or its section) recorded; '' when there is none."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    part = data.get(section) if isinstance(data, dict) and section else data
    token = part.get("output") if isinstance(part, dict) else None
    return token if isinstance(token, str) else ""


def made_of(version: str, upstream: str, run_key: str, output: Path | None) -> dict[str, Any]:
    """The report's `made_of` (the stage's code, its input token, the run config's key) and `output` token: a hash
    of `made_of` and the output file's bytes, which the next stage records as its input. `report.freshness`
    reads the chain: an upload is up to date when every link holds and every code version is today's."""
    import hashlib
    import json

    from ..storage import sha256_file

    block = {"version": version, "input": upstream, "run": run_key}
    digest = sha256_file(output) if output is not None and output.is_file() else None
    token = hashlib.sha256(json.dumps([block, digest], sort_keys=True).encode()).hexdigest()[:24]
    return {"made_of": block, "output": token}
