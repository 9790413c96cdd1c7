"""List each tuning set's missed gold spans and false positives, with the utterance's shape.

A tuning aid for the recognizers: only the sets the recognizers may be tuned on are listed
(never `blind_test/`, `heldout_test/`). Prints one line per miss or false positive:

    PYTHONPATH=$PWD python -m bench.privacy_misses [--type person_name] [--set fresh]

`--table` prints instead, for every set of bench_privacy (blind_test too: a score, no misses), our person_name
and structured precision/recall with bench_privacy's scorer, without Presidio (for a machine without it).
"""

from __future__ import annotations

import sys

from bench.bench_privacy import BLIND, FRESH, FRESH2, FRESH3, HELDOUT, NAMES, STRUCTURED, load, ours, pr, score, total

TUNING = {
    "blind_dev": lambda: [r for r in load(BLIND) if r["split"] == "dev"],
    "fresh": lambda: load(FRESH),
    "names_set": lambda: load(NAMES),
    "fresh2": lambda: load(FRESH2),
    "fresh3": lambda: load(FRESH3),
}


def misses(rows: list[dict], only: str | None) -> list[str]:
    """`FN`/`FP` lines in the scorer's matching (type equal, spans overlapping, each gold used once)."""
    out = []
    for row, pred in zip(rows, ours(rows), strict=True):
        gold = [(s["type"], s["start"], s["end"]) for s in row["spans"]]
        used: set[int] = set()
        text = row["text"]
        for t, s, e in pred:
            hit = next(
                (i for i, (gt, gs, ge) in enumerate(gold) if i not in used and gt == t and s < ge and gs < e), None
            )
            if hit is None and (only is None or t == only):
                out.append(f"FP {t:12} {row.get('shape', '?'):24} {text[s:e]!r:28} | {text}")
            elif hit is not None:
                used.add(hit)
        for i, (gt, gs, ge) in enumerate(gold):
            if i not in used and (only is None or gt == only):
                out.append(f"FN {gt:12} {row.get('shape', '?'):24} {text[gs:ge]!r:28} | {text}")
    return out


def table() -> None:
    """Our person_name and structured P/R per bench_privacy set (its prefixes), Presidio left out."""
    heldout, blind = load(HELDOUT), load(BLIND)
    sets = {"labelled": load()}
    sets |= {f"heldout_{s}": [r for r in heldout if r.get("split") == s] for s in ("dev", "test")}
    sets["names_set"] = load(NAMES)
    sets |= {f"blind_{s}": [r for r in blind if r["split"] == s] for s in ("dev", "test")}
    sets["fresh"] = load(FRESH)
    sets["fresh2"] = load(FRESH2)
    sets["fresh3"] = load(FRESH3)
    for name, rows in sets.items():
        c = score(rows, ours(rows))
        (p, r), (sp, sr), n = pr(c["person_name"]), pr(total(c, STRUCTURED)), c["person_name"]
        print(
            f"{name:13} person_name P {p:.4f} R {r:.4f} (tp {n['tp']} fp {n['fp']} fn {n['fn']})"
            f"  structured P {sp:.4f} R {sr:.4f}",
            flush=True,
        )


def main(argv: list[str]) -> None:
    if "--table" in argv:
        table()
        return
    only = argv[argv.index("--type") + 1] if "--type" in argv else None
    sets = [argv[argv.index("--set") + 1]] if "--set" in argv else list(TUNING)
    for name in sets:
        lines = misses(TUNING[name](), only)
        fn, fp = sum(x.startswith("FN") for x in lines), sum(x.startswith("FP") for x in lines)
        print(f"## {name}: {fn} missed, {fp} fp")
        for line in sorted(lines):
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
