"""The steward sees human review: the share of each split that is human-verified, and every correction that no
longer fits, in report.json and in a section of the steward report."""

from __future__ import annotations

import shutil

import pytest

from vak_pipeline.core.erasure import ErasureEntry, append_entry, digest, now
from vak_pipeline.report.funnel import build_funnel
from vak_pipeline.report.steward import SECTIONS, _review_tables, summarize
from vak_pipeline.review.annotations import import_export

from . import builders as b
from .test_review_corrections import reviewer_edits, task_of

pytestmark = pytest.mark.timeout(300)


def test_the_report_shows_the_human_verified_share_and_the_corrections_not_applied(tmp_path):
    layout = b.make_call(tmp_path)
    b.rebuild(layout)
    import_export(layout, [b.annotate(task_of(layout), reviewer_edits)])
    b.rebuild(layout)
    shutil.copy(layout.redacted("calls"), layout.manifest)  # the release, as publish would write it
    s = summarize(layout)
    assert s.as_dict()["human_verified_by_split"] == {"(no splits.json)": {"recordings": 1, "verified": 1,
                                                                           "share": 1.0}}
    shares, unfit = _review_tables(layout, build_funnel(layout), s, 50)
    assert shares[2] == [["(no splits.json)", 1, 1, "100.0%"]] and unfit[2] == []
    assert "review" in SECTIONS and "review_tasks" in SECTIONS["review"][1]

    append_entry(layout.root, ErasureEntry(at=now(), selector="conversation", conversations=[digest("calls-call")]))
    b.rebuild(layout)
    _, unfit = _review_tables(layout, build_funnel(layout), summarize(layout), 50)
    assert unfit[0] == "1 review correction(s) not applied"
    assert [row[:3] for row in unfit[2]] == [["calls", "review_conversation_erased", "(erased)"]]
