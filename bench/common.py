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


# The child's own peak: VmHWM of its memory map. Not ru_maxrss: Linux carries the parent's peak across
# fork + exec into the child's ru_maxrss, so a child of a big bench process would report the parent's size.
_PEAK = """
def _peak_mib():
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""


def peak_rss_mb(code: str, *args: str) -> float:
    """Run `code` in a fresh Python process and return its peak RSS in MiB (VmHWM of the child)."""
    wrapper = (
        "import sys, json\n"
        f"{_PEAK}\n"
        f"{code}\n"
        "print('__PEAK__' + json.dumps(_peak_mib()))\n"
    )
    out = subprocess.run([sys.executable, "-c", wrapper, *args], capture_output=True, text=True, check=True)
    line = [x for x in out.stdout.splitlines() if x.startswith("__PEAK__")][-1]
    return float(json.loads(line[len("__PEAK__"):]))


def row(bench: str, metric: str, value: Any, unit: str = "", reference: Any = None, ratio: Any = None,
        note: str = "") -> dict:
    return {"bench": bench, "metric": metric, "value": value, "unit": unit, "reference": reference,
            "ratio": ratio, "note": note}


_STAGE_CHILD = """
import json, sys, time
from pathlib import Path
{peak}
root = Path(sys.argv[1])
t0 = time.perf_counter()
{body}
print("__RESULT__" + json.dumps({{"s": time.perf_counter() - t0, "rss": _peak_mib()}}))
"""


def run_stage(body: str, root) -> dict:
    """Run `body` (with `root`, a Path, in scope) in a fresh Python: {"s": seconds, "rss": peak MiB}."""
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    code = _STAGE_CHILD.format(peak=_PEAK, body=body)
    out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, cwd=repo)
    lines = [x for x in out.stdout.splitlines() if x.startswith("__RESULT__")]
    if out.returncode or not lines:
        raise RuntimeError(f"stage failed: {out.stderr[-1500:]}")
    return json.loads(lines[-1][len("__RESULT__"):])
