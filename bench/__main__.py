"""Run every bench_*.py module and print one table: value, reference measured in the same run, ratio.

Each module exposes `run(quick: bool) -> list[dict]` with rows {bench, metric, value, unit, reference,
ratio, note}. Results also go to bench/out/results.json with the machine they came from.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import time
import traceback
from pathlib import Path

HERE = Path(__file__).parent


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}"


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench")
    ap.add_argument("names", nargs="*", help="bench modules to run (e.g. validate audio); default all")
    ap.add_argument("--quick", action="store_true", help="smaller inputs (minutes, not tens of minutes)")
    args = ap.parse_args()
    mods = sorted(p.stem for p in HERE.glob("bench_*.py"))
    if args.names:
        mods = [m for m in mods if m.removeprefix("bench_") in args.names]
    rows: list[dict] = []
    for name in mods:
        t0 = time.perf_counter()
        print(f"== {name} ...", flush=True)
        try:
            rows.extend(importlib.import_module(f"bench.{name}").run(quick=args.quick))
        except Exception:  # one broken bench must not hide the others' figures
            rows.append({"bench": name, "metric": "ERROR", "value": None, "note": traceback.format_exc(limit=3)})
        print(f"   {name} took {time.perf_counter() - t0:.1f} s", flush=True)
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    (out / "results.json").write_text(json.dumps({"machine": machine(), "quick": args.quick, "rows": rows},
                                                 indent=2, default=str))
    (out / "results.md").write_text(f"{machine()}\n\n{markdown_table(rows)}")
    print_table(rows)
    print(f"machine: {machine()}")


def _fmt(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.3g}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


def markdown_table(rows: list[dict]) -> str:
    """The table as Markdown (bench/out/results.md), ready for the README."""
    cols = ["bench", "metric", "value", "unit", "reference", "ratio", "note"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        cells = [_fmt(r.get(c)).replace("|", "/").replace("\n", " ") for c in cols]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def print_table(rows: list[dict]) -> None:
    cols = ["bench", "metric", "value", "unit", "reference", "ratio", "note"]
    table = [[_fmt(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(c), *(len(t[i]) for t in table)) if table else len(c) for i, c in enumerate(cols)]
    widths[-1] = min(widths[-1], 60)
    print(" | ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for t in table:
        print(" | ".join(v[:w].ljust(w) for v, w in zip(t, widths, strict=True)))


if __name__ == "__main__":
    main()
