"""One writer per upload, whoever launches: the writer lock under the data root (vak_pipeline.writers), the
one "already ingested" answer read from the stage reports, and one Dagster instance per dataset."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import dagster as dg
import pytest
from typer.testing import CliRunner

from vak_pipeline import writers
from vak_pipeline.cli import app
from vak_pipeline.layout import DataLayout
from vak_pipeline.orchestrate import run_pipeline
from vak_pipeline.report.freshness import is_ingested
from vak_pipeline.uploads.ingested import config_key
from vak_pipeline_tests import processes

pytestmark = pytest.mark.timeout(600)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def spawn():
    """Start children through processes.spawned; each one's whole group is stopped at the test's end."""
    with contextlib.ExitStack() as stack:
        yield lambda *args, **kw: stack.enter_context(processes.spawned(*args, **kw))


def _other_process_holds(spawn, path: Path, token: str, seconds: float, then: str = "",
                         shared: bool = False) -> subprocess.Popen:
    """A second process (a daemon-launched run's step) that holds `path` for `seconds`, runs `then`, and
    gives it back between steps (not final). Returns once it holds the lock."""
    code = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from vak_pipeline import writers
        with writers.hold(Path({str(path)!r}), {token!r}, shared={shared!r}):
            print("held", flush=True)
            time.sleep({seconds})
            {then or "pass"}
    """)
    proc = spawn([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                 env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_writer_lock_is_reentrant_in_its_process_and_says_who_holds_it(tmp_path):
    lock = tmp_path / "work" / "u" / ".writer.lock"
    with writers.hold(lock, "vak-run:a", final=True):
        with writers.hold(lock, "run-of-vak-run"):  # the in-process run's step: no wait for itself
            assert writers.holder_token(lock) == "vak-run:a"
        assert writers.busy(lock, "someone-else").token == "vak-run:a"
        assert writers.busy(lock, "vak-run:a") is None  # never busy for its own holder
    assert writers.busy(lock) is None  # given back for good: nobody is at work on it
    assert writers.read_lease(lock).final and not writers.read_lease(lock).held


def test_a_run_between_two_of_its_steps_still_counts_as_writing(tmp_path):
    lock = tmp_path / ".writer.lock"
    with writers.hold(lock, "run-1"):  # a step; the next step of run-1 has not started yet
        pass
    lease = writers.busy(lock)
    assert lease is not None and lease.token == "run-1" and not lease.held
    assert writers.busy(lock, now=time.time() + writers.LEASE_GRACE_S + 1) is None  # a run that died


def test_a_second_process_waits_for_the_holder(tmp_path, spawn):
    lock = tmp_path / ".writer.lock"
    other = _other_process_holds(spawn, lock, "daemon-run", 1.5)
    told = []
    started = time.monotonic()
    assert writers.busy(lock).held  # seen from here while the other process holds it
    with writers.hold(lock, "vak-run:b", on_wait=told.append):
        waited = time.monotonic() - started
    other.wait(timeout=30)
    assert waited > 0.5 and [lease.token for lease in told] == ["daemon-run"]


def test_steps_of_one_run_share_the_lock_and_another_runs_steps_wait(tmp_path, monkeypatch, spawn):
    """Parallel steps of one run (the exports of a publish) write different files: they hold the lock at
    once. A step of another run waits until that run is done (and no step of it followed within the grace)."""
    monkeypatch.setattr(writers, "LEASE_GRACE_S", 1.0)
    lock = tmp_path / ".publish.lock"
    other = _other_process_holds(spawn, lock, "run-1", 3.0, shared=True)
    started = time.monotonic()
    with writers.hold(lock, "run-1", shared=True):  # a sibling step, in another process
        assert time.monotonic() - started < 1.0
    with writers.hold(lock, "run-2", shared=True):
        waited = time.monotonic() - started
        assert other.poll() is not None  # run-1's last step had ended
    other.wait(timeout=30)
    assert waited > 2.0


def test_run_config_key_ignores_where_the_data_is_and_logging():
    assert config_key(None) == config_key({"resources": {"data": {"config": {"root": "/x"}}},
                                           "loggers": {"console": {"config": {"log_level": "ERROR"}}}})
    assert config_key(None) != config_key({"ops": {"transcripts": {"config": {"beam_size": 1}}}})


@pytest.fixture(scope="module")
def chats(tmp_path_factory) -> Path:
    """The sample chats ingested and published once by `vak run` (no Whisper: a text upload)."""
    root = tmp_path_factory.mktemp("one_writer")
    shutil.copytree(REPO / "data" / "raw" / "sample-chats", root / "raw" / "sample-chats")
    assert run_pipeline(root, echo=lambda _: None).success
    return root


def test_the_stage_reports_give_the_one_already_ingested_answer(chats):
    """Written by the graph's stages (not by vak run: the daemon's runs write them too), each report naming
    its upstream's output and the run config's key."""
    layout = DataLayout.at(chats)
    assert is_ingested(layout, "sample-chats") and is_ingested(layout, "sample-chats", run_key=config_key({}))
    other = {"ops": {"synth": {"config": {"rate_wpm": 150}}}}  # `vak run --config` with other settings
    assert not is_ingested(layout, "sample-chats", run_key=config_key(other))


def test_the_release_step_writes_the_one_already_published_answer_whoever_launched_it(chats):
    """A publish launched like the UI or the sensor (a plain publish_job run) marks the release; `vak run` then
    finds nothing to publish: the daemon and `vak run` never publish the same inputs twice."""
    from vak_pipeline.definitions import build_defs
    from vak_pipeline.orchestrate import publish_code
    from vak_pipeline.report.freshness import is_published

    layout = DataLayout.at(chats)
    layout.publish_marker.unlink()
    job = build_defs("in_process").resolve_job_def("publish_job")
    with dg.instance_for_test() as instance:
        res = job.execute_in_process(run_config={"resources": {"data": {"config": {"root": str(chats)}}}},
                                     instance=instance)
        assert res.success
    assert is_published(layout, publish_code(), {})
    lines: list[str] = []
    assert run_pipeline(chats, echo=lines.append).success
    assert "publish: no input changed since the last release, skipped" in lines


def test_vak_run_waits_for_a_daemon_ingest_of_the_same_upload_and_then_skips_it(chats, spawn):
    """A daemon-launched run is ingesting the upload (its step holds the lock; its last stage's report is not
    written yet): `vak run` waits for it instead of writing the upload too, then finds it ingested and skips it."""
    layout = DataLayout.at(chats)
    marker = layout.synth_report("sample-chats")
    saved = marker.read_bytes()
    marker.unlink()  # the daemon's run has not got to synth yet
    other = _other_process_holds(spawn, layout.writer_lock("sample-chats"), "daemon-run-1", 12.0,
                                 then=f"Path({str(marker)!r}).write_bytes({saved!r})")
    lines: list[str] = []
    with dg.instance_for_test() as instance:
        report = run_pipeline(chats, instance=instance, echo=lines.append)
        ingest_runs = instance.get_runs(filters=dg.RunsFilter(job_name="ingest_job"))
    other.wait(timeout=30)
    assert any("daemon-run-1 is writing it" in line for line in lines), lines
    assert report.runs[0].skipped and not ingest_runs  # no second writer, no redone work


def test_vak_run_keeps_each_datasets_runs_in_an_instance_inside_it(tmp_path, monkeypatch):
    """Without DAGSTER_HOME, `vak run --data D` records its runs in D/.dagster: another dataset's runs and
    partitions never show up in this one's UI."""
    monkeypatch.delenv("DAGSTER_HOME")
    roots = {}
    for name in ("first", "second"):
        root = tmp_path / name
        (root / "raw" / "sample-chats").mkdir(parents=True)
        shutil.copy2(REPO / "data" / "raw" / "sample-chats" / "upload.yaml", root / "raw" / "sample-chats")
        shutil.copy2(REPO / "data" / "raw" / "sample-chats" / "support.messages.jsonl",
                     root / "raw" / "sample-chats")
        (root / "raw" / f"only-in-{name}").mkdir()
        roots[name] = root
    out = CliRunner().invoke(app, ["run", "--data", str(roots["first"]), "--upload", "sample-chats"])
    assert out.exit_code == 0, out.output
    home = roots["first"] / ".dagster"
    assert (home / "dagster.yaml").read_text() == (REPO / "dagster.yaml").read_text()
    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert {r.tags["vak/data"] for r in instance.get_runs()} == {str(roots["first"].resolve())}
        assert "only-in-second" not in instance.get_dynamic_partitions("uploads")
    assert not (roots["second"] / ".dagster").exists()


def test_the_packaged_instance_file_says_what_the_repos_says():
    """`vak run` writes vak_pipeline/instance.yaml into a dataset's new instance; `dagster dev` reads the
    repo's dagster.yaml: the same queue limits and pools either way."""
    assert (REPO / "vak_pipeline" / "instance.yaml").read_text() == (REPO / "dagster.yaml").read_text()


def test_a_writer_killed_while_holding_the_lock_does_not_block_the_next_one(tmp_path, spawn):
    """The kernel frees a dead process's flock; its lease still says held. The next writer goes ahead."""
    import signal

    lock = tmp_path / "work" / "u" / ".writer.lock"
    other = _other_process_holds(spawn, lock, "killed-run", 60.0)
    assert writers.busy(lock, "vak-run:next") is not None
    os.kill(other.pid, signal.SIGKILL)
    other.wait(timeout=30)
    assert writers.read_lease(lock).held  # what the dead holder left
    assert writers.busy(lock, "vak-run:next") is None
    started = time.monotonic()
    with writers.hold(lock, "vak-run:next"):
        assert time.monotonic() - started < 5


def test_a_run_a_killed_vak_run_left_started_is_failed_and_frees_its_gpu_slot(tmp_path):
    """Without a daemon nothing else would free the slot: the next transcription would wait for ever."""
    from dagster._core.storage.dagster_run import DagsterRun

    from vak_pipeline.orchestrate import _reap_dead_runs

    with dg.instance_for_test() as instance:
        storage = instance.event_log_storage
        storage.set_concurrency_slots("gpu", 1)
        dead = DagsterRun(job_name="ingest_job", run_id="dead-run", status=dg.DagsterRunStatus.STARTED,
                          tags={"vak/launched_by": "cli", "dagster/partition": "calls"})
        instance.add_run(dead)
        assert storage.claim_concurrency_slot("gpu", "dead-run", "transcripts").is_claimed
        said: list[str] = []
        _reap_dead_runs(instance, "ingest_job", "calls", said.append)
        assert instance.get_run_by_id("dead-run").status == dg.DagsterRunStatus.FAILURE
        assert storage.claim_concurrency_slot("gpu", "next-run", "transcripts").is_claimed
        assert said and "marked failed" in said[0]
