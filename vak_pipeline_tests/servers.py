"""What a test does when a real server or browser it needs is not on this machine.

Locally a missing PostgreSQL, Chromium or Label Studio skips the test, saying how to get it. In CI (`CI` set,
as every CI service does) it fails instead: those tests are the proof that the real thing works, and a CI run
that quietly skipped them would pass without proving anything.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    """True where the environment says this is a CI run (`CI=true`, `CI=1`; `CI=false` or empty is not)."""
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}


def missing(why: str) -> NoReturn:
    """Skip with `why` here; fail with it in CI, where `.ci/run` (./dev test) was meant to install the part."""
    if in_ci():
        pytest.fail(f"{why} (CI must run this test: ./dev test installs it; see the warning it printed)",
                    pytrace=False)
    pytest.skip(why)
