"""`vak review export` writes the tasks and names the labeling config; `vak review import FILE` stores the
corrections and says what to run next; a bad export or missing flags are one line and exit 2, never a trace."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.core.corrections import load_corrections

from . import builders as b
from .test_review_corrections import reviewer_edits

pytestmark = pytest.mark.timeout(300)


def test_export_then_import_through_the_cli(tmp_path):
    layout = b.make_call(tmp_path / "data")
    b.rebuild(layout)
    runner = CliRunner()
    out = runner.invoke(app, ["review", "export", "--data", str(layout.root), "--conversation", "calls-call"])
    assert out.exit_code == 0, out.output
    assert "wrote 1 task(s), 3 turns (3 flagged: chosen 3)" in out.output and "label_config.xml" in out.output
    [task] = json.loads((layout.root / "work/review/tasks.json").read_text())
    export = tmp_path / "export.json"
    export.write_text(json.dumps([b.annotate(task, reviewer_edits)]))
    got = runner.invoke(app, ["review", "import", str(export), "--data", str(layout.root)])
    assert got.exit_code == 0, got.output
    assert "1 reviewed" in got.output and "3 turn(s) corrected" in got.output and "vak run --data" in got.output
    assert len(load_corrections(layout.root)) == 1


def test_import_refuses_a_bad_export_and_a_missing_source_in_one_line(tmp_path):
    runner = CliRunner()
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    got = runner.invoke(app, ["review", "import", str(bad), "--data", str(tmp_path)])
    assert got.exit_code == 2 and "not a readable JSON export" in got.output and "Traceback" not in got.output
    none = runner.invoke(app, ["review", "import", "--data", str(tmp_path)])
    assert none.exit_code == 2 and "--url" in none.output
    no_token = runner.invoke(app, ["review", "import", "--url", "http://127.0.0.1:9", "--project", "1",
                                   "--data", str(tmp_path)], env={"LABEL_STUDIO_API_KEY": ""})
    assert no_token.exit_code == 2 and "--token" in no_token.output
