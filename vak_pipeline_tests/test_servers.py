"""A real part a test needs is skipped locally when missing, and fails the run in CI."""

from __future__ import annotations

import pytest

from vak_pipeline_tests.servers import in_ci, missing


@pytest.mark.parametrize(("value", "ci"), [("true", True), ("1", True), ("", False), ("false", False), ("0", False)])
def test_ci_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch, value: str, ci: bool) -> None:
    monkeypatch.setenv("CI", value)
    assert in_ci() is ci


def test_a_missing_server_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs a thing"):
        missing("needs a thing")


def test_a_missing_server_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run this test"):
        missing("needs a thing")
