"""Outputs at scale: splits, the cascaded LLM set and the Parquet export over 100,000 text conversations.

Generated text-only conversations (no audio; ~50 calls per agent voice and repeat customers who call
the same agent's queue, so splitting has real components; a third carry a tool call and its result).
Each stage runs in a fresh process so its peak RSS is its own. Reference, measured in the same run:
one streamed pass that reads and validates every record (iter_records), the floor any stage pays;
ratio = stage time / reference time (and peak RSS / reference peak RSS). Memory is also measured at a
tenth of the size: a streaming stage's peak should barely move. Quick mode: 10,000 conversations.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

from .common import row, run_stage

STAGES = {
    "read+validate (reference)": "from vak_pipeline.recipes.common import iter_records\n"
                                 "from pathlib import Path\n"
                                 "n = sum(1 for _ in iter_records(Path(root) / 'vakforge.jsonl'))",
    "splits": "from vak_pipeline.splits import split_manifest\nfrom pathlib import Path\n"
              "split_manifest(Path(root) / 'vakforge.jsonl', Path(root) / 'splits.json')",
    "cascaded llm": "from vak_pipeline.recipes.cascaded import CascadedConfig, export_cascaded\n"
                    "export_cascaded(root, CascadedConfig(parts=['llm']))",
    "parquet": "from vak_pipeline.recipes.parquet import export_parquet\nexport_parquet(root)",
}


def write_manifest(path: Path, n: int, seed: int = 0) -> None:
    """n canonical records, streamed; valid against VakRecord (checked on the first one)."""
    from vak_pipeline.schema import VakRecord
    from vak_pipeline.storage import JsonlWriter

    rnd = random.Random(seed)
    words = "please check my order status the delivery was late again can you help me with a refund today".split()
    with JsonlWriter(path) as w:
        for i in range(n):
            turns, t = [], 0.0
            agent = rnd.randrange(n // 50 + 1)  # ~50 calls per agent voice; customers call back the same team
            for k in range(rnd.randint(4, 10)):
                speaker = "user" if k % 2 == 0 else "agent"
                text = " ".join(rnd.choice(words) for _ in range(rnd.randint(4, 18)))
                turns.append({"speaker": speaker, "start": round(t, 2), "end": round(t + 2.5, 2), "text": text,
                              "lang": "en"})
                t += 2.7
                if speaker == "agent" and k == 1 and i % 3 == 0:
                    turns.append({"speaker": "agent", "start": round(t, 2), "end": round(t, 2),
                                  "tool_call": {"id": f"call_{i}", "name": "order_status",
                                                "arguments": {"order_id": f"<ORDER_ID_{k}>"}}})
                    turns.append({"speaker": "tool", "start": round(t, 2), "end": round(t, 2),
                                  "tool_result": {"id": f"call_{i}", "content": {"status": "shipped"}}})
            rec = {"id": f"conv_{i:07d}", "schema_version": "0.1", "locale": "en-US",
                   "language": {"primary": "en-US", "mix": ["en"]}, "system_prompt": "You are a support agent.",
                   "tools": [{"name": "order_status", "description": "Look up an order",
                              "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}}}],
                   "turns": turns,
                   "meta": {"source": "synthetic", "consent": "synthetic",
                            "speakers": {"agent": f"voice-{agent}", "user": f"cust-{agent}-{rnd.randrange(30)}"}}}
            if i == 0:
                VakRecord.model_validate(rec)
            w.write(rec)


def run(quick: bool) -> list[dict]:
    n = 10_000 if quick else 100_000
    tmp = Path(tempfile.mkdtemp(prefix="vak-bench-outputs-"))
    rows: list[dict] = []
    try:
        results: dict[int, dict[str, dict]] = {}
        for size in (n // 10, n):
            root = tmp / f"n{size}"
            root.mkdir()
            write_manifest(root / "vakforge.jsonl", size)
            results[size] = {name: run_stage(body, root) for name, body in STAGES.items()}
        mb = (tmp / f"n{n}" / "vakforge.jsonl").stat().st_size / 2**20
        ref = results[n]["read+validate (reference)"]
        rows.append(row("outputs", f"manifest size ({n:,} conversations)", round(mb, 1), "MiB"))
        for name, r in results[n].items():
            rows.append(row("outputs", f"{name}: time", round(r["s"], 2), "s", reference=round(ref["s"], 2),
                            ratio=round(r["s"] / ref["s"], 2), note=f"{n / r['s']:,.0f} conversations/s"))
            small = results[n // 10][name]
            rows.append(row("outputs", f"{name}: peak RSS", round(r["rss"], 1), "MiB",
                            reference=round(ref["rss"], 1), ratio=round(r["rss"] / ref["rss"], 2),
                            note=f"{small['rss']:.0f} MiB at {n // 10:,} conversations"))
        splits = json.loads((tmp / f"n{n}" / "splits.json").read_text())
        rows.append(row("outputs", "splits counts", json.dumps(splits["counts"]), note=f"seed {splits['seed']}"))
        return rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover
    for r in run(quick="--quick" in sys.argv):
        print(r)
