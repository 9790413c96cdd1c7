"""The review round trip against a real Label Studio server: a project with the SHIPPED labeling config, the
tasks `vak review export` wrote, a reviewer's annotation submitted through the API (a text edited with a phone
number typed in, a boundary moved, a speaker swapped, a PII span added), the JSON export read by `vak review
import`, and the release that follows: corrected, verified_by_human, the typed number redacted. And the task
as a reviewer sees it in the UI (headless Chromium).

Needs `.venv-label-studio` (`./dev test` installs it) or VAK_LABEL_STUDIO_BIN; skipped with the reason without.
VAK_REVIEW_SCREENSHOT=<path> also keeps the screenshot there (docs/review/label_studio_task.png was made so)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from vak_pipeline.review.annotations import import_export
from vak_pipeline.review.settings import ReviewSettings
from vak_pipeline.review.tasks import export_tasks, label_config

from . import builders as b
from .test_review_corrections import PHONE, reviewer_edits

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture()
def call(label_studio):
    """The reviewed call's data root under the server's document root, so the server can serve its audio."""
    root = label_studio.document_root / "vak-data"
    shutil.rmtree(root, ignore_errors=True)
    layout = b.make_call(root)
    b.rebuild(layout)
    return layout


def test_tasks_go_to_label_studio_and_a_reviewers_corrections_come_back_into_the_release(label_studio, call,
                                                                                         tmp_path):
    res = export_tasks(call, ReviewSettings(audio_url_prefix="/data/local-files/?d=vak-data/"))
    tasks = json.loads(call.root.joinpath("work/review/tasks.json").read_text())
    assert res.tasks == 1
    with label_studio.client() as ls:
        project = ls.create_project("vak review", label_config())  # the server accepts the shipped config
        ls.connect_local_storage(project, call.root)
        [task_id] = ls.import_tasks(project, tasks)
        [listed] = ls.tasks(project)
        assert listed["data"]["conv_id"] == "calls-call"
        [predicted] = listed["predictions"]
        result = predicted["result"]
        reviewer_edits(result, listed)  # as a reviewer would: edit, move, swap, mark
        ls.submit_annotation(task_id, result, lead_time_s=40.0)
        exported = ls.export(project)

        seen = _screenshot(label_studio, project, task_id, tmp_path)
    assert "i want to change my billing adress" in seen["text"]

    imported = import_export(call, exported)
    assert (imported.reviewed, imported.changed_turns) == (1, 3), imported.issues
    assert imported.kinds == {"boundaries": 1, "lang": 1, "pii_added": 1, "speaker": 1, "text": 1}
    tag, red = b.rebuild(call)
    assert (tag.reviewed, tag.reviewed_turns, tag.review_unfit) == (1, 3, 0) and red.failed == 0
    [rec] = b.records(call)
    a, u, c = rec["turns"]
    assert rec["meta"]["transcription"]["verified_by_human"] is True and rec["meta"]["pii_redacted"] is True
    assert a["end"] == 2.1 and "<PERSON_1>" in a["text"]
    assert u["text"] == "i want to change my billing address call me on <PHONE_1>" and PHONE not in json.dumps(rec)
    assert (c["speaker"], c["lang"]) == ("user", "en-US")


def _screenshot(server, project: int, task_id: int, tmp_path) -> dict:
    from vak_pipeline_tests.label_studio import screenshot_task

    seen = screenshot_task(server, project, task_id, tmp_path / "label_studio_task.png",
                           shows="sure i can help with that")
    keep = os.environ.get("VAK_REVIEW_SCREENSHOT")
    if keep:
        shutil.copy(seen["png"], keep)
    return seen
