"""A data root can be an fsspec URL: stages work in a local mirror that pulls what changed remotely and
pushes what they wrote, never writing back to raw/. file:// URLs go through the same fsspec code path
as s3:// (only the backend package differs), so these tests exercise the real mirror end to end."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import dagster as dg
import pytest

from vak_pipeline.defs.ingest import raw_uploads
from vak_pipeline.defs.resources import DataResource
from vak_pipeline.mirror import Mirror, is_url, local_root, step_scope
from vak_pipeline.orchestrate import run_pipeline

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "raw"


def _remote(tmp_path: Path) -> tuple[Path, str]:
    remote = tmp_path / "bucket" / "dataset"
    shutil.copytree(SAMPLE / "sample-chats", remote / "raw" / "sample-chats")
    return remote, f"file://{remote}"


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_urls_and_paths_are_told_apart():
    assert is_url("s3://bucket/data") and is_url("file:///srv/data")
    assert not is_url("/mnt/share/data") and not is_url("data")
    assert local_root("/mnt/share/data") == Path("/mnt/share/data")
    assert local_root("s3://bucket/a") != local_root("s3://bucket/b")


def test_pull_and_push_move_only_what_changed(tmp_path):
    remote, url = _remote(tmp_path)
    mirror = Mirror(url, tmp_path / "cache")
    first = mirror.pull()
    assert sorted(first.moved) == sorted(f"raw/sample-chats/{p.name}" for p in (SAMPLE / "sample-chats").iterdir())
    assert mirror.pull().moved == []

    (mirror.cache / "vakforge.jsonl").write_text("{}\n")
    (mirror.cache / "work" / "up").mkdir(parents=True)
    (mirror.cache / "work" / "up" / "report.json").write_text("{}")
    (mirror.cache / ".vakforge.jsonl.abc.tmp").write_text("half a file")  # a write in progress stays local
    (mirror.cache / "raw" / "sample-chats" / "upload.yaml").write_text("tampered")  # never pushed
    pushed = mirror.push()
    assert sorted(pushed.moved) == ["vakforge.jsonl", "work/up/report.json"]
    assert (remote / "vakforge.jsonl").read_text() == "{}\n"
    assert not (remote / ".vakforge.jsonl.abc.tmp").exists()
    assert (remote / "raw" / "sample-chats" / "upload.yaml").read_text() != "tampered"
    assert mirror.push().moved == []

    (mirror.cache / "work" / "up" / "report.json").unlink()  # a stage removed an output
    assert mirror.push().deleted == ["work/up/report.json"] and not (remote / "work" / "up" / "report.json").exists()

    (remote / "raw" / "sample-chats" / "tickets.aidb.jsonl").unlink()  # an upload changed remotely
    (remote / "raw" / "sample-chats" / "new.messages.jsonl").write_text("")
    pulled = mirror.pull()
    # the new file arrives, and the locally tampered copy is replaced by the remote original
    assert pulled.moved == ["raw/sample-chats/new.messages.jsonl", "raw/sample-chats/upload.yaml"]
    assert (mirror.cache / "raw" / "sample-chats" / "upload.yaml").read_bytes() == \
        (SAMPLE / "sample-chats" / "upload.yaml").read_bytes()
    assert pulled.deleted == ["raw/sample-chats/tickets.aidb.jsonl"]
    assert not (mirror.cache / "raw" / "sample-chats" / "tickets.aidb.jsonl").exists()


def test_a_dagster_step_with_a_url_root_pulls_before_and_pushes_after(tmp_path):
    remote, url = _remote(tmp_path)
    data = DataResource(root=url, cache=str(tmp_path / "cache"))
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["sample-chats"])
        result = dg.materialize([raw_uploads], partition_key="sample-chats", resources={"data": data},
                                instance=instance)
    assert result.success
    assert (remote / "work" / "sample-chats" / "inventory.json").is_file()  # written locally, pushed by teardown
    assert data.layout.root == tmp_path / "cache"


def test_vak_run_on_a_url_publishes_to_it_and_leaves_raw_untouched(tmp_path, monkeypatch):
    monkeypatch.setenv("VAK_CACHE", str(tmp_path / "caches"))
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    remote, url = _remote(tmp_path)
    raw_before = _tree(remote / "raw")
    lines: list[str] = []
    report = run_pipeline(url, echo=lines.append)
    assert report.success, lines
    for rel in ("vakforge.jsonl", "splits.json", ".publish_done.json", "exports/cascaded/build.json",
                "reports/steward/index.html", "work/sample-chats/redacted.jsonl"):
        assert (remote / rel).is_file(), rel
    assert not (remote / ".splits.json.sqlite").exists()  # the split index is a local cache
    assert _tree(remote / "raw") == raw_before
    mirror_dir = local_root(url)
    assert (mirror_dir / "vakforge.jsonl").read_bytes() == (remote / "vakforge.jsonl").read_bytes()

    # a second machine (empty cache) sees the work done and skips it
    monkeypatch.setenv("VAK_CACHE", str(tmp_path / "other-machine"))
    lines.clear()
    again = run_pipeline(url, echo=lines.append)
    assert again.success and all(r.skipped for r in again.runs), lines
    assert lines[-1].strip().startswith("0 file(s)"), lines  # nothing new to push
    assert os.listdir(remote / "raw") == ["sample-chats"]


@pytest.fixture
def s3_bucket(monkeypatch):
    """A real S3 API on localhost (moto's server, spoken to over HTTP by s3fs/aiobotocore), bucket 'calls'."""
    import s3fs
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    for key, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                       "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://{host}:{port}"}.items():
        monkeypatch.setenv(key, value)
    s3fs.S3FileSystem.clear_instance_cache()
    fs = s3fs.S3FileSystem()
    fs.mkdir("calls")
    yield fs
    s3fs.S3FileSystem.clear_instance_cache()
    server.stop()


def test_vak_run_on_an_s3_bucket(tmp_path, monkeypatch, s3_bucket):
    fs = s3_bucket
    monkeypatch.setenv("VAK_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    fs.put(str(SAMPLE / "sample-chats"), "calls/dataset/raw/sample-chats", recursive=True)
    raw_before = {p: i["ETag"] for p, i in fs.find("calls/dataset/raw", detail=True).items()}
    lines: list[str] = []
    report = run_pipeline("s3://calls/dataset", echo=lines.append)
    assert report.success, lines
    fs.invalidate_cache()
    for rel in ("vakforge.jsonl", "splits.json", "exports/parquet/build.json",
                "work/sample-chats/redacted.jsonl"):
        assert fs.isfile(f"calls/dataset/{rel}"), rel
    mirrored = local_root("s3://calls/dataset") / "vakforge.jsonl"
    assert fs.cat_file("calls/dataset/vakforge.jsonl") == mirrored.read_bytes()
    assert {p: i["ETag"] for p, i in fs.find("calls/dataset/raw", detail=True).items()} == raw_before

    monkeypatch.setenv("VAK_CACHE", str(tmp_path / "second-machine"))
    lines.clear()
    again = run_pipeline("s3://calls/dataset", echo=lines.append)
    assert again.success and all(r.skipped for r in again.runs), lines


def test_the_upload_sensor_lists_a_url_root_without_downloading(tmp_path):
    from vak_pipeline.defs.ingest import upload_sensor

    remote, url = _remote(tmp_path)
    resources = {"data": DataResource(root=url, cache=str(tmp_path / "cache"))}
    with dg.instance_for_test() as instance:
        with dg.build_sensor_context(instance=instance, cursor=None, resources=resources) as ctx:
            first = upload_sensor(ctx)
        assert [r.partition_key for r in first.run_requests] == ["sample-chats"]
        with dg.build_sensor_context(instance=instance, cursor=first.cursor, resources=resources) as ctx:
            assert not upload_sensor(ctx).run_requests
        (remote / "raw" / "sample-chats" / "more.messages.jsonl").write_text("")
        with dg.build_sensor_context(instance=instance, cursor=first.cursor, resources=resources) as ctx:
            assert [r.partition_key for r in upload_sensor(ctx).run_requests] == ["sample-chats"]
    assert not (tmp_path / "cache" / "raw").exists()


def test_a_step_pulls_what_it_needs_and_only_the_folders_of_the_rest(tmp_path):
    remote, url = _remote(tmp_path)
    shutil.copytree(SAMPLE / "sample-hinglish", remote / "raw" / "sample-hinglish")
    (remote / "work" / "sample-hinglish" / "audio").mkdir(parents=True)
    (remote / "work" / "sample-hinglish" / "audio" / "big.wav").write_bytes(b"RIFF" + bytes(1000))
    (remote / "work" / "sample-hinglish" / "redacted.jsonl").write_text("")
    (remote / "vakforge.jsonl").write_text("")
    publish = step_scope(None)
    assert publish("vakforge.jsonl") and publish("work/sample-hinglish/redacted.jsonl")
    assert not publish("raw/sample-hinglish/upload.yaml") and not publish("work/sample-hinglish/audio/big.wav")
    assert publish("work/sample-hinglish/release/audio/c1.wav")  # a record's files, placed by publish

    data = DataResource(root=url, cache=str(tmp_path / "cache"))
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["sample-chats", "sample-hinglish"])
        assert dg.materialize([raw_uploads], partition_key="sample-chats", resources={"data": data},
                              instance=instance).success
    cache = tmp_path / "cache"
    assert (cache / "raw" / "sample-chats" / "upload.yaml").is_file()
    assert (cache / "raw" / "sample-hinglish").is_dir()  # listed as an upload ...
    assert not any((cache / "raw" / "sample-hinglish").iterdir())  # ... but not downloaded
    assert not (cache / "work" / "sample-hinglish" / "audio" / "big.wav").exists()
    assert (cache / "vakforge.jsonl").is_file()


def test_vak_run_on_a_url_without_uploads_or_backend_says_what_to_do(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from vak_pipeline.cli import app

    monkeypatch.setenv("VAK_CACHE", str(tmp_path / "cache"))
    empty = CliRunner().invoke(app, ["run", "--data", f"file://{tmp_path / 'nothing-here'}"])
    assert empty.exit_code == 2 and "raw does not exist" in empty.output and "Traceback" not in empty.output
    unknown = CliRunner().invoke(app, ["run", "--data", "nosuchprotocol://bucket/data"])
    assert unknown.exit_code == 2 and "error:" in unknown.output and "Traceback" not in unknown.output
