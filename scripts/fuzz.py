"""Mutation fuzzer: N inputs through vak validate, both text importers, the upload descriptor and the redactor.

    python scripts/fuzz.py                 # 2000 inputs per target, seed 0
    python scripts/fuzz.py -n 20000 --seed 3

Seeds are the committed samples (data/raw/sample-chats, the format document's example record); each input is
a seed mutated at the JSON level or the byte level. A crash is any exception escaping a target (every problem
must come back as an Issue): the script prints each crash with its input saved under --out and exits 1.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vak_pipeline.rules import ValidationContext, validate_manifest  # noqa: E402
from vak_pipeline.schema import VakRecord  # noqa: E402
from vak_pipeline_tests.hardening_inputs import (  # noqa: E402
    HOSTILE_STRINGS,
    UPLOAD_YAML,
    mutate_bytes,
    mutate_json,
    run_aidb,
    run_descriptor,
    run_messages,
    run_redactor,
    seed_lines,
)

EXAMPLE = ROOT / "vak_pipeline_tests" / "fixtures" / "format" / "example_record.json"
CSV_SEED = ('file,conv_id,channel_map,user_speaker,names\ncall.wav,c1,"{""0"": ""user"", ""1"": ""agent""}",'
            'cust-1,"[""Priya""]"\n')


def _line(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"


def _input(rng: random.Random, seed_obj) -> bytes:
    """One fuzz input: a JSON-level mutation, a byte-level one, or both."""
    r = rng.random()
    if r < 0.6:
        return _line(mutate_json(seed_obj, rng, rng.randint(1, 5)))
    if r < 0.9:
        return mutate_bytes(_line(seed_obj), rng)
    return mutate_bytes(_line(mutate_json(seed_obj, rng, 2)), rng)


def run_all(n: int, seed: int, work: Path, out: Path | None = None) -> dict[str, dict[str, int]]:
    """Run n inputs per target; returns {target: {"inputs", "crashes", "issues"}}."""
    rng = random.Random(seed)
    example = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    aidb = [json.loads(b) for b in seed_lines(".aidb.jsonl")]
    msgs = [json.loads(b) for b in seed_lines(".messages.jsonl")]
    counts = {t: {"inputs": 0, "crashes": 0, "issues": 0}
              for t in ("validate", "aidb", "messages", "descriptor", "redactor")}

    def validate(blob: bytes) -> list:
        p = work / "m.jsonl"
        p.write_bytes(blob)
        return [i for r in validate_manifest(p, ValidationContext(base_dir=work)) for i in r.issues]

    def descriptor(blob: bytes) -> list:
        if rng.random() < 0.5:
            return run_descriptor(mutate_bytes(UPLOAD_YAML.encode(), rng), None, work)
        return run_descriptor(UPLOAD_YAML.encode(), mutate_bytes(CSV_SEED.encode(), rng), work)

    def redactor(blob: bytes) -> list:
        obj = mutate_json(example, rng, rng.randint(1, 4))
        if rng.random() < 0.5:  # random text in a spoken turn
            obj.setdefault("turns", [{}])
        try:
            rec = VakRecord.model_validate(obj)
        except ValueError:
            rec = VakRecord.model_validate(example)
            rec.turns[0].text = " ".join(rng.choice(HOSTILE_STRINGS) for _ in range(4)) or "x"
        run_redactor(rec, [rng.choice(HOSTILE_STRINGS)])
        return []

    targets = {
        "validate": lambda: validate(_input(rng, example)),
        "aidb": lambda: run_aidb(_input(rng, rng.choice(aidb)), work),
        "messages": lambda: run_messages(_input(rng, rng.choice(msgs)), work),
        "descriptor": lambda: descriptor(b""),
        "redactor": lambda: redactor(b""),
    }
    for name, target in targets.items():
        for i in range(n):
            counts[name]["inputs"] += 1
            try:
                counts[name]["issues"] += len(target())
            except Exception:  # a crash: every problem must be an Issue
                counts[name]["crashes"] += 1
                msg = traceback.format_exc(limit=4)
                print(f"CRASH {name} #{i}:\n{msg}", file=sys.stderr)
                if out is not None:
                    out.mkdir(parents=True, exist_ok=True)
                    for f in work.iterdir():
                        if f.is_file():
                            (out / f"{name}-{i}-{f.name}").write_bytes(f.read_bytes())
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=2000, help="inputs per target")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="save crashing inputs here")
    args = ap.parse_args()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        counts = run_all(args.n, args.seed, Path(tmp), args.out)
    total = sum(c["inputs"] for c in counts.values())
    crashes = sum(c["crashes"] for c in counts.values())
    for name, c in counts.items():
        print(f"{name:11s} inputs={c['inputs']:6d} crashes={c['crashes']:3d} issues={c['issues']}")
    print(f"total inputs={total} crashes={crashes} in {time.perf_counter() - t0:.1f} s")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
