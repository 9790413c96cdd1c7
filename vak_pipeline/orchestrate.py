"""`vak run`: materialize the whole asset graph with Dagster for one data directory.

Part of the Dagster layer (like definitions.py): the library modules never import this. One run per
upload partition (ingest_job), then one run of the dataset assets (publish_job), on the instance named by
DAGSTER_HOME (so the runs show up in `dagster dev`), or an ephemeral one when it is unset.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

import dagster as dg

from .core.os_errors import describe_os_error_text
from .layout import DataLayout
from .storage import atomic_write_text, data_lock

INGEST_JOB = "ingest_job"
PUBLISH_JOB = "publish_job"


@dataclass
class StageRun:
    name: str
    partition: str | None
    success: bool
    run_id: str
    failed_steps: list[str] = field(default_factory=list)
    failed_checks: list[str] = field(default_factory=list)
    skipped: bool = False
    errors: dict[str, str] = field(default_factory=dict)  # step -> its error, one line (not a check failure)


@dataclass
class PipelineReport:
    data_dir: Path
    runs: list[StageRun] = field(default_factory=list)
    release: str = "unchanged"  # released | blocked | unchanged (publish skipped: nothing changed)
    blocked_reasons: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # why an upload was not run (its name carries PII)

    @property
    def success(self) -> bool:
        return not self.refused and all(r.success for r in self.runs) and self.release != "blocked"


def merge_config(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in extra.items():
        out[k] = merge_config(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


INSTANCE_DIR = ".dagster"  # a dataset's own instance, inside its root: runs over different roots never mix


def instance_home(data_dir: Path, url: str | None = None) -> Path | None:
    """Where `vak run` keeps the runs of `data_dir`: DAGSTER_HOME when set (None here: Dagster's own
    choice), else DATA/.dagster (a URL root's: beside its local mirror, so it is never pushed)."""
    if os.environ.get("DAGSTER_HOME"):
        return None
    return Path(f"{data_dir}-dagster") if url else data_dir / INSTANCE_DIR


def ensure_instance_dir(home: Path) -> Path:
    """`home` with a dagster.yaml (the pools and queue limits of the repo's; an existing one is kept).

    A new instance is made whole under a hidden temporary name and only then renamed to `home`: Dagster
    creates its SQLite event-log index only when the file is absent, so a `vak run` killed while it was
    creating the tables would leave an instance that every later run refuses ("requires the dynamic
    partitions table"). The rename is atomic, so `home` is either absent or complete."""
    if home.exists():
        target = home / "dagster.yaml"
        if not target.exists():
            atomic_write_text(target, _instance_yaml())
        return home
    home.parent.mkdir(parents=True, exist_ok=True)
    prefix = f".{home.name.lstrip('.')}.new-"  # hidden, and never published
    for stale in home.parent.glob(f"{prefix}*"):  # a creation that a kill cut short
        shutil.rmtree(stale, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(prefix=prefix, dir=home.parent))
    try:
        atomic_write_text(tmp / "dagster.yaml", _instance_yaml())
        with dg.DagsterInstance.from_config(str(tmp)) as inst:  # each storage makes its files now
            inst.get_dynamic_partitions("uploads")
            inst.get_runs(limit=1)
            inst.all_instigator_state()
        os.rename(tmp, home)
    except OSError:
        if not (home / "dagster.yaml").exists():  # not another process's instance, made meanwhile
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return home


def _instance_yaml() -> str:
    return files("vak_pipeline").joinpath("instance.yaml").read_text(encoding="utf-8")


@contextlib.contextmanager
def open_instance(home: Path | None = None, persistent: bool = False) -> Iterator[dg.DagsterInstance]:
    """The instance at `home`; else DAGSTER_HOME's when configured; else a throwaway one (on disk when
    steps run elsewhere)."""
    env = os.environ.get("DAGSTER_HOME")
    if home is not None:
        with dg.DagsterInstance.from_config(str(ensure_instance_dir(home))) as inst:
            yield inst
    elif env and Path(env).is_dir():
        with dg.DagsterInstance.get() as inst:
            yield inst
    elif persistent:
        with dg.DagsterInstance.local_temp() as inst:
            yield inst
    else:
        with dg.DagsterInstance.ephemeral() as inst:
            yield inst


def _ingest_job(executor: str | None = None) -> dg.JobDefinition:
    from .definitions import build_defs

    return build_defs(executor).resolve_job_def(INGEST_JOB)


def _publish_job(executor: str | None = None) -> dg.JobDefinition:
    from .definitions import build_defs

    return build_defs(executor).resolve_job_def(PUBLISH_JOB)


def _refuse_pii_names(names: list[str], echo: Callable[[str], None]) -> dict[str, str]:
    """Uploads whose folder name carries PII, with the paragraph said about each (never the value): a partition
    key is shown in the UI, run tags and the event log, so such an upload is not run at all."""
    from .uploads.names import upload_name_issue

    refused: dict[str, str] = {}
    for name in names:
        issue = upload_name_issue(name)
        if issue is not None:
            refused[name] = f"upload {issue.file}: {issue.message}. {issue.fix}"
            echo(refused[name])
    return refused


def run_pipeline(data_dir: str | Path, uploads: list[str] | None = None, run_config: dict[str, Any] | None = None,
                 instance: dg.DagsterInstance | None = None, echo: Callable[[str], None] = print,
                 executor: str = "in_process", parallel_uploads: int = 1,
                 log_level: str = "WARNING", force: bool = False,
                 instance_dir: str | Path | None = None) -> PipelineReport:
    """Run ingest for every upload (or the named ones), then publish. Never raises for a failed step.

    An upload whose files, run config and pipeline code are unchanged since its last successful ingest
    is skipped (`force` re-runs it), and so is publish when no input changed: a second run costs what the
    new data costs, not the whole corpus.

    executor "in_process" runs every step here; any other (multiprocess, dask, k8s) goes through
    `execute_job` on a reconstructable job, so steps run where that executor puts them, and up to
    `parallel_uploads` upload partitions run at once.

    `data_dir` may be an fsspec URL (s3://bucket/dataset): the run works in a local mirror of it, pulled
    first and pushed at the end (each step also pulls and pushes through the data resource).

    The runs go to `instance` or the instance at `instance_dir`; else DAGSTER_HOME's; else DATA/.dagster,
    so each dataset has its own runs and partitions in the UI. Each upload's ingest and the publish hold
    the data root's writer lock (vak_pipeline.writers), the one every run's steps take: an upload another
    writer (the daemon, the UI) is ingesting is waited for, and one it ingested is skipped.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .mirror import Mirror, is_url

    mirror = Mirror(str(data_dir)) if is_url(data_dir) else None
    if mirror is not None:
        echo(f"pulling {mirror.url} into {mirror.cache} ...")
        echo(f"  {mirror.pull()}")
        data_dir = mirror.cache
        if not (data_dir / "raw").is_dir():
            raise FileNotFoundError(f"{mirror.url}/raw does not exist; put each delivery in {mirror.url}/raw/<upload>/")
    data_dir = Path(data_dir)
    from .uploads.links import refuse_linked_root

    refuse_linked_root(data_dir)  # a linked data root or raw/: nothing is run (LinkedDataPath, a sentence)
    layout = DataLayout.at(data_dir)
    names = uploads or layout.uploads()
    refused = _refuse_pii_names(names, echo)
    names = [n for n in names if n not in refused]
    root = mirror.url if mirror is not None else str(data_dir.resolve())
    base = {"resources": {"data": {"config": {"root": root}}},
            "loggers": {"console": {"config": {"log_level": log_level}}}}
    rc = merge_config(base, run_config or {})
    from .defs.config import check_run_config

    for factory in (_ingest_job, _publish_job):  # a bad value fails here, before any run starts
        job = factory(executor)
        check_run_config(job, config_for_job(job, rc))
    report = PipelineReport(data_dir, refused=list(refused.values()))
    with contextlib.ExitStack() as stack:
        stack.enter_context(data_lock(data_dir, echo))
        from .release import recover

        if recover(layout):
            echo("finished a release swap that an earlier run left half done")
        home = Path(instance_dir) if instance_dir else instance_home(data_dir, mirror.url if mirror else None)
        inst = instance or stack.enter_context(open_instance(home, persistent=executor != "in_process"))
        existing = set(inst.get_dynamic_partitions("uploads"))
        new = [n for n in names if n not in existing]
        if new:
            inst.add_dynamic_partitions("uploads", new)
        from uuid import uuid4

        from . import writers
        from .report.freshness import is_ingested
        from .uploads.ingested import config_key

        token = f"vak-run:{uuid4().hex[:12]}"
        run_key = config_key(config_for_job(_ingest_job(executor), rc))  # what each stage's report records

        def ingest(name: str) -> StageRun:
            path = layout.writer_lock(name)

            def done() -> bool:
                return not force and is_ingested(layout, name, run_key=run_key)

            _wait_for_other_writer(path, token, f"ingest {name}", echo, done)
            with writers.hold(path, token, on_wait=lambda _: echo(f"ingest {name}: waiting for another writer"),
                              final=True):
                _reap_dead_runs(inst, INGEST_JOB, name, echo)
                if done():
                    echo(f"ingest {name}: already ingested as it is now, skipped")
                    return StageRun(INGEST_JOB, name, True, "skipped", skipped=True)
                echo(f"ingest {name} ...")
                return _execute(_ingest_job, INGEST_JOB, name, inst, rc, executor, token)

        with ThreadPoolExecutor(max_workers=max(1, parallel_uploads)) as pool:
            report.runs.extend(pool.map(ingest, names))
        _wait_for_other_writer(layout.publish_lock, token, "publish", echo)
        with writers.hold(layout.publish_lock, token, on_wait=lambda _: echo("publish: waiting for another writer"),
                          final=True):
            _reap_dead_runs(inst, PUBLISH_JOB, None, echo)
            _publish(layout, report, inst, rc, executor, token, force, echo)
        if mirror is not None:
            echo(f"pushing {mirror.cache} to {mirror.url} ...")
            echo(f"  {mirror.push()}")
    return report


def _publish(layout: DataLayout, report: PipelineReport, inst: dg.DagsterInstance, rc: dict[str, Any],
             executor: str, token: str, force: bool, echo: Callable[[str], None]) -> None:
    from .report.freshness import is_published

    if not force and is_published(layout, publish_code(), rc):  # whoever published it: this run, the daemon
        echo("publish: no input changed since the last release, skipped")
        report.runs.append(StageRun(PUBLISH_JOB, None, True, "skipped", skipped=True))
        return
    echo("publish (validate, split, export, report, release) ...")
    # the marker is kept until a release replaces it: it names the inputs of the published release, which a
    # blocked or failed publish leaves as it was (data/ does not change by one byte)
    run = _execute(_publish_job, PUBLISH_JOB, None, inst, rc, executor, token)
    report.runs.append(run)
    report.release, report.blocked_reasons = _release_outcome(layout, run)  # the release step marked it


def _wait_for_other_writer(path: Path, token: str, what: str, echo: Callable[[str], None],
                           done: Callable[[], bool] = lambda: False) -> None:
    """Wait while another writer is at work on `path` (holding it, or between two of its steps) and what
    it makes is not `done` yet."""
    import time

    from . import writers

    told = False
    while not done() and (lease := writers.busy(path, token)) is not None:
        if not told:
            echo(f"{what}: {lease.token} is writing it (pid {lease.pid} on {lease.host}); waiting for it ...")
            told = True
        time.sleep(1.0)


def _release_outcome(layout: DataLayout, run: StageRun) -> tuple[str, list[str]]:
    """What the graph's `release` step (or the job's failure hook) decided; `vak run` adds nothing to it."""
    from .release import read_verdict

    cand = layout.candidate()
    verdict = read_verdict(cand)
    if run.success and not cand.manifest.exists():  # `release` swapped the candidate in
        return "released", []
    if verdict is not None and verdict.status == "blocked":
        run.failed_checks = list(dict.fromkeys(c["check"] for c in verdict.causes))
        return "blocked", verdict.reasons
    return "blocked", ["the publish run did not finish (see the run's logs)"]


@functools.lru_cache(maxsize=1)
def publish_code() -> str:
    """What the release step records as its code (defs.versions.job_code of publish_job)."""
    from .defs.versions import job_code

    return job_code(_publish_job("in_process"))


def config_for_job(job: dg.JobDefinition, rc: dict[str, Any]) -> dict[str, Any]:
    """The run config without the `ops` entries of the other job: one --config file serves ingest and publish.

    A name no job has is kept, so Dagster still reports the typo.
    """
    ops = rc.get("ops")
    if not isinstance(ops, dict):
        return rc
    mine = {n.name for n in job.graph.nodes}
    other = {n.name for f in (_ingest_job, _publish_job) for n in f().graph.nodes} - mine
    return dict(rc, ops={k: v for k, v in ops.items() if k not in other})


_RUN_SETUP = threading.Lock()


def _reap_dead_runs(inst: dg.DagsterInstance, job: str, partition: str | None, echo: Callable[[str], None]) -> None:
    """Runs of `job` (on `partition`) that a killed `vak run` left STARTED in the dataset's instance: this
    process holds their writer lock, so nobody is at work on them. Mark them failed and free their pool slots,
    which would otherwise keep the gpu pool claimed for ever (without a daemon nothing frees them)."""
    tags = {"vak/launched_by": "cli", **({"dagster/partition": partition} if partition else {})}
    stale = inst.get_runs(filters=dg.RunsFilter(job_name=job, tags=tags, statuses=[
        dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.STARTING]))
    for run in stale:
        inst.report_run_failed(run, "its `vak run` process ended without finishing it (killed or crashed); "
                                    "the next `vak run` marked it failed and freed its pool slots")
        inst.event_log_storage.free_concurrency_slots_for_run(run.run_id)
    if stale:
        echo(f"{job}{'[' + partition + ']' if partition else ''}: {len(stale)} run(s) a killed `vak run` left "
             "started were marked failed and their pool slots freed")


def _execute(factory: Callable[[str | None], dg.JobDefinition], name: str, partition: str | None,
             inst: dg.DagsterInstance, rc: dict[str, Any], executor: str, token: str = "") -> StageRun:
    from .defs.tags import run_tags
    from .writers import TOKEN_TAG

    tags = run_tags("cli", rc["resources"]["data"]["config"]["root"], **({TOKEN_TAG: token} if token else {}))
    job = factory(executor)
    rc = config_for_job(job, rc)
    if executor == "in_process":
        res = job.execute_in_process(partition_key=partition, instance=inst, run_config=rc, raise_on_error=False,
                                     tags=tags)
    else:  # step workers rebuild the job by name, with the same executor argument
        if partition:
            tags["dagster/partition"] = partition
        recon = dg.build_reconstructable_job(__name__, factory.__name__, reconstructable_kwargs={"executor": executor})
        # one run at a time in this process: an instance with settings (D/.dagster/dagster.yaml) runs
        # logging.config.dictConfig when a run starts, which takes logging's module lock and every handler's;
        # a run in another thread emitting an event at that moment deadlocks both (seen with
        # --parallel-uploads 2). The steps of each run still spread over the executor's workers.
        with _RUN_SETUP, dg.execute_job(recon, instance=inst, run_config=rc, tags=tags) as res:
            return _summarize(name, partition, res)
    return _summarize(name, partition, res)


def _summarize(job: str, partition: str | None, res: Any) -> StageRun:
    failed_steps, errors = [], {}
    for e in res.all_events:
        if e.event_type_value != "STEP_FAILURE" or not e.step_key:
            continue
        failed_steps.append(e.step_key)
        err = getattr(e.event_specific_data, "error", None)
        if err is not None and err.cls_name != "DagsterAssetCheckFailedError":  # checks are reported by name
            cause = err.cause if err.cls_name == "DagsterExecutionStepExecutionError" and err.cause else err
            first = cause.message.strip().splitlines()[0] if cause.message else ""
            if cause.cls_name == "Failure":  # the step's own sentence (defs.failures): shown as it is
                errors[e.step_key] = first.split("Failure: ", 1)[-1]
                continue
            spoken = describe_os_error_text(first, f"running {e.step_key}") if "[Errno" in first else None
            errors[e.step_key] = spoken or (first if first.startswith(f"{cause.cls_name}:")
                                            else f"{cause.cls_name}: {first}")
    failed_checks = [e.check_name for e in res.get_asset_check_evaluations()
                     if not e.passed and e.severity == dg.AssetCheckSeverity.ERROR and e.blocking is not False]
    return StageRun(job, partition, res.success, res.run_id, failed_steps, failed_checks, errors=errors)
