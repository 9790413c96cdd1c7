"""Differential check of the PII recognizers: `find_pii` of a git revision against the working tree.

A change meant only to make the recognizers faster, or to move a word list from Python into the pack
files, must not change one finding. This runs both versions over the same texts in two subprocesses and
compares every Match exactly (type, range, score, recognizer, norm), and `persona_names`,
`find_given_names` and `asks_for_number` too; a call that raises is a result as well (its exception type).

    python scripts/pii_differential.py                  # HEAD vs the working tree, 120,000 texts, seed 0
    python scripts/pii_differential.py --ref main -n 200000 --seed 1 --jobs 2     (--base is --ref)
    python scripts/pii_differential.py --structures     # also compare the recognizers' module tables
    python scripts/pii_differential.py --packs en-US,hi-IN --ref c68a426 -n 200000

Texts (`-n` in all): the bench utterances and the test modules' strings as they are, then a share (`--fragments`,
default 0.5) of random joins of fragments mined from both versions (the words of the pack files and the
string constants of the recognizer modules, names from the bench sets, number, postcode and house-number
shapes) in random case; the rest seeded mutations of the seed texts (case, punctuation, digits, splices,
inserted numbers with and without cue words, spoken digits, ASR-like typos), some with descriptor names
and a persona as the redactor passes them. Without `--packs` each text runs in one pack (its locale's, or a
random one); with `--packs` every text runs in every pack listed.
A difference is printed as text index, pack and spans (never the values); `--show` adds the text.
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
import json, re, sys, time
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
c = json.load(open(sys.argv[1]))
given, only = c["given"], c.get("packs")
ids = [p for p in sorted(PACKS) if not only or p in only]


def safe(f, *a, **kw):
    try:
        return f(*a, **kw)
    except Exception as exc:  # a crash is a result too: both trees must raise it alike
        return ("error", type(exc).__name__)


def found(pack, text, names, persona):
    ms = safe(find_pii, PACKS[pack], text, tuple(names), persona=frozenset(persona))
    return ms if isinstance(ms, tuple) else [(m.type, m.start, m.end, m.score, m.recognizer, m.norm) for m in ms]


cpu = 0.0
with open(sys.argv[2], "w") as f:
    for i, (pack, t, names, persona) in enumerate(c["calls"]):
        t0 = time.process_time()
        row = [found(p, t, names, persona) for p in (ids if only else [pack])]
        cpu += time.process_time() - t0
        pn = safe(persona_names, t)
        row.append(pn if isinstance(pn, tuple) else sorted(pn))
        gn = safe(find_given_names, t, tuple(given[i % len(given)]))
        row.append(gn if isinstance(gn, tuple) else [(m.start, m.end, m.norm) for m in gn])
        row.append(safe(asks_for_number, t))
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
print(json.dumps({"packs": ids, "cpu_s": cpu}))
"""

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
            rows = [r for r in map(json.loads, filter(str.strip, fh)) if isinstance(r.get("text"), str)]
        base += [(r.get("locale"), r["text"]) for r in rows]
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


def fragment_texts(n: int, seed: int, trees: list[Path]) -> dict[str, list]:
    rng = random.Random(seed)
    bench, names = _bench_texts()
    words = sorted(set().union(*(_strings_of_modules(t) | _strings_of_packs(t) for t in trees)))
    bench_words = sorted({w for t in bench for w in re.findall(r"\S+", t)})
    pools = [(words, 40), (bench_words, 20), (names, 12), (_SHAPES, 20), (_SEPS, 8)]
    weights = [w for _, w in pools]
    texts: list[str] = []
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


def corpus(n: int, seed: int, fragments: float, trees: list[Path]) -> dict[str, list]:
    """Every call (pack, text, descriptor names, persona) and the given-name lists; the same for the same
    arguments."""
    sys.path.insert(0, str(ROOT))
    from vak_pipeline.locales.registry import PACKS

    pack_ids = sorted(PACKS)
    regions = sorted({r for p in PACKS.values() for r in p.phone_regions})
    n_frag = round(n * fragments)
    calls = build_corpus(n - n_frag, seed, pack_ids, regions)
    frag = fragment_texts(n_frag, seed, trees)
    rng = random.Random(seed + 1)
    calls += [(rng.choice(pack_ids), t, (), frozenset()) for t in frag["texts"]]
    return {"calls": [(p, t, list(names), sorted(persona)) for p, t, names, persona in calls], "given": frag["given"]}


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
    ap.add_argument("--ref", "--base", dest="ref", default="HEAD", help="git revision to compare against (HEAD)")
    ap.add_argument("-n", type=int, default=120_000, help="texts in all, the bench and test texts first")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fragments", type=float, default=0.5, help="share of fragment joins among the -n texts")
    ap.add_argument("--jobs", type=int, default=1, help="run both versions at once (2) or one after the other")
    ap.add_argument("--show", action="store_true", help="print the differing texts")
    ap.add_argument("--limit", type=int, default=40, help="differences printed at most")
    ap.add_argument("--structures", action="store_true")
    ap.add_argument("--packs", default="", help="comma-separated pack ids: every text in each of them")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pii_diff_") as d:
        tmp = Path(d)
        old = tmp / "old"
        old.mkdir()
        _git_tree(args.ref, old)
        c = corpus(args.n, args.seed, args.fragments, [old, ROOT])
        texts = [t for _, t, _, _ in c["calls"]]
        bad = _structures(old, ROOT, tmp, texts) if args.structures else 0
        c["packs"] = [p for p in args.packs.split(",") if p]
        cf = tmp / "corpus.json"
        cf.write_text(json.dumps(c, ensure_ascii=False), encoding="utf-8")
        procs = []
        for name, tree in (("old", old), ("new", ROOT)):
            procs.append((name, _run(tree, cf, tmp / f"{name}.jsonl", "find")))
            if args.jobs < 2:
                procs[-1][1].wait()
        info = {}
        for name, p in procs:
            stdout, _ = p.communicate()
            if p.returncode != 0:
                raise SystemExit(f"{name}: runner failed")
            info[name] = json.loads(stdout.strip().splitlines()[-1])
        if c["packs"] and info["old"]["packs"] != info["new"]["packs"]:
            print(f"packs differ: {info['old']['packs']} vs {info['new']['packs']}")
            return 1
        per_text = info["new"]["packs"] if c["packs"] else ["pack"]
        labels = [*per_text, "persona_names", "given_names", "asks_for_number"]
        diffs = raised = 0
        with open(tmp / "old.jsonl", encoding="utf-8") as fa, open(tmp / "new.jsonl", encoding="utf-8") as fb:
            for i, (la, lb) in enumerate(zip(fa, fb, strict=True)):
                ra = json.loads(la)
                raised += sum(1 for x in ra if isinstance(x, list) and x[:1] == ["error"])
                if la == lb:
                    continue
                rb = json.loads(lb)
                for label, x, y in zip(labels, ra, rb, strict=True):
                    if x != y:
                        diffs += 1
                        if diffs <= args.limit:

                            def spans(v: object) -> object:
                                return [m[:3] if isinstance(m, list) else m for m in v] if isinstance(v, list) else v

                            where = c["calls"][i][0] if label == "pack" else label
                            print(f"text {i} {where}: {args.ref} {spans(x)} != working tree {spans(y)}")
                            if args.show:
                                print("   ", repr(texts[i]))
        print(
            f"{len(texts)} texts x {len(per_text)} pack(s) (+ persona, given names, asks): {diffs} differences; "
            f"calls that raised ({args.ref}): {raised}"
        )
        print(
            f"find_pii CPU seconds: {args.ref} {info['old']['cpu_s']:.1f}, working tree {info['new']['cpu_s']:.1f}"
        )
        return 1 if diffs or bad else 0


if __name__ == "__main__":
    sys.exit(main())
