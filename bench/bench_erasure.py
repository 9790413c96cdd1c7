"""Erasure cost: erase one conversation from a dataset of chats and compare with a full publish.

The dataset is scripts/make_corpus.py's chats (planted fake PII in about one in five), kept as text
(`synth: {render: none}`) so the figure is erasure's, not rendering's. Both runs are `vak` commands in child
processes on the same data directory: first `vak run` (the first ingest and publish: the reference), then
`vak erase --conversation ID --yes`, which appends the ledger entry, re-ingests the upload (every unchanged
line reused) and publishes the next release. Aim: erasure costs about one publish, memory flat.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _vak(*args: str, cwd: Path) -> tuple[float, float, str]:
    """(seconds, peak RSS MiB of the child and its children, output) of one `vak` command."""
    code = ("import resource, sys, time; from vak_pipeline.cli import app; t=time.perf_counter()\n"
            "try:\n    app(sys.argv[1:], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
            "print('__T__', time.perf_counter()-t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024)")
    env = dict(os.environ, HF_HUB_OFFLINE="1", DAGSTER_HOME="", DAGSTER_TELEMETRY_DISABLED="1")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, env=env,
                         timeout=3600)
    line = [x for x in out.stdout.splitlines() if x.startswith("__T__")]
    if not line:
        raise RuntimeError(f"vak {' '.join(args)} failed: {out.stderr[-1500:]}")
    _, secs, rss = line[-1].split()
    return float(secs), float(rss), out.stdout


def run(quick: bool = False, size: int | None = None) -> list[dict]:
    sys.path.insert(0, str(ROOT / "scripts"))
    from make_corpus import make_upload

    n = size or (1_000 if quick else 10_000)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        make_upload(root, "chats", 0, n)
        desc = root / "raw" / "chats" / "upload.yaml"
        desc.write_text(desc.read_text() + "\nsynth: {render: none}\n")
        t_pub, rss_pub, _ = _vak("run", "--data", str(root), cwd=ROOT)
        t0 = time.perf_counter()
        t_erase, rss_erase, out = _vak("erase", "--data", str(root), "--conversation", "chats-chats-chat-0000042",
                                       "--yes", "--reference", "bench", cwd=ROOT)
        ok = "no trace left" in out
        _ = time.perf_counter() - t0
    return [
        {"bench": "erasure", "metric": f"erase 1 of {n:,} conversations (re-ingest + publish + verify)",
         "value": t_erase, "unit": "s", "reference": t_pub, "ratio": t_erase / t_pub,
         "note": f"reference: the first ingest + publish of the same data; verified clean: {ok}"},
        {"bench": "erasure", "metric": "peak RSS of vak erase", "value": rss_erase, "unit": "MiB",
         "reference": rss_pub, "ratio": rss_erase / rss_pub, "note": "reference: peak RSS of the first vak run"},
    ]


if __name__ == "__main__":
    import argparse

    from .__main__ import print_table

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=1_000, help="conversations in the dataset (full bench: 10000)")
    print_table(run(size=ap.parse_args().size))
