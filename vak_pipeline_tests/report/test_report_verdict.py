"""One verdict model: `release.ReleaseVerdict` is what the release step decided; the steward's `Verdict` is
only a view of it joined with the report's own findings (`Verdict.of`), the same for the report built
before the decision and for the page marked BLOCKED after it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from vak_pipeline.release import ReleaseVerdict
from vak_pipeline.report.steward import Verdict

pytestmark = pytest.mark.timeout(60)

BLOCKED = ReleaseVerdict(status="blocked", reasons=["rules_provenance failed: consent missing"])


def test_nothing_found_and_nothing_decided_reads_release():
    v = Verdict.of(None, [], [])
    assert (v.status, v.reasons, v.found) == ("release", [], [])


def test_findings_that_do_not_block_read_review():
    v = Verdict.of(ReleaseVerdict(status="released"), [], ["2 row(s) rejected by validation"])
    assert (v.status, v.reasons) == ("review", ["2 row(s) rejected by validation"])


def test_a_blocked_release_leads_the_reasons_and_the_reports_own_findings_stay_apart():
    v = Verdict.of(BLOCKED, ["splits.json is missing"], ["2 row(s) rejected by validation"])
    assert v.status == "blocked"
    assert v.reasons[0] == "not released: rules_provenance failed: consent missing"
    assert v.reasons[-2:] == ["splits.json is missing", "2 row(s) rejected by validation"]
    assert v.found == ["splits.json is missing", "2 row(s) rejected by validation"]
    again = Verdict.of(BLOCKED, v.found, [])  # what marking the page BLOCKED does: the same reasons, once
    assert again.reasons == v.reasons


def test_the_steward_view_speaks_its_own_words_never_the_release_steps():
    with pytest.raises(ValidationError):
        Verdict(status="released")
