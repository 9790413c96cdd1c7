"""Held-out hostile uploads (issue 26): personal values planted around the record, drawn by a different method
than the recognizers, and a scan of the whole published tree for them.

The values are drawn, not written by hand and not taken from the recognizers' own tables:
- names: names-dataset's *per-country top lists* (`NameDataset.get_top_names`, ten countries, first and last
  names), seeded; names that are ordinary English words ("Will", "Grace") are skipped only because a scan
  could not tell a leak of them from the word;
- phone numbers: phonenumbers' example mobile numbers of ten regions, in E.164 and international form;
- e-mail addresses: made from the drawn names.
They are kept in `bench/data/hostile_values.json` (drawing loads names-dataset, ~2 GB: `python
bench/hostile_uploads.py --draw`), so a test builds the same uploads offline.

`build_upload` plants them where a careless or hostile uploader would, text-only (no Whisper needed): file
names (a caller's full name, a lone first name, a lone surname, a phone number), folder names, message
`metadata`, aidb `participants`, `labels`, `links` and extra fields. `scan` reads every file name and every
value of every file of the published tree (JSON, JSONL, CSV, Parquet, HTML, text; not `raw/`, `work/` or the
Dagster instance) and returns each planted value found. `python bench/hostile_uploads.py` runs `vak run` on
a fresh data directory and prints the count.
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
    return up


def planted_forms(values: dict[str, Any] | None = None) -> dict[str, re.Pattern[str]]:
    """Each planted value (and its parts: a surname alone, a number's digits) -> the pattern a leak matches."""
    values = values or load_values()
    forms: dict[str, re.Pattern[str]] = {}
    for p in values["people"]:
        for v in (p["first"], p["last"]):
            forms[v.lower()] = re.compile(rf"(?<![a-z]){re.escape(v.lower())}(?![a-z])")
        forms[p["email"]] = re.compile(re.escape(p["email"]))
    for ph in values["phones"]:
        forms[ph["national_digits"]] = re.compile(rf"(?<!\d){ph['national_digits']}(?!\d)")
    return forms


def _file_text(p: Path) -> str:
    if p.suffix == ".parquet":
        import pyarrow.parquet as pq

        return json.dumps(pq.read_table(p).to_pylist(), default=str, ensure_ascii=False)
    if p.suffix in (".wav", ".flac", ".png", ".tar", ".mp3"):
        return ""
    return p.read_bytes().decode("utf-8", "replace")


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
    if "--draw" in argv:
        VALUES_FILE.write_text(json.dumps(draw_values(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {VALUES_FILE}")
        return
    import tempfile

    from vak_pipeline.orchestrate import run_pipeline

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(argv[argv.index("--keep") + 1]) if "--keep" in argv else Path(tmp) / "data"
        build_upload(data)
        report = run_pipeline(data, echo=lambda _: None)
        found = scan(data)
        records = len((data / "vakforge.jsonl").read_text().splitlines()) if (data / "vakforge.jsonl").exists() else 0
        print(json.dumps({"planted": len(planted_forms()), "published_files": len(published_texts(data)),
                          "records": records, "release": str(report.release), "surviving": found}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
