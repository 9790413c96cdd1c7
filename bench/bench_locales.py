"""Locale packs: per-pack PII precision/recall and LID accuracy on the European packs, and what the
data-driven packs cost in PII throughput.

- bench/data/pii_eu.jsonl (from make_pii_eu.py: its own templates, name and street lists and check-digit
  code, code-switched and short turns included), two splits: `dev` (64 turns a pack; the packs were tuned
  on its misses) and `test` (56 turns a pack, templates written afterwards, never tuned on): precision/recall per pack
  over all types and over structured types (ids, phones, IBAN, postcodes), and `detect_lang` accuracy
  against the gold language (fallback: the pack's default language, as for a conversation in it).
- Throughput: `find_pii` over bench/data/pii_labelled.jsonl (the six original packs) with each pack as
  loaded from its file, against the same packs with the file-driven parts removed (`rules=None`, no
  number words): the reference is the pre-pack-file behaviour, measured in the same run. And the new
  packs' turns per second against the original packs' on the same number of turns.

    ./dev bench locales [--quick]
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from bench.bench_privacy import load, pr, score, total

EU = Path(__file__).parent / "data" / "pii_eu.jsonl"
LABELLED = Path(__file__).parent / "data" / "pii_labelled.jsonl"
STRUCTURED = {
    "phone",
    "iban",
    "nl_bsn",
    "de_idnr",
    "at_vnr",
    "se_personnummer",
    "fr_nir",
    "es_dni",
    "es_nie",
    "nl_postcode",
    "de_plz",
    "at_plz",
    "se_postnummer",
    "fr_code_postal",
    "es_codigo_postal",
}


def _rate(rows: list[dict], packs: dict, reps: int) -> float:
    from vak_pipeline.pii.recognizers import find_pii

    t0 = time.perf_counter()
    for _ in range(reps):
        for r in rows:
            find_pii(packs[r["locale"]], r["text"])
    return reps * len(rows) / (time.perf_counter() - t0)


def run(quick: bool) -> list[dict]:
    from vak_pipeline.locales import PACKS, get_pack
    from vak_pipeline.locales.lid import detect_lang
    from vak_pipeline.pii.recognizers import find_pii

    rows = load(EU)
    out: list[dict] = []
    for split, pack_id in sorted({(r["split"], r["locale"]) for r in rows}):
        sub = [r for r in rows if r["locale"] == pack_id and r["split"] == split]
        pack = get_pack(pack_id)
        preds = [[(m.type, m.start, m.end) for m in find_pii(pack, r["text"])] for r in sub]
        c = score(sub, preds)
        for label, types in (("all", None), ("structured", STRUCTURED)):
            p, rc = pr(total(c, types))
            out.append(
                {
                    "bench": "locales",
                    "metric": f"{split}/{pack_id}/{label}_precision",
                    "value": round(p, 3),
                    "unit": "",
                    "note": f"{len(sub)} turns",
                }
            )
            out.append(
                {
                    "bench": "locales",
                    "metric": f"{split}/{pack_id}/{label}_recall",
                    "value": round(rc, 3),
                    "unit": "",
                    "note": "aim structured >= 0.98" if label == "structured" else "",
                }
            )
        misses = sorted(t for t, v in c.items() if v["fn"] or v["fp"])
        right = sum(detect_lang(pack, r["text"], pack.default_lang) == r["lang"] for r in sub)
        switched = [r for r in sub if r["lang"] != pack.default_lang or r["kind"] == "mixed"]
        right_sw = sum(detect_lang(pack, r["text"], pack.default_lang) == r["lang"] for r in switched)
        out.append(
            {
                "bench": "locales",
                "metric": f"{split}/{pack_id}/lid_accuracy",
                "value": round(right / len(sub), 3),
                "unit": "",
                "note": f"aim >= 0.95; code-switched/English turns {right_sw}/{len(switched)}; "
                f"types with misses: {', '.join(misses) or 'none'}",
            }
        )
    # throughput: original packs as loaded from their files vs the same packs without the file-driven parts
    labelled = load(LABELLED)
    if quick:
        labelled = labelled[:200]
    reps = 2 if quick else 5
    loaded = {pid: PACKS[pid] for pid in {r["locale"] for r in labelled}}
    bare = {pid: dataclasses.replace(p, rules=None, number_words=()) for pid, p in loaded.items()}
    _rate(labelled, loaded, 1)  # warm the caches both ways
    _rate(labelled, bare, 1)
    new = ref = 0.0
    for _ in range(3):  # interleaved, best of three: the machine is shared
        new = max(new, _rate(labelled, loaded, reps))
        ref = max(ref, _rate(labelled, bare, reps))
    out.append(
        {
            "bench": "locales",
            "metric": "pii_throughput_original_packs",
            "value": round(new),
            "unit": "turns/s",
            "reference": round(ref),
            "ratio": round(new / ref, 2),
            "note": "packs loaded from YAML vs the same packs without file rules (pre-issue-17 behaviour)",
        }
    )
    eu = rows * (len(labelled) // len(rows) + 1)
    eu = eu[: len(labelled)]
    eu_packs = {pid: PACKS[pid] for pid in {r["locale"] for r in eu}}
    _rate(eu, eu_packs, 1)
    new_eu = max(_rate(eu, eu_packs, reps) for _ in range(3))
    out.append(
        {
            "bench": "locales",
            "metric": "pii_throughput_new_packs",
            "value": round(new_eu),
            "unit": "turns/s",
            "reference": round(new),
            "ratio": round(new_eu / new, 2),
            "note": "European packs on pii_eu turns vs the original packs on pii_labelled turns",
        }
    )
    return out


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
