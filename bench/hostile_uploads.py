"""Held-out hostile uploads (issue 26): personal values planted around the record, drawn by a different method
than the recognizers, and a scan of the whole published tree for them.

The values are drawn, not written by hand and not taken from the recognizers' own tables:
- names: names-dataset's *per-country top lists* (`NameDataset.get_top_names`, ten countries, first and last
  names), seeded; names that are ordinary English words ("Will", "Grace") are skipped only because a scan
  could not tell a leak of them from the word;
- phone numbers: phonenumbers' example mobile numbers of ten regions, in E.164 and international form;
- e-mail addresses: made from the drawn names.
- identifier names (`names`, at least 200): names-dataset's top-1000 first and last names of 36 countries, each
  picked at a seeded random rank, plus surnames that are ordinary English words (`Long`, `Young`, `Fox`) picked
  the same way from the US, GB, CA, IE and DE lists; only names of 3+ ASCII letters, and none that is a word of
  the fixtures or of the pipeline's own labels (`name`, `per`), whose leak could not be told from the word.
They are kept in `bench/data/hostile_values.json` (drawing loads names-dataset, ~2 GB: `python
bench/hostile_uploads.py --draw`, or `--draw-names` for the identifier names only), so a test builds the same
uploads offline.

`build_upload` plants them where a careless or hostile uploader would: file names (a caller's full name, a lone
first name, a lone surname, a phone number), folder names, message `metadata`, aidb `participants`, `labels`,
`links` and extra fields, text record ids; and `build_calls` in a call upload: call-recorder file names
(`2026-09-16_+919876543210_devika-raghunathan.wav`, `<first>-<last>/call_<number>.wav`: two shipped sample calls
written as WAV under those names, so Whisper runs on ~45 s of audio) and `recordings.csv` speaker ids that are
e-mails, phone numbers and names. `planted_kinds` says where each value went, and the report counts planted and
surviving values per kind. Identifier names are searched where an identifier shows them (beside `_-./@+`, a
digit, or a whole quoted string), so a transcript's "how long" is no leak of `long`. `scan` reads every file
name and every value of every file of the published tree (JSON, JSONL, CSV, Parquet, HTML, text; not `raw/`,
`work/` or the Dagster instance) and returns each planted value found. `python bench/hostile_uploads.py` runs
`vak run` on a fresh data directory and prints the counts (`--text-only`: without the call upload).
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VALUES_FILE = Path(__file__).resolve().parent / "data" / "hostile_values.json"
COUNTRIES = ("IN", "US", "GB", "NG", "PH", "BR", "DE", "PL", "ZA", "MY")
REGIONS = ("IN", "GB", "US", "DE", "AU", "NG", "SG", "FR", "BR", "ZA")
UPLOAD = "hostile-2026-11"
YAML = """locale: en-GB
source: real
consent: written
consent_ref: dpa-hostile-2026
license: proprietary-internal
domain: retail_support
scenario: order_issue
system_prompt: You are the support assistant of a fictional office-supplies shop.
synth: {render: none}
"""


def draw_values(seed: int = 2629, people: int = 10) -> dict[str, Any]:
    """People (first, last, e-mail) and phone numbers, drawn as the module docstring says (heavy: names-dataset)."""
    import phonenumbers
    import wordfreq
    from names_dataset import NameDataset

    rng = random.Random(seed)
    nd = NameDataset()

    def pick(country: str, first: bool) -> str:
        top = nd.get_top_names(n=300, use_first_names=first, country_alpha2=country)[country]
        pool = [n for n in (top["M"] + top["F"] if first else top) if n.isalpha() and len(n) >= 4
                and wordfreq.zipf_frequency(n.lower(), "en") < 4.0]
        return rng.choice(sorted(pool))

    out: list[dict[str, str]] = []
    for country in COUNTRIES[:people]:
        first, last = pick(country, True), pick(country, False)
        out.append({"country": country, "first": first, "last": last,
                    "email": f"{first}.{last}@example.{rng.choice(['com', 'org', 'net'])}".lower()})
    phones = []
    for region in REGIONS:
        num = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
        phones.append({"region": region,
                       "e164": phonenumbers.format_number(num, phonenumbers.PhoneNumberFormat.E164),
                       "international": phonenumbers.format_number(num, phonenumbers.PhoneNumberFormat.INTERNATIONAL),
                       "national_digits": str(num.national_number)})
    return {"seed": seed, "method": "names-dataset get_top_names(n=300) per country; phonenumbers example mobile "
            "numbers", "people": out, "phones": phones}


NAME_COUNTRIES = ("US", "GB", "IE", "CA", "GH", "ZA", "NG", "IN", "PH", "MY", "ID", "SG", "DE", "AT", "CH", "NL",
                  "BE", "FR", "ES", "PT", "IT", "PL", "CZ", "HU", "SE", "NO", "DK", "FI", "TR", "BR", "MX", "AR",
                  "CO", "CL", "PE", "HR")
WORD_SURNAME_COUNTRIES = ("US", "GB", "CA", "IE", "DE")
# words of the fixtures and the pipeline's own labels: a name equal to one could not be told from it in a scan
NOT_DRAWN = frozenset("name phone email number text per loc org date spk call chat order support ticket tickets "
                      "agent user customer sample calls hostile anjali suncare solar".split())


def draw_names(seed: int = 2626, per_country: tuple[int, int] = (3, 3), word_surnames: int = 4) -> list[dict]:
    """Identifier names as the module docstring says (heavy: names-dataset); [{country, kind, rank, name}]."""
    import wordfreq
    from names_dataset import NameDataset

    rng = random.Random(seed)
    nd = NameDataset()
    out: list[dict[str, Any]] = []
    seen: set[str] = set()

    def keep(country: str, kind: str, ranked: list[str], n: int) -> None:
        ranks = list(range(len(ranked)))
        rng.shuffle(ranks)
        for r in ranks:
            name = ranked[r]
            low = name.lower()
            if n == 0:
                return
            if len(low) < 3 or not (low.isascii() and low.isalpha()) or low in seen or low in NOT_DRAWN:
                continue
            seen.add(low)
            out.append({"country": country, "kind": kind, "rank": r + 1, "name": name})
            n -= 1

    for country in NAME_COUNTRIES:
        firsts = nd.get_top_names(n=1000, use_first_names=True, country_alpha2=country)[country]
        ranked_first = [x for pair in zip(firsts["M"], firsts["F"], strict=False) for x in pair]
        lasts = nd.get_top_names(n=1000, use_first_names=False, country_alpha2=country)[country]
        keep(country, "first", ranked_first, per_country[0])
        keep(country, "last", list(lasts), per_country[1])
    for country in WORD_SURNAME_COUNTRIES:  # common-word surnames: Long, Young, Fox, Klein
        lasts = nd.get_top_names(n=1000, use_first_names=False, country_alpha2=country)[country]
        langs = ("de",) if country == "DE" else ("en",)
        words = [n for n in lasts if any(wordfreq.zipf_frequency(n.lower(), la) >= 4.0 for la in langs)]
        keep(country, "word_surname", words, word_surnames)
    return out


def load_values() -> dict[str, Any]:
    return json.loads(VALUES_FILE.read_text(encoding="utf-8"))


ITEMS = ("stapler", "printer paper", "toner", "desk lamp", "notebooks", "envelopes", "a whiteboard", "markers",
         "a filing cabinet", "sticky notes", "binders", "a paper shredder", "scissors", "a calculator", "pens",
         "folders", "a label maker", "a desk chair", "glue sticks", "an office clock", "a monitor stand", "tape")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "next week")


def _message(rid: str, person: dict[str, str], phone: dict[str, str], n: int = 0) -> dict[str, Any]:
    item, day = ITEMS[n % len(ITEMS)], DAYS[n % len(DAYS)]
    return {"id": rid, "messages": [
        {"role": "user", "content": f"Hello, the {item} I ordered has not arrived yet. Can you check it?"},
        {"role": "assistant", "content": f"Of course: the {item} leaves the warehouse on {day}."},
        {"role": "user", "content": "Thank you, that is all."}],
        "metadata": {"customer": f"{person['first']} {person['last']}", "callback": phone["international"],
                     "contact": person["email"], "crm_owner": person["last"].lower(),
                     person["email"]: "vip"}}


def _ticket(rid: str, person: dict[str, str], phone: dict[str, str], n: int = 0) -> dict[str, Any]:
    item, day = ITEMS[-1 - n % len(ITEMS)], DAYS[n % len(DAYS)]
    return {"schema": "aidb.conversation/1.0", "id": rid, "dataset": UPLOAD,
            "period": {"start": "2026-02-02T09:00:00Z", "end": "2026-02-02T10:00:00Z"},
            "source": {"system": "zendesk", "kind": "support_ticket", "channel": "email"}, "language": "en",
            "participants": [{"ref": "<PER_1>", "side": "customer", "role": "customer",
                              "contact": person["email"], "display": f"{person['first']} {person['last']}"},
                             {"ref": "<PER_2>", "side": "internal", "role": "support agent"}],
            "labels": {"priority": "normal", "caller": phone["e164"], person["last"].lower(): "account"},
            "links": [f"tel:{phone['e164']}", f"mailto:{person['email']}"],
            "crm": {"owner": f"{person['first']} {person['last']}", "phone": phone["international"]},
            "outcome": {"status": "solved", "code": "replacement_sent", "reopened": False,
                        "closed_at": "2026-02-02T10:00:00Z"},
            "deid": {"policy": "v1", "tokens": {"PER": 2}, "date_offset": "constant per dataset",
                     "review": "automated"},
            "provenance": {"licensor": "L-HOSTILE", "route": "admin export", "licence": "LIC-HOSTILE-1"},
            "turns": [{"n": 1, "from": "<PER_1>", "kind": "message", "visibility": "public",
                       "direction": "inbound", "text": f"Hello, the {item} arrived damaged.",
                       "at": "2026-02-02T09:00:00Z"},
                      {"n": 2, "from": "<PER_2>", "kind": "reply", "visibility": "public",
                       "direction": "outbound", "text": f"Sorry about that, a new {item} leaves on {day}.",
                       "at": "2026-02-02T09:30:00Z"}]}


def build_upload(data: Path, values: dict[str, Any] | None = None) -> Path:
    """raw/<UPLOAD>/ under `data` with every planted value in a file name, folder name or free-form field."""
    values = values or load_values()
    people, phones = values["people"], values["phones"]
    up = data / "raw" / UPLOAD
    up.mkdir(parents=True)
    (up / "upload.yaml").write_text(YAML, encoding="utf-8")
    for i, (person, phone) in enumerate(zip(people, phones, strict=False)):
        first, last = person["first"], person["last"]
        names = [f"{first.lower()}-{last.lower()}", first.lower(), last.lower(), f"chat_{phone['e164']}"]
        stem = names[i % len(names)]
        rows = [_message(f"m-{i}-{k}", person, phone, 2 * i + k) for k in range(2)]
        (up / f"{stem}.messages.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        folder = up / (last.lower() if i % 2 == 0 else f"{first}_{phone['national_digits']}")
        folder.mkdir(exist_ok=True)
        (folder / "tickets.aidb.jsonl").write_text(json.dumps(_ticket(f"t-{i}", person, phone, i)) + "\n",
                                                   encoding="utf-8")
    pairs = _pairs(values)[CALL_PAIRS:]
    for j in range(0, len(pairs) - 1, 2):
        (a, b), (c, d) = pairs[j], pairs[j + 1]
        stem = f"{a}-{b}" if j % 8 == 0 else f"{a.lower()}_{b.lower()}"
        path = up / f"{stem}.messages.jsonl" if j % 4 < 2 else up / f"{a}_{b}" / "chat.messages.jsonl"
        path.parent.mkdir(exist_ok=True)
        row = {"id": f"{c.lower()}.{d.lower()}" if j % 3 else f"cust-{c}-{d}", "messages": [
            {"role": "user", "content": f"Hello, where is my {ITEMS[j % len(ITEMS)]}?"},
            {"role": "assistant", "content": f"It leaves the warehouse on {DAYS[j % len(DAYS)]}."}]}
        path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return up


CALL_UPLOAD = "hostile-calls-2026-11"
CALL_PAIRS = 5  # name pairs the call upload uses (the rest go to text identifiers)


def _pairs(values: dict[str, Any]) -> list[tuple[str, str]]:
    names = [n["name"] for n in values.get("names", [])]
    pairs = list(zip(names[0::2], names[1::2], strict=False))
    return pairs[: CALL_PAIRS + (len(pairs) - CALL_PAIRS) // 2 * 2]  # text identifiers take pairs two by two


def _call_plan(values: dict[str, Any]) -> dict[str, Any]:
    """The call upload's hostile names: two recordings and their recordings.csv speaker ids and conv_id."""
    (a1, a2), (b1, b2), (c1, c2), (d1, d2), (e1, e2) = _pairs(values)[:CALL_PAIRS]
    ph = values["phones"]
    file_a = f"2026-09-16_{ph[0]['e164']}_{a1.lower()}-{a2.lower()}.wav"
    file_b = f"{d1}-{d2}/call_{ph[1]['national_digits']}.wav"
    rows = [(file_a, "call_003.flac", "", f"{b1}.{b2}@example.org".lower(), f"{c1.lower()}-{c2.lower()}"),
            (file_b, "call_002.flac", f"{e2.lower()}-{ph[3]['national_digits']}", ph[2]["international"], e1)]
    return {"rows": rows, "kinds": {a1: "call_file_name", a2: "call_file_name", d1: "call_folder_name",
                                    d2: "call_folder_name", b1: "speaker_id", b2: "speaker_id", c1: "speaker_id",
                                    c2: "speaker_id", e1: "speaker_id", e2: "call_conv_id"}}


def build_calls(data: Path, values: dict[str, Any] | None = None) -> Path:
    """raw/<CALL_UPLOAD>/: two shipped sample calls written as WAV under call-recorder names, with hostile
    speaker ids and a conv_id in recordings.csv (Whisper transcribes them: ~45 s of audio)."""
    import soundfile as sf

    values = values or load_values()
    up = data / "raw" / CALL_UPLOAD
    up.mkdir(parents=True)
    sample = ROOT / "data" / "raw" / "sample-calls"
    (up / "upload.yaml").write_text((sample / "upload.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    lines = ["file,conv_id,channel_map,user_speaker,agent_speaker"]
    for file, src, conv, user, agent in _call_plan(values)["rows"]:
        audio, rate = sf.read(sample / src, dtype="int16", always_2d=True)
        (up / file).parent.mkdir(parents=True, exist_ok=True)
        sf.write(up / file, audio, rate, subtype="PCM_16")
        lines.append(f'{file},{conv},"{{""0"": ""user"", ""1"": ""agent""}}","{user}",{agent}')
    (up / "recordings.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return up


def planted_kinds(values: dict[str, Any] | None = None, calls: bool = True) -> dict[str, str]:
    """Each planted value (lower case) -> the kind of place it was planted in (for the report's counts); without
    `calls`, only the text upload's."""
    values = values or load_values()
    kinds: dict[str, str] = {}
    for p in values["people"]:
        kinds[p["first"].lower()] = kinds[p["last"].lower()] = "text_files_folders_metadata"
        kinds[p["email"]] = "email_metadata"
    for ph in values["phones"]:
        kinds[ph["national_digits"]] = "phone_files_metadata"
    if values.get("names"):
        call = _call_plan(values)["kinds"]
        for j, pair in enumerate(_pairs(values)):
            for n in pair:
                if j < CALL_PAIRS:
                    if calls:
                        kinds[n.lower()] = call.get(n, "speaker_id")
                else:
                    k = j - CALL_PAIRS
                    base = k - k % 2
                    kinds[n.lower()] = ("record_id" if k % 2 else "text_file_name" if base % 4 < 2
                                        else "text_folder_name")
    return kinds


_HEX_RUN = re.compile(r"[0-9a-f]+")


class IdentifierForm:
    """A leak of an identifier name: the name as a whole word beside `_-/@+`, a digit or a dot inside a name
    (`long.wav`, `mary.long@`), or a whole quoted string (`"long"`), never a word of running text."""

    def __init__(self, name: str) -> None:
        self.name = name.lower()
        self.pattern = re.compile(rf"(?<![a-z]){re.escape(self.name)}(?![a-z])")

    def search(self, low: str) -> bool:
        for m in self.pattern.finditer(low):
            s, e = m.start(), m.end()
            a, b = s, e  # the run of letters and digits around it: a hex digest spells "bee" or "cafe" by chance
            while a > 0 and low[a - 1].isalnum():
                a -= 1
            while b < len(low) and low[b].isalnum():
                b += 1
            if b - a >= 16 and _HEX_RUN.fullmatch(low, a, b):
                continue
            left, right = low[s - 1: s], low[e: e + 1]
            if left and left in "_-/@+0123456789" or right and right in "_-/@+0123456789":
                return True
            if left == "." and low[s - 2: s - 1].isalnum() or right == "." and low[e + 1: e + 2].isalnum():
                return True
            if left in "\"'" and left and right == left:
                return True
        return False


def planted_forms(values: dict[str, Any] | None = None) -> dict[str, Any]:
    """Each planted value (and its parts: a surname alone, a number's digits) -> the pattern a leak matches
    (`.search(lower-cased text)`); identifier names match only where an identifier shows them (IdentifierForm)."""
    values = values or load_values()
    forms: dict[str, Any] = {}
    for p in values["people"]:
        for v in (p["first"], p["last"]):
            forms[v.lower()] = re.compile(rf"(?<![a-z]){re.escape(v.lower())}(?![a-z])")
        forms[p["email"]] = re.compile(re.escape(p["email"]))
    for ph in values["phones"]:
        forms[ph["national_digits"]] = re.compile(rf"(?<!\d){ph['national_digits']}(?!\d)")
    for pair in _pairs(values):
        for n in pair:
            forms.setdefault(n.lower(), IdentifierForm(n))
    return forms


def _file_text(p: Path) -> str:
    if p.suffix == ".parquet":
        import pyarrow.parquet as pq

        # embedded audio (an `audio.bytes` cell: FLAC or WAV) is sound, not text, like a .wav file: its
        # compressed bytes spell short names by chance ("bee", "rio"); every other cell is read as text
        return json.dumps(pq.read_table(p).to_pylist(), default=lambda v: "" if isinstance(v, bytes) else str(v),
                          ensure_ascii=False)
    if p.suffix in (".wav", ".flac", ".png", ".tar", ".mp3"):
        return ""
    # an embedded image (`data:image/png;base64,...`, the steward report's charts) is bytes, not text
    return _DATA_URI.sub("", p.read_bytes().decode("utf-8", "replace"))


_DATA_URI = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]+")


def published_texts(data: Path) -> dict[str, str]:
    """Every file of the published tree: its path and its content as text (what a steward signs)."""
    out: dict[str, str] = {}
    for p in sorted(data.rglob("*")):
        rel = p.relative_to(data)
        if rel.parts[0] in ("raw", "work", ".dagster") or not p.is_file():
            continue
        out[rel.as_posix()] = rel.as_posix() + "\n" + _file_text(p)
    return out


def scan(data: Path, values: dict[str, Any] | None = None) -> dict[str, list[str]]:
    """{published file: planted values found in its name or content} (digits also with separators dropped)."""
    forms = planted_forms(values)
    found: dict[str, list[str]] = {}
    for rel, text in published_texts(data).items():
        low = text.lower()
        digits = re.sub(r"(?<=\d)[\s().\-](?=\d)", "", low)
        hits = [v for v, pat in forms.items() if pat.search(low) or (v.isdigit() and pat.search(digits))]
        if hits:
            found[rel] = hits
    return found


def main(argv: list[str]) -> None:
    if "--draw" in argv or "--draw-names" in argv:
        values = draw_values() if "--draw" in argv else load_values()
        values["names"] = draw_names()
        values["names_method"] = ("names-dataset get_top_names(n=1000) of 36 countries, seeded random ranks; "
                                  "word surnames of 5")
        VALUES_FILE.write_text(json.dumps(values, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {VALUES_FILE}")
        return
    import tempfile

    from vak_pipeline.orchestrate import run_pipeline

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(argv[argv.index("--keep") + 1]) if "--keep" in argv else Path(tmp) / "data"
        build_upload(data)
        if "--text-only" not in argv:
            build_calls(data)
        report = run_pipeline(data, echo=lambda _: None)
        found = scan(data)
        records = len((data / "vakforge.jsonl").read_text().splitlines()) if (data / "vakforge.jsonl").exists() else 0
        kinds = by_kind(found, calls="--text-only" not in argv)
        print(json.dumps({"planted": len(planted_forms()), "published_files": len(published_texts(data)),
                          "records": records, "release": str(report.release), "by_kind": kinds,
                          "surviving": found}, indent=1))


def by_kind(found: dict[str, list[str]], values: dict[str, Any] | None = None,
            calls: bool = True) -> dict[str, dict[str, int]]:
    """{kind: {planted, survived}} over the planted values (`planted_kinds`) and a scan's hits."""
    kinds = planted_kinds(values, calls)
    hit = {v for hits in found.values() for v in hits}
    out: dict[str, dict[str, int]] = {}
    for v, kind in kinds.items():
        row = out.setdefault(kind, {"planted": 0, "survived": 0})
        row["planted"] += 1
        row["survived"] += v in hit
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
