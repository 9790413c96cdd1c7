"""One server in production, on a real PostgreSQL: the shipped instance files load and connect, and with
the daemon and both sensors on, a dropped upload is ingested once and published once, `vak run` at the
same time never writes it a second time, gpu steps never overlap, and every run's tags are true.

PostgreSQL is Debian's `postgresql` (`./dev test` installs it when it can): a throwaway cluster is made
with initdb in a temp folder and started on a free localhost port. Without it the tests skip, saying
why (in CI they fail: `servers.missing`).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from vak_pipeline_tests import processes
from vak_pipeline_tests.servers import missing

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "vak-test-pw"


def _pg_bin() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    return Path(versions[-1]).parent if versions else None


def _install_postgresql() -> str:
    """Install Debian's postgresql when this is root with apt; else say why not."""
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return "PostgreSQL is not installed and this is not root with apt-get (apt-get install postgresql)"
    for cmd in (["apt-get", "install", "-y", "-q", "postgresql"], ["apt-get", "update", "-q"],
                ["apt-get", "install", "-y", "-q", "postgresql"]):
        done = processes.run(cmd, capture_output=True, timeout=600, env={**os.environ,
                             "DEBIAN_FRONTEND": "noninteractive"})
        if done.returncode == 0 and _pg_bin() is not None:
            return ""
    return "apt-get install postgresql failed"


def _new_chats(up: Path) -> None:
    """A new delivery: the sample's upload.yaml and chats of its own (a copy of the sample's chats would be
    one delivery sent twice, which the duplicate check leaves out)."""
    import json
    import random

    up.mkdir(parents=True)
    shutil.copy2(REPO / "data" / "raw" / "sample-chats" / "upload.yaml", up / "upload.yaml")
    rnd = random.Random(7)
    things = ["desk lamp", "printer paper", "office chair", "stapler", "whiteboard"]
    lines = []
    for i, thing in enumerate(rnd.sample(things, 3)):
        lines.append(json.dumps({"id": f"late-{i}", "messages": [
            {"role": "user", "content": f"Hello, the {thing} I ordered {i + 2} weeks ago still has not come."},
            {"role": "assistant", "content": f"Sorry about the {thing}; I have asked the warehouse to send it."}]}))
    (up / "late.messages.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres() -> Iterator[dict[str, str]]:
    """A PostgreSQL server on localhost for this module: the DAGSTER_PG_* variables that reach it."""
    if _pg_bin() is None:
        why = _install_postgresql()
        if why:
            missing(why)
    bin_dir = _pg_bin()
    assert bin_dir is not None
    as_pg = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []  # initdb refuses to run as root
    base = Path(tempfile.mkdtemp(prefix="vak-pg-"))  # not under pytest's 0700 tmp: the postgres user reads it
    if as_pg:
        shutil.chown(base, "postgres")
    pwfile = base / "pw"
    pwfile.write_text(PASSWORD)
    if as_pg:
        shutil.chown(pwfile, "postgres")
    data, port = base / "data", _free_port()
    processes.run([*as_pg, str(bin_dir / "initdb"), "-D", str(data), "-U", "vak", f"--pwfile={pwfile}",
                   "--auth=scram-sha-256", "-E", "UTF8", "--no-sync"], check=True, capture_output=True, timeout=120)
    processes.run_starting_a_daemon([*as_pg, str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(base / "log"),
                                     "-w", "-t", "60", "-o",
                                     f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                                    check=True, capture_output=True, timeout=90)
    try:
        import psycopg2

        conn = psycopg2.connect(host="127.0.0.1", port=port, user="vak", password=PASSWORD, dbname="postgres")
        conn.autocommit = True
        with conn.cursor() as cur:
            for db in ("vak_server", "vak_k8s"):
                cur.execute(f"CREATE DATABASE {db}")
        conn.close()
        yield {"DAGSTER_PG_HOST": "127.0.0.1", "DAGSTER_PG_PORT": str(port), "DAGSTER_PG_USER": "vak",
               "DAGSTER_PG_PASSWORD": PASSWORD, "DAGSTER_PG_DB": "vak_server"}
    finally:
        processes.run([*as_pg, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                      capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def _home(tmp_path: Path, shipped: str) -> Path:
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(REPO / "deploy" / shipped / "dagster.yaml", home / "dagster.yaml")
    return home


@pytest.mark.timeout(300)
def test_the_shipped_server_instance_loads_and_connects(postgres, tmp_path, monkeypatch):
    for k, v in postgres.items():
        monkeypatch.setenv(k, v)
    with dg.DagsterInstance.from_config(str(_home(tmp_path, "server"))) as instance:
        assert instance.get_runs() == []  # connected: the tables were made on the server
        assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
        config = instance.get_concurrency_config()
        limits = {lim["key"]: lim for lim in config.run_queue_config.tag_concurrency_limits}
        assert config.pool_config.default_pool_limit == 1  # the gpu pool
        assert limits["dagster/partition"]["limit"] == 1 and limits["vak/writer"]["value"] == "publish"
        instance.add_dynamic_partitions("uploads", ["u1"])
        assert instance.get_dynamic_partitions("uploads") == ["u1"]


@pytest.mark.timeout(300)
def test_the_shipped_k8s_instance_loads_and_connects(postgres, tmp_path, monkeypatch):
    """Its storage config (the run launcher needs a cluster, so only the storage is exercised here)."""
    for k, v in {**postgres, "DAGSTER_PG_DB": "vak_k8s"}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("VAK_IMAGE", "vak:test")
    monkeypatch.setenv("VAK_K8S_NAMESPACE", "vak")
    with dg.DagsterInstance.from_config(str(_home(tmp_path, "k8s"))) as instance:
        assert instance.get_runs() == []
        assert instance.get_concurrency_config().run_queue_config.tag_concurrency_limits


def _runs(instance: dg.DagsterInstance, job: str) -> list[dg.DagsterRun]:
    return list(instance.get_runs(filters=dg.RunsFilter(job_name=job)))


def _gpu_intervals(instance: dg.DagsterInstance) -> list[tuple[float, float, str]]:
    """(start, end, run) of every transcripts step (the gpu pool's step) in the instance."""
    out = []
    for run in _runs(instance, "ingest_job"):
        start = end = None
        for e in instance.all_logs(run.run_id, of_type={dg.DagsterEventType.STEP_START,
                                                         dg.DagsterEventType.STEP_SUCCESS,
                                                         dg.DagsterEventType.STEP_FAILURE}):
            if e.step_key == "transcripts":
                if e.dagster_event.event_type == dg.DagsterEventType.STEP_START:
                    start = e.timestamp
                else:
                    end = e.timestamp
        if start is not None:
            out.append((start, end if end is not None else time.time(), run.run_id))
    return sorted(out)


@contextlib.contextmanager
def _daemon(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen]:
    """dagster-daemon on the workspace, in its own process group, torn down with its children."""
    with open(log, "w") as fh, processes.spawned([str(Path(sys.executable).parent / "dagster-daemon"), "run", "-w",
                                                  str(REPO / "workspace.yaml")], cwd=REPO, env=env, stdout=fh,
                                                 stderr=subprocess.STDOUT) as proc:
        yield proc


def _wait_for(what: str, cond, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(2)
    raise AssertionError(f"timed out waiting for {what}; daemon log tail:\n{log.read_text()[-4000:]}")


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_daemon_ingests_a_dropped_upload_once_and_vak_run_never_writes_it_too(postgres, tmp_path, monkeypatch):
    from vak_pipeline.orchestrate import run_pipeline

    root = tmp_path / "dataset"
    shutil.copytree(REPO / "data" / "raw" / "sample-chats", root / "raw" / "sample-chats")
    home = _home(tmp_path, "server")
    env = {**os.environ, **postgres, "DAGSTER_HOME": str(home), "VAK_DATA": str(root), "VAK_AUTOMATION": "on",
           "VAK_EXECUTOR": "in_process", "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1",
           "DAGSTER_TELEMETRY_DISABLED": "1"}
    for k, v in postgres.items():
        monkeypatch.setenv(k, v)
    label = str(root.resolve())
    log = tmp_path / "daemon.log"
    with dg.DagsterInstance.from_config(str(home)) as instance:
        first = run_pipeline(root, instance=instance, echo=lambda _: None)  # the pipeline on PostgreSQL
        assert first.success and first.release == "released"
        with _daemon(env, log):
            hidden = root / "raw" / ".late-chats"  # a delivery dropped whole while the daemon watches
            _new_chats(hidden)
            hidden.rename(root / "raw" / "late-chats")

            def late_ingest() -> list[dg.DagsterRun]:
                return [r for r in _runs(instance, "ingest_job") if r.tags.get("dagster/partition") == "late-chats"]

            _wait_for("the sensor's ingest run of late-chats to start",
                      lambda: any(r.status in (dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.SUCCESS)
                                  for r in late_ingest()), 240, log)
            said: list[str] = []  # `vak run` on the same upload while the daemon's run ingests it
            cli = threading.Thread(target=lambda: run_pipeline(root, uploads=["late-chats"], instance=instance,
                                                               echo=said.append))
            cli.start()
            _wait_for("a sensor-launched publish run to succeed",
                      lambda: any(r.status == dg.DagsterRunStatus.SUCCESS and
                                  r.tags.get("vak/launched_by") == "sensor" for r in _runs(instance, "publish_job")),
                      300, log)
            cli.join(timeout=240)
            assert not cli.is_alive()
        ingests, publishes = _runs(instance, "ingest_job"), _runs(instance, "publish_job")
        gpu = _gpu_intervals(instance)
    by_upload: dict[str, list[str]] = {}
    for r in ingests:
        by_upload.setdefault(r.tags["dagster/partition"], []).append(r.tags["vak/launched_by"])
    assert by_upload == {"sample-chats": ["cli"], "late-chats": ["sensor"]}, said  # one ingest per upload
    assert any("late-chats" in line and ("skipped" in line or "waiting" in line) for line in said), said
    assert [r.tags["vak/launched_by"] for r in publishes].count("sensor") == 1
    assert all(r.status == dg.DagsterRunStatus.SUCCESS for r in [*ingests, *publishes])
    assert {r.tags["vak/data"] for r in [*ingests, *publishes]} == {label}
    for (_, end, _), (start, _, _) in zip(gpu, gpu[1:], strict=False):
        assert end <= start  # never two transcripts steps at once
    assert '"late-chats-' in (root / "vakforge.jsonl").read_text()
