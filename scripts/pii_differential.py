"""Differential check of the PII recognizers: `find_pii` of a git revision against the working tree.

Moving a word list or pattern from Python into the pack files must not change what is found. This runs
both versions over the same texts, every pack, and reports each (text, pack) whose matches differ:

    python scripts/pii_differential.py                  # HEAD vs the working tree, 50000 texts
    python scripts/pii_differential.py --ref main -n 200000 --jobs 2
    python scripts/pii_differential.py --structures     # also compare the recognizers' module tables
    python scripts/pii_differential.py --packs en-US,hi-IN --ref c68a426 -n 200000

Texts: every text of bench/data/*.jsonl, then random joins of fragments mined from both versions (the
words of the pack files and the string constants of the recognizer modules, names from the bench sets,
number, postcode and house-number shapes) in random case. Matches are compared whole (type, span, score,
recognizer, norm); `persona_names`, `find_given_names` and `asks_for_number` are compared too.
A difference is printed as text index, pack and spans; `--show` adds the (synthetic) text.
`--structures` compares the module-level sets, dicts and regexes of pii/recognizers by name: equal
values, or for a regex whose text differs, its matches (spans and groups) on every text.
Exit status 1 when anything differs.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs inside each version's tree (PYTHONPATH); argv: corpus file, output file, mode
_RUNNER = r"""
import json, re, sys
mode = sys.argv[3]
if mode == "structures":
    import importlib, pkgutil
    import vak_pipeline.pii.recognizers as pkg
    out = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        for k, v in sorted(vars(mod).items()):
            if k.startswith("__"):
                continue
            if isinstance(v, re.Pattern):
                out[f"{info.name}.{k}"] = ["re", v.pattern, v.flags]
            elif isinstance(v, (frozenset, set)) and all(isinstance(x, str) for x in v):
                out[f"{info.name}.{k}"] = ["set", sorted(v)]
            elif isinstance(v, dict) and all(isinstance(x, str) for x in v) and all(
                isinstance(x, (str, int, float)) for x in v.values()):
                out[f"{info.name}.{k}"] = ["dict", sorted(v.items())]
    json.dump(out, open(sys.argv[2], "w"), ensure_ascii=False)
    sys.exit(0)
from vak_pipeline.locales.registry import PACKS
from vak_pipeline.pii.recognizers import find_pii
from vak_pipeline.pii.recognizers.names import find_given_names, persona_names
from vak_pipeline.pii.recognizers.phone import asks_for_number
texts = json.load(open(sys.argv[1]))["texts"]
given = json.load(open(sys.argv[1]))["given"]
only = json.load(open(sys.argv[1])).get("packs")
packs = [PACKS[p] for p in sorted(PACKS) if not only or p in only]
with open(sys.argv[2], "w") as f:
    for i, t in enumerate(texts):
        row = [[(m.type, m.start, m.end, m.score, m.recognizer, m.norm) for m in find_pii(p, t)] for p in packs]
        row.append(sorted(persona_names(t)))
        row.append([(m.start, m.end, m.norm) for m in find_given_names(t, tuple(given[i % len(given)]))])
        row.append(asks_for_number(t))
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
print(json.dumps([p.id for p in packs]))
"""

_SHAPES = [
    "12",
    "12A",
    "4B",
    "H-42",
    "5/3",
    "221B",
    "1600",
    "#7",
    "no. 9",
    "110001",
    "110 001",
    "560034",
    "78701",
    "78701-1234",
    "TX 78701",
    "CA 94103",
    "SW1A 1AA",
    "EC1A 1BB",
    "M1 1AE",
    "9876543210",
    "98765 43210",
    "+91 98765 43210",
    "+1 415 555 0132",
    "(415) 555-0132",
    "020 7946 0958",
    "+44 7700 900123",
    "13800138000",
    "100020",
    "三号楼",
    "88号",
    "5号楼",
    "2单元",
    "301室",
    "12栋",
    "B座",
    "十二号",
    "一二三四五六七",
    "幺三八",
    "०१२",
    "४२",
    "1234 AB",
    "10115",
    "1010",
    "114 55",
    "75008",
    "28013",
    "3º B",
    "n.º 7",
    "2/14",
    "4111 1111 1111 1111",
    "1234-5678-9012",
    "12:30",
    "2019",
    "ABCPD1234E",
    "1.2.3",
    "v2.1",
    "192.168.0.1",
]
_SEPS = [" ", " ", " ", ", ", ". ", "", "\n", " - ", ": ", "? ", "，", "。", "! "]


def _git_tree(ref: str, dest: Path) -> None:
    data = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    tar_path = dest.with_suffix(".tar")
    tar_path.write_bytes(data)
    with tarfile.open(tar_path) as tar:
        tar.extractall(dest, filter="data")


def _strings_of_modules(tree: Path) -> set[str]:
    """Words in the string constants of the recognizer and locale modules (regex pieces split apart)."""
    out: set[str] = set()
    for path in [*(tree / "vak_pipeline/pii/recognizers").glob("*.py"), *(tree / "vak_pipeline/locales").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                s = re.sub(r"\\[sbdwSW]|[\\()\[\]{}?*+^$]", " ", node.value)
                out.update(w for w in re.split(r"[|\s]+", s) if 0 < len(w) < 20)
    return out


def _strings_of_packs(tree: Path) -> set[str]:
    import yaml

    out: set[str] = set()

    def walk(v: object) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                out.add(str(k))
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str) and len(v) < 40:
            out.add(v)

    for path in (tree / "vak_pipeline/locales/data").glob("*.yaml"):
        walk(yaml.safe_load(path.read_text(encoding="utf-8")))
    return out


def _bench_texts() -> tuple[list[str], list[str]]:
    texts: list[str] = []
    names: set[str] = set()
    for path in sorted((ROOT / "bench/data").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if isinstance(r.get("text"), str):
                texts.append(r["text"])
                for s in r.get("spans") or []:
                    if s.get("type") == "person_name":
                        names.add(r["text"][s["start"] : s["end"]])
    return texts, sorted(names)


def corpus(n: int, seed: int, trees: list[Path]) -> dict[str, list]:
    rng = random.Random(seed)
    bench, names = _bench_texts()
    words = sorted(set().union(*(_strings_of_modules(t) | _strings_of_packs(t) for t in trees)))
    bench_words = sorted({w for t in bench for w in re.findall(r"\S+", t)})
    pools = [(words, 40), (bench_words, 20), (names, 12), (_SHAPES, 20), (_SEPS, 8)]
    weights = [w for _, w in pools]
    texts = list(bench)
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 12)):
            pool = rng.choices(pools, weights)[0][0]
            parts.append(rng.choice(pool))
            parts.append(rng.choice(_SEPS))
        t = "".join(parts).strip()
        r = rng.random()
        t = t.lower() if r < 0.3 else t.title() if r < 0.4 else t.upper() if r < 0.45 else t
        if rng.random() < 0.2:
            t = rng.choice(bench) + rng.choice(_SEPS) + t
        texts.append(t)
    given = [rng.sample(names, k=min(3, len(names))) for _ in range(97)]
    return {"texts": texts, "given": given}


def _run(tree: Path, corpus_file: Path, out: Path, mode: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1", "PYTHONHASHSEED": "0"}
    script = out.with_suffix(".runner.py")
    script.write_text(_RUNNER, encoding="utf-8")
    return subprocess.Popen(
        [sys.executable, str(script), str(corpus_file), str(out), mode],
        env=env,
        cwd=str(tree),
        stdout=subprocess.PIPE,
        text=True,
    )


def _same_matches(a: list, b: list, texts: list[str]) -> int:
    """Texts on which two regexes ([_, pattern, flags]) find other spans or groups."""
    ra, rb = re.compile(a[1], a[2]), re.compile(b[1], b[2])
    return sum([m.regs for m in ra.finditer(t)] != [m.regs for m in rb.finditer(t)] for t in texts)


def _structures(old: Path, new: Path, tmp: Path, texts: list[str]) -> int:
    outs = []
    for name, tree in (("old", old), ("new", new)):
        out = tmp / f"{name}.struct.json"
        p = _run(tree, tmp / "none.json", out, "structures")
        if p.wait() != 0:
            raise SystemExit(f"{name}: structure dump failed")
        outs.append(json.loads(out.read_text(encoding="utf-8")))
    a, b = outs
    same = differ_text = 0
    bad = 0
    for k in sorted(set(a) & set(b)):
        if a[k] == b[k]:
            same += 1
        elif a[k][0] == "re" == b[k][0]:
            differ_text += 1
            n = _same_matches(a[k], b[k], texts)
            bad += n > 0
            print(f"regex text differs: {k}; matches differ on {n} of {len(texts)} texts")
        else:
            bad += 1
            print(f"VALUE DIFFERS: {k}")
    only = sorted(set(a) ^ set(b))
    print(
        f"structures: {same} equal, {differ_text} regexes with other text, {bad} differ; "
        f"in one version only: {', '.join(only) if only else 'none'}"
    )
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", default="HEAD", help="git revision to compare against (default HEAD)")
    ap.add_argument("-n", type=int, default=50000, help="random texts beside the bench texts")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="run both versions at once (2) or one after the other")
    ap.add_argument("--show", action="store_true", help="print the differing (synthetic) texts")
    ap.add_argument("--structures", action="store_true")
    ap.add_argument("--packs", default="", help="comma-separated pack ids (default: every pack)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pii_diff_") as d:
        tmp = Path(d)
        old = tmp / "old"
        old.mkdir()
        _git_tree(args.ref, old)
        c = corpus(args.n, args.seed, [old, ROOT])
        bad = _structures(old, ROOT, tmp, c["texts"]) if args.structures else 0
        c["packs"] = [p for p in args.packs.split(",") if p]
        cf = tmp / "corpus.json"
        cf.write_text(json.dumps(c, ensure_ascii=False), encoding="utf-8")
        procs = []
        for name, tree in (("old", old), ("new", ROOT)):
            procs.append((name, _run(tree, cf, tmp / f"{name}.jsonl", "find")))
            if args.jobs < 2:
                procs[-1][1].wait()
        ids = {}
        for name, p in procs:
            stdout, _ = p.communicate()
            if p.returncode != 0:
                raise SystemExit(f"{name}: runner failed")
            ids[name] = json.loads(stdout.strip().splitlines()[-1])
        if ids["old"] != ids["new"]:
            print(f"packs differ: {ids['old']} vs {ids['new']}")
            return 1
        labels = [*ids["new"], "persona_names", "given_names", "asks_for_number"]
        diffs = 0
        with open(tmp / "old.jsonl", encoding="utf-8") as fa, open(tmp / "new.jsonl", encoding="utf-8") as fb:
            for i, (la, lb) in enumerate(zip(fa, fb, strict=True)):
                if la == lb:
                    continue
                ra, rb = json.loads(la), json.loads(lb)
                for label, x, y in zip(labels, ra, rb, strict=True):
                    if x != y:
                        diffs += 1
                        if diffs <= 40:

                            def spans(v: object) -> object:
                                return [m[:3] for m in v] if isinstance(v, list) else v

                            print(f"text {i} {label}: {args.ref} {spans(x)} != working tree {spans(y)}")
                            if args.show:
                                print("   ", repr(c["texts"][i]))
        n_texts = len(c["texts"])
        print(f"{n_texts} texts x {len(ids['new'])} packs (+ persona, given names, asks): {diffs} differences")
        return 1 if diffs or bad else 0


if __name__ == "__main__":
    sys.exit(main())
