"""A million records: validate, split and export (cascaded LLM set + Parquet) 1,000,000 text conversations.

Small generated records (~500 bytes: three or four short turns, a speaker pair; about 50 conversations
per agent voice, so splitting has real components) keep the disk use near 1 GB; everything is deleted
afterwards. Each stage runs in its own process at 100,000 and at 1,000,000 records, so its peak RSS is
its own. Reference, measured in the same run: the same stage at a tenth of the size. A stage that
streams has a memory ratio near 1 (splits and the exports keep the assignment in the SQLite split
index, not in dicts). The two exports also run with 2 workers over manifest shards, against 1 process
at the same size. Quick mode: 10,000 and 100,000.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

from .common import row, run_stage

ROOT = Path(__file__).resolve().parent.parent


STAGES = {
    "validate": "from vak_pipeline.rules import ValidationContext, validate_manifest\n"
                "ok = sum(1 for r in validate_manifest(root / 'vakforge.jsonl', ValidationContext(base_dir=root)) "
                "if r.ok)\n"
                "assert ok > 0",
    "splits": "from vak_pipeline.splits import split_manifest\n"
              "split_manifest(root / 'vakforge.jsonl', root / 'splits.json')",
    "cascaded llm": "from vak_pipeline.recipes.cascaded import CascadedConfig, export_cascaded\n"
                    "export_cascaded(root, CascadedConfig(parts=['llm']))",
    "parquet": "from vak_pipeline.recipes.parquet import export_parquet\nexport_parquet(root)",
}
# the same exports over manifest shards in 2 worker processes (compared with 1 process at the same size)
PARALLEL = {
    "cascaded llm": "from vak_pipeline.recipes.cascaded import CascadedConfig, export_cascaded\n"
                    "export_cascaded(root, CascadedConfig(parts=['llm'], workers=2), out_dir=root / 'x2')",
    "parquet": "from vak_pipeline.recipes.parquet import ParquetConfig, export_parquet\n"
               "export_parquet(root, ParquetConfig(workers=2), out_dir=root / 'x2p')",
}
WORDS = "order refund late parcel invoice account please thanks broken delivery today status".split()


def write_small_manifest(path: Path, n: int, seed: int = 0) -> int:
    """n small canonical records (~500 bytes each), written line by line; returns bytes written."""
    rnd = random.Random(seed)
    agents = max(1, n // 50)
    size = 0
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            turns = []
            for k in range(rnd.randint(3, 4)):
                text = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 8)))
                turns.append({"speaker": "user" if k % 2 == 0 else "agent", "start": 0.0, "end": 0.0,
                              "text": text, "lang": "en"})
            a = rnd.randrange(agents)
            rec = {"id": f"c{i:07d}", "schema_version": "0.1", "locale": "en-US",
                   "language": {"primary": "en-US", "mix": ["en"]}, "turns": turns,
                   "meta": {"source": "synthetic", "consent": "synthetic",
                            "speakers": {"agent": f"v{a}", "user": f"u{a}-{rnd.randrange(40)}"}}}
            line = json.dumps(rec, separators=(",", ":")) + "\n"
            size += len(line)
            fh.write(line)
    return size


def run(quick: bool) -> list[dict]:
    big = 100_000 if quick else 1_000_000
    small = big // 10
    tmp = Path(tempfile.mkdtemp(prefix="vak-bench-million-"))
    rows: list[dict] = []
    try:
        res: dict[int, dict[str, dict]] = {}
        for n in (small, big):
            root = tmp / f"n{n}"
            root.mkdir()
            nbytes = write_small_manifest(root / "vakforge.jsonl", n)
            res[n] = {name: run_stage(body, root) for name, body in STAGES.items()}
            if n == big:
                for name, body in PARALLEL.items():
                    r, one = run_stage(body, root), res[n][name]
                    rows.append(row("million", f"{name}: 2 workers vs 1 at {big:,}", round(r["s"], 1), "s",
                                    reference=round(one["s"], 1), ratio=round(one["s"] / r["s"], 2),
                                    note=f"speed-up x{one['s'] / r['s']:.2f}; parent peak RSS {r['rss']:.0f} MiB"))
                rows.append(row("million", f"manifest ({n:,} conversations)", round(nbytes / 2**20), "MiB",
                                note=f"{nbytes / n:.0f} bytes/record"))
                exports = sum(p.stat().st_size for p in (root / "exports").rglob("*") if p.is_file())
                shutil.rmtree(root / "x2", ignore_errors=True)
                shutil.rmtree(root / "x2p", ignore_errors=True)
                rows.append(row("million", "exports on disk", round(exports / 2**20), "MiB"))
            shutil.rmtree(root, ignore_errors=True)
        for name in STAGES:
            r, s = res[big][name], res[small][name]
            rows.append(row("million", f"{name}: time at {big:,}", round(r["s"], 1), "s", reference=round(s["s"], 1),
                            ratio=round(r["s"] / s["s"], 1), note=f"{big / r['s']:,.0f} records/s; ref = {small:,}"))
            rows.append(row("million", f"{name}: peak RSS at {big:,}", round(r["rss"]), "MiB",
                            reference=round(s["rss"]), ratio=round(r["rss"] / s["rss"], 2),
                            note=f"ref = peak at {small:,}; +{(r['rss'] - s['rss']) * 2**20 / (big - small):.0f} "
                                 "bytes/record"))
        return rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover
    for r in run(quick="--quick" in sys.argv):
        print(r)
