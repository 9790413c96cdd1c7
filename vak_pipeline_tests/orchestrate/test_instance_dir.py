"""A dataset's own Dagster instance (DATA/.dagster) is either absent or whole.

Dagster creates its SQLite event-log index only when the file is absent, so a `vak run` killed while the
tables were being made used to leave an instance that every later run refused ("requires the dynamic
partitions table"). The instance is now made under a hidden temporary name and renamed when complete; what a
kill leaves under that name is swept by the next creation.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from vak_pipeline import orchestrate
from vak_pipeline.orchestrate import ensure_instance_dir, open_instance

pytestmark = pytest.mark.timeout(120)


def test_a_new_instance_is_complete_and_takes_dynamic_partitions(tmp_path: Path):
    home = ensure_instance_dir(tmp_path / ".dagster")
    assert (home / "dagster.yaml").read_text(encoding="utf-8") == orchestrate._instance_yaml()
    with open_instance(home) as inst:
        inst.add_dynamic_partitions("uploads", ["sample-chats"])
        assert list(inst.get_dynamic_partitions("uploads")) == ["sample-chats"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".dagster"]  # no temporary left beside it


def test_a_creation_cut_short_leaves_no_instance_and_the_next_one_succeeds(tmp_path: Path, monkeypatch):
    home = tmp_path / ".dagster"
    real = dg.DagsterInstance.from_config

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # stands for the kill: it ends the creation before the rename

    monkeypatch.setattr(dg.DagsterInstance, "from_config", killed)
    with pytest.raises(KeyboardInterrupt):
        ensure_instance_dir(home)
    assert not home.exists()
    monkeypatch.setattr(dg.DagsterInstance, "from_config", real)
    with open_instance(home) as inst:
        assert list(inst.get_dynamic_partitions("uploads")) == []


def test_what_a_sigkill_left_under_the_temporary_name_is_swept(tmp_path: Path):
    stale = tmp_path / ".dagster.new-abc123"
    (stale / "history" / "runs").mkdir(parents=True)
    (stale / "history" / "runs" / "index.db").write_bytes(b"")  # a half-made index: Dagster would never fix it
    with open_instance(tmp_path / ".dagster") as inst:
        assert list(inst.get_dynamic_partitions("uploads")) == []
    assert not stale.exists()


def test_an_existing_instance_and_its_settings_are_kept(tmp_path: Path):
    home = ensure_instance_dir(tmp_path / ".dagster")
    with open_instance(home) as inst:
        inst.add_dynamic_partitions("uploads", ["a"])
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    with open_instance(home) as inst:
        assert list(inst.get_dynamic_partitions("uploads")) == ["a"]
    assert (home / "dagster.yaml").read_text(encoding="utf-8") == "telemetry:\n  enabled: false\n"
