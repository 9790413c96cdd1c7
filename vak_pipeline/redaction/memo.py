"""One bounded memo for a redaction run: what a pure function found for a key, remembered until `limit`
keys are held, then all forgotten at once, so memory stays flat on any upload (published.py, redact.py)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

V = TypeVar("V")


def remembered(memo: dict | None, key: Hashable, limit: int, compute: Callable[[], V]) -> V:
    """`compute()`, or what it gave for `key` before in `memo` (None: no memo, always computed)."""
    if memo is None:
        return compute()
    found = memo.get(key)
    if found is None:
        if len(memo) >= limit:
            memo.clear()
        found = memo[key] = compute()
    return found
