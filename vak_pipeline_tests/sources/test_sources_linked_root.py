"""Issue 26 (3): a data root, `raw/` or upload folder that is a symbolic link is refused before anything runs,
with one sentence naming the path and the fix (nothing is read through a link, so nothing outside the data
directory is read); `vak run` exits 2 without a traceback, and a Dagster step fails with the same sentence."""

from __future__ import annotations

import dagster as dg
import pytest
from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.defs.resources import DataResource
from vak_pipeline.orchestrate import run_pipeline
from vak_pipeline.uploads.links import LinkedDataPath, data_root_link
from vak_pipeline_tests.hardening_inputs import UPLOAD_YAML

pytestmark = pytest.mark.timeout(120)


def _delivery(path):
    path.mkdir(parents=True)
    (path / "upload.yaml").write_text(UPLOAD_YAML)
    return path


def test_a_linked_raw_folder_or_data_root_is_refused_naming_the_path_and_the_fix(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    _delivery(elsewhere / "raw" / "u1")
    root = tmp_path / "data"
    root.mkdir()
    (root / "raw").symlink_to(elsewhere / "raw")
    with pytest.raises(LinkedDataPath) as exc:
        run_pipeline(root, echo=lambda _: None)
    assert f"{root / 'raw'} is a symbolic link" in str(exc.value) and "move the deliveries" in str(exc.value)
    assert not (root / "work").exists() and not (root / ".dagster").exists()  # nothing ran, nothing written

    linked_root = tmp_path / "linked-data"
    linked_root.symlink_to(elsewhere)
    res = CliRunner().invoke(app, ["run", "--data", str(linked_root)])
    assert res.exit_code == 2
    assert f"the data directory {linked_root} is a symbolic link" in res.output
    assert f"vak run --data {elsewhere}" in res.output and "Traceback" not in res.output


def test_a_linked_upload_folder_is_named_and_a_real_tree_passes(tmp_path):
    root = tmp_path / "data"
    _delivery(root / "raw" / "real")
    _delivery(tmp_path / "outside")
    (root / "raw" / "linked").symlink_to(tmp_path / "outside")
    assert data_root_link(root) is None and data_root_link(root, "real") is None
    why = data_root_link(root, "linked")
    assert why.startswith(f"{root / 'raw' / 'linked'} is a symbolic link") and "upload folder itself" in why


def test_a_dagster_step_on_a_linked_root_fails_with_the_sentence(tmp_path):
    from vak_pipeline.defs.speech import tagged_turns

    _delivery(tmp_path / "elsewhere" / "raw" / "u1")
    (tmp_path / "data").symlink_to(tmp_path / "elsewhere")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("uploads", ["u1"])
        res = dg.materialize([tagged_turns], partition_key="u1", instance=instance, raise_on_error=False,
                             resources={"data": DataResource(root=str(tmp_path / "data"))})
        assert not res.success
        text = " ".join(str(e.event_specific_data) for e in res.all_events if e.is_failure)
    assert "is a symbolic link; nothing is read through a link" in text
    assert not (tmp_path / "elsewhere" / "work").exists()
