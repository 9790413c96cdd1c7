"""Differential check of `find_pii`: the working tree against a git revision, over one large corpus.

A change meant only to make the recognizers faster must not change one finding. This script builds a
deterministic corpus (the bench utterances, the test modules' strings, and seeded mutations of both: case,
punctuation, digits, splices, inserted numbers with and without cue words, spoken digits, ASR-like typos),
runs `find_pii` of both trees over it in two subprocesses, and compares every Match exactly (type, range,
score, recognizer, norm). Some calls also pass descriptor names and a persona, as the redactor does.

    python scripts/pii_differential.py                  # against HEAD, 120,000 calls, seed 0
    python scripts/pii_differential.py --base main -n 200000 --seed 1

Differences are printed as pack, call index, type and character range (never the values); exit 1 if any.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import pickle
import random
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# number-like snippets; cue phrases come from the pack files themselves
_SPOKEN = {
    "en": "zero one two three four five six seven eight nine".split(),
    "hi": "शून्य एक दो तीन चार पांच छह सात आठ नौ".split(),
    "hil": "shunya ek do teen char paanch chhe saat aath nau".split(),
    "zh": list("零一二三四五六七八九"),
}
_FIXED = [
    "4.2.0.118", "192.168.1.20", "10.0.0.1", "2001:db8::1", "fe80::1%eth0", "12/05/2023", "10:30", "3:45 pm",
    "$1,234.56", "Rs 4,500", "₹ 12,000", "SW1A 1AA", "EC1A 1BB", "ABCPE1234F", "QQ 12 34 56 C", "AB123456C",
    "GB82 WEST 1234 5698 7654 32", "DE89 3704 0044 0532 0130 00", "NL91ABNA0417164300", "FR1420041010050500013M02606",
    "rahul.sharma@gmail.com", "rahul dot sharma at gmail dot com", "priyaatgmail.com", "rahul@okicici", "a@b",
    "110001", "560 034", "90210", "94105-1234", "Austin, TX 78701", "100080", "123-45-6789", "078-05-1120",
    "943 476 5919", "11010519491231002X", "1-800-FLOWERS", "+1 (415) 555-0132", "+44 7700 900123",
    "0044 20 7946 0958", "011 44 20 7946 0958", "98765 43210", "+91-98765-43210", "1234 5678 9012",
    "PNR 4521367890", "UTR 123456789012", "order ORD-2023-55512", "朝阳区建国路88号", "三号楼502室",
    "H-42, Lajpat Nagar",
    "flat 12B, Sector 15, Noida 201301", "221B Baker Street", "मकान नंबर 12, गांधी नगर", "v1.2.3.4", "double five",
    "triple nine", "डबल पांच", "२३४५६७", "９８７６５４３２１０",
]


def _luhn_digit(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def _snippet(rng: random.Random, regions: list[str]) -> str:
    import phonenumbers

    kind = rng.randrange(9)
    if kind == 0:  # a phone of some pack's region, in some format, sometimes perturbed
        num = phonenumbers.example_number(rng.choice(regions))
        fmt = rng.choice([phonenumbers.PhoneNumberFormat.E164, phonenumbers.PhoneNumberFormat.INTERNATIONAL,
                          phonenumbers.PhoneNumberFormat.NATIONAL])
        s = phonenumbers.format_number(num, fmt) if num is not None else "9876543210"
        if rng.random() < 0.5:
            s = re.sub(r"\d", lambda m: str(rng.randrange(10)) if rng.random() < 0.3 else m.group(), s)
        return s
    if kind == 1:  # a card number (Luhn-valid or not), grouped or not
        body = rng.choice(["4", "51", "37", "6", "35", "81", "9"]) + "".join(
            str(rng.randrange(10)) for _ in range(rng.choice([12, 14, 15]) - 1))
        s = body + (_luhn_digit(body) if rng.random() < 0.7 else str(rng.randrange(10)))
        return " ".join(s[i:i + 4] for i in range(0, len(s), 4)) if rng.random() < 0.5 else s
    if kind == 2:  # a digit run of any length, with separators
        n = rng.randint(3, 20)
        d = "".join(str(rng.randrange(10)) for _ in range(n))
        sep = rng.choice(["", " ", "-", ".", " - ", ", "])
        k = rng.randint(2, 5)
        return sep.join(d[i:i + k] for i in range(0, n, k))
    if kind == 3:  # spoken digits
        lang = rng.choice(list(_SPOKEN))
        words = [rng.choice(_SPOKEN[lang]) for _ in range(rng.randint(3, 12))]
        if lang == "en" and rng.random() < 0.3:
            words.insert(rng.randrange(len(words)), rng.choice(["double", "triple", "oh", "to", "for"]))
        return ("" if lang == "zh" else " ").join(words)
    if kind == 4:  # mixed spoken and written digits
        return " ".join(rng.choice(_SPOKEN["en"]) if rng.random() < 0.5 else str(rng.randrange(10))
                        for _ in range(rng.randint(4, 11)))
    if kind == 5:
        return f"{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(300)}.{rng.randrange(256)}"
    return rng.choice(_FIXED)


def _texts_from_tests() -> list[str]:
    out: list[str] = []
    for sub in ("pii", "redaction", "locales"):
        for path in sorted((ROOT / "vak_pipeline_tests" / sub).glob("*.py")):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and 6 <= len(node.value) <= 600:
                    out.append(node.value)
    return out


def _cue_phrases() -> list[str]:
    import yaml

    out: set[str] = set()

    def walk(v: object) -> None:
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str) and 1 < len(v) < 30 and "\\" not in v and "(" not in v:
            out.add(v)

    for path in sorted((ROOT / "vak_pipeline" / "locales" / "data").glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for key in ("cues", "name_context", "number_words"):
            walk(doc.get(key) or {})
    return sorted(out)


def build_corpus(n: int, seed: int, pack_ids: list[str], regions: list[str]) -> list[tuple[str, str, tuple, frozenset]]:
    """(pack id, text, names, persona) calls; the same for the same arguments, whichever tree runs it."""
    rng = random.Random(seed)
    base: list[tuple[str | None, str]] = []
    for path in sorted((ROOT / "bench" / "data").glob("*.jsonl")):
        with open(path, encoding="utf-8") as fh:
            base += [(r["locale"], r["text"]) for r in map(json.loads, filter(str.strip, fh))]
    base += [(None, t) for t in _texts_from_tests()]
    cues = _cue_phrases()
    vocab = sorted({w for _, t in base for w in t.split()})
    calls: list[tuple[str, str, tuple, frozenset]] = []

    def pack_for(loc: str | None) -> str:
        return loc if loc in pack_ids and rng.random() < 0.75 else rng.choice(pack_ids)

    for loc, t in base:  # every seed text as it is, in its own pack (or a random one)
        calls.append((pack_for(loc), t, (), frozenset()))
    while len(calls) < n:
        loc, t = rng.choice(base)
        for _ in range(rng.randint(1, 3)):
            t = _mutate(rng, t, base, cues, vocab, regions)
        names: tuple = ()
        persona: frozenset = frozenset()
        if rng.random() < 0.1:
            words = [w.strip(",.?!") for w in t.split() if len(w) > 2]
            if words:
                names = tuple(rng.sample(words, min(len(words), rng.randint(1, 2))))
                if rng.random() < 0.5:
                    names += (" ".join(rng.sample(words, min(len(words), 2))),)
                if rng.random() < 0.5:
                    persona = frozenset({rng.choice(words).lower()})
        calls.append((pack_for(loc), t[:2000], names, persona))
    return calls[:n]


def _mutate(rng: random.Random, t: str, base: list, cues: list[str], vocab: list[str], regions: list[str]) -> str:
    op = rng.randrange(14)
    words = t.split(" ")
    if op == 0:
        return t.lower()
    if op == 1:
        return t.upper()
    if op == 2:
        return re.sub(r"[,.?!;:]", "", t)
    if op == 3:
        return re.sub(r"\d", lambda m: str(rng.randrange(10)), t)
    if op == 4:
        return t + rng.choice([" ", ", ", ". ", ""]) + rng.choice(base)[1]
    if op in (5, 6, 7):  # a number-like snippet, often after a cue word, at a word boundary
        snip = _snippet(rng, regions)
        if rng.random() < 0.6:
            snip = rng.choice(cues) + rng.choice([" ", " is ", " hai ", "是", ": ", " number "]) + snip
        i = rng.randrange(len(words) + 1)
        return " ".join(words[:i] + [snip] + words[i:])
    if op == 8:
        rng.shuffle(words)
        return " ".join(words)
    if op == 9 and t:  # ASR-like: drop, double or swap characters
        chars = list(t)
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(chars))
            r = rng.random()
            if r < 0.4:
                del chars[k]
            elif r < 0.7:
                chars.insert(k, chars[k])
            elif k + 1 < len(chars):
                chars[k], chars[k + 1] = chars[k + 1], chars[k]
            if not chars:
                break
        return "".join(chars)
    if op == 10:
        return t.title()
    if op == 11 and words:
        for _ in range(rng.randint(1, 3)):
            words[rng.randrange(len(words))] = rng.choice(vocab)
        return " ".join(words)
    if op == 12:  # digits spaced out or glued together
        return re.sub(r"(?<=\d) (?=\d)", "", t) if rng.random() < 0.5 else re.sub(r"(?<=\d)(?=\d)", " ", t)
    i = rng.randrange(len(words) + 1)  # a cue phrase alone
    return " ".join(words[:i] + [rng.choice(cues)] + words[i:])


def _dump(n: int, seed: int, out: str) -> None:
    """In a subprocess whose vak_pipeline is the tree under test: every call's matches, pickled."""
    from vak_pipeline.locales.registry import PACKS
    from vak_pipeline.pii.recognizers import find_pii

    pack_ids = sorted(PACKS)
    regions = sorted({r for p in PACKS.values() for r in p.phone_regions})
    calls = build_corpus(n, seed, pack_ids, regions)
    results = []
    t0 = time.process_time()
    for pid, text, names, persona in calls:
        try:
            ms = find_pii(PACKS[pid], text, names, persona=persona)
        except Exception as exc:  # noqa: BLE001 - a crash is a result too: both trees must raise it alike
            results.append((("error", 0, 0, 0.0, type(exc).__name__, ""),))
            continue
        results.append(tuple((m.type, m.start, m.end, m.score, m.recognizer, m.norm) for m in ms))
    cpu = time.process_time() - t0
    digest = hashlib.sha256(pickle.dumps([(c[0], c[1], c[2], sorted(c[3])) for c in calls])).hexdigest()
    with open(out, "wb") as fh:
        pickle.dump({"corpus": digest, "calls": [(c[0], len(c[1])) for c in calls], "results": results,
                     "cpu_s": cpu}, fh)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="HEAD", help="git revision to compare the working tree with")
    ap.add_argument("-n", type=int, default=120_000, help="number of find_pii calls")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.dump:
        _dump(args.n, args.seed, args.dump)
        return 0
    with tempfile.TemporaryDirectory(prefix="pii-diff-") as tmp:
        base_dir = Path(tmp) / "base"
        base_dir.mkdir()
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", args.base, "vak_pipeline"], check=True,
                             capture_output=True).stdout
        with tarfile.open(fileobj=__import__("io").BytesIO(tar)) as tf:
            tf.extractall(base_dir, filter="data")
        outs = {}
        for label, tree in (("base", base_dir), ("tree", ROOT)):
            outs[label] = Path(tmp) / f"{label}.pkl"
            env = {**os.environ, "PYTHONPATH": str(tree)}
            subprocess.run([sys.executable, str(Path(__file__).resolve()), "--dump", str(outs[label]),
                            "-n", str(args.n), "--seed", str(args.seed)], check=True, env=env, cwd=tmp)
        a, b = (pickle.loads(outs[k].read_bytes()) for k in ("base", "tree"))
    if a["corpus"] != b["corpus"]:
        print("the two runs built different corpora (pack lists differ?)")
        return 2
    diffs = [i for i, (x, y) in enumerate(zip(a["results"], b["results"], strict=True)) if x != y]
    n_found = sum(len(r) for r in a["results"])
    n_err = sum(1 for r in a["results"] if r and r[0][0] == "error")
    print(f"calls: {len(a['results'])}  texts with a finding (base): {sum(1 for r in a['results'] if r)}  "
          f"findings (base): {n_found}  calls that raised (base): {n_err}  differing calls: {len(diffs)}")
    print(f"find_pii CPU seconds: base {a['cpu_s']:.1f}, tree {b['cpu_s']:.1f} "
          f"(x{a['cpu_s'] / max(b['cpu_s'], 1e-9):.2f})")
    for i in diffs[:20]:
        pid = a["calls"][i][0]
        spans_a = [(t, s, e) for t, s, e, *_ in a["results"][i]]
        spans_b = [(t, s, e) for t, s, e, *_ in b["results"][i]]
        what = sorted(set(spans_a) ^ set(spans_b)) or "same spans; score, recognizer or norm differ"
        print(f"  call {i} pack {pid}: base {spans_a} tree {spans_b} ({what})")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
