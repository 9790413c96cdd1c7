"""Helpers shared by the benchmarks: timing, peak memory of a child process."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def peak_rss_mb(code: str, *args: str) -> float:
    """Run `code` in a fresh Python process and return its peak RSS in MiB (ru_maxrss of the child)."""
    wrapper = (
        "import resource, sys, json\n"
        f"{code}\n"
        "print('__PEAK__' + json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))\n"
    )
    out = subprocess.run([sys.executable, "-c", wrapper, *args], capture_output=True, text=True, check=True)
    line = [x for x in out.stdout.splitlines() if x.startswith("__PEAK__")][-1]
    return float(json.loads(line[len("__PEAK__"):]))


def row(bench: str, metric: str, value: Any, unit: str = "", reference: Any = None, ratio: Any = None,
        note: str = "") -> dict:
    return {"bench": bench, "metric": metric, "value": value, "unit": unit, "reference": reference,
            "ratio": ratio, "note": note}
