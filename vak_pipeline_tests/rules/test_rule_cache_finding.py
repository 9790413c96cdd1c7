"""A finding kept by the rule cache (rules.cache.Finding) is written back as the very lines publish wrote."""

from __future__ import annotations

import pytest

from vak_pipeline.rules.cache import Finding
from vak_pipeline.storage import dumps_line


@pytest.mark.timeout(30)
@pytest.mark.parametrize("line", [None, {"id": "c1", "text": 'two\nlines, a \u2028 separator, \u00e9 and "quotes"'}])
def test_a_kept_finding_reads_back_the_lines_and_tallies_it_was_made_from(line):
    issues = [{"code": "turn_gap", "severity": "WARN", "family": "turns", "message": "a\nb"}, {"code": "x"}]
    finding = Finding.of("c1", line is not None, line, issues)
    kept = Finding.loads(finding.dumps())
    assert kept == finding
    assert kept.line == line and kept.issues == issues
    assert kept.line_text == (dumps_line(line) if line is not None else None)
    assert kept.issue_lines == [dumps_line(i) for i in issues]
    assert kept.tallies == [["turn_gap", "WARN", "turns"], ["x", None, None]]


@pytest.mark.timeout(30)
def test_a_kept_chat_carries_the_key_identity_indexes_its_text_by_and_a_call_does_not():
    from vak_pipeline.identity.records import text_identity

    chat = {"id": "c1", "turns": [{"speaker": "user", "text": "my parcel never arrived"}]}
    call = {**chat, "audio": {"path": "audio/c1.wav"}}
    kept = Finding.loads(Finding.of("c1", True, chat, []).dumps())
    assert kept.text_identity == list(text_identity(chat)) and kept.text_identity[0] == "c1"
    assert Finding.of("c1", True, call, []).text_identity is None  # a recording: identified by its file
    assert Finding.of("c1", False, None, []).text_identity is None
