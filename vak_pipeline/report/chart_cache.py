"""The steward report's PNG charts kept across publishes (issue 34): a chart is drawn only when what it plots changed.

A chart's bytes are a function of its spec (kind, labels, values, captions: the plotted data), REPORT_VERSION
(bumped when a chart's drawing changes) and the installed matplotlib's version, all hashed into its key; the
spec is data, never source bytes. Stored as work/.publish/report_charts/<key>.png; charts the latest report
did not use are removed when it closes, so the store holds one report's charts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from ..storage import atomic_write_bytes


def _matplotlib_version() -> str:
    try:
        return version("matplotlib")
    except PackageNotFoundError:
        return "-"


class ChartCache:
    """`png(spec, draw)`: the stored bytes for `spec`, else `draw(spec)` (stored); `close` keeps what was used."""

    def __init__(self, root: Path | None, report_version: str) -> None:
        self.root, self.report_version = root, report_version
        self.drawn = 0  # charts rendered by matplotlib in this report
        self.reused = 0  # charts whose bytes came from the store
        self._used: set[str] = set()
        self._mpl = _matplotlib_version()

    def key(self, spec: dict[str, Any]) -> str:
        shaping = [self.report_version, self._mpl, spec]
        return hashlib.sha256(json.dumps(shaping, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def png(self, spec: dict[str, Any], draw: Callable[[dict[str, Any]], bytes]) -> bytes:
        key = self.key(spec)
        self._used.add(key)
        path = self.root / f"{key}.png" if self.root is not None else None
        if path is not None:
            try:
                data = path.read_bytes()
                self.reused += 1
                return data
            except OSError:
                pass
        data = draw(spec)
        self.drawn += 1
        if path is not None:
            try:
                atomic_write_bytes(path, data)
            except OSError:  # an unwritable store: the chart is still right, only not kept
                pass
        return data

    def close(self) -> None:
        """Remove the stored charts this report did not use."""
        if self.root is None or not self.root.is_dir():
            return
        for old in self.root.glob("*.png"):
            if old.stem not in self._used:
                try:
                    old.unlink()
                except OSError:
                    pass
