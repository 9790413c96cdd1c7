"""Locale packs are data: every pack file validates against the schema, mistakes are reported with
file, line and key, and a user's pack dropped in data/locales/ is used by an import and its redaction."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from vak_pipeline.core.stage import Ledger
from vak_pipeline.layout import DataLayout
from vak_pipeline.locales import PACKS, get_pack
from vak_pipeline.locales.lid import detect_lang
from vak_pipeline.locales.packfile import BUILTIN_DIR, PackFileError, load_pack_file
from vak_pipeline.locales.registry import load_pack_dir
from vak_pipeline.pii.recognizers import find_pii
from vak_pipeline_tests import processes

ROOT = Path(__file__).parents[2]
PACK_FILES = sorted(BUILTIN_DIR.glob("*.yaml"))
ORIGINAL = ("en-US", "en-GB", "en-IN", "hi-Latn-IN", "hi-IN", "zh-CN")
NEW = ("nl-NL", "de-DE", "de-AT", "sv-SE", "fr-FR", "es-ES")


@pytest.mark.parametrize("path", PACK_FILES, ids=lambda p: p.name)
def test_every_shipped_pack_file_loads_and_validates(path):
    doc, rules = load_pack_file(path, "built-in")
    assert doc["id"] == path.stem and doc["id"] in PACKS
    assert set(rules.placeholders) <= set(doc["pii_types"]), "every declared id/postcode type is enabled"


def test_a_type_with_no_recognizer_is_refused_with_its_file_line_and_key_before_anything_is_scanned(tmp_path):
    """The built-in types are listed once, in the recognizers' table; a pack enabling any other type that its
    file does not declare is refused (naming file, line, key and the types that exist), never scanned for nothing."""
    from vak_pipeline.pii.recognizers import RECOGNIZERS
    from vak_pipeline.pii.recognizers.engine import check_pack

    for pack in PACKS.values():
        check_pack(pack, RECOGNIZERS)  # every shipped pack passes
    path = write(tmp_path, "it-IT.yaml", GOOD.replace("pii_types: [phone,", "pii_types: [phon,"))
    pack = load_pack_dir(tmp_path)["it-IT"]  # the loader knows no recognizers: it keeps where each type is
    for refused in (lambda: check_pack(pack, RECOGNIZERS), lambda: find_pii(pack, "call 020 7946 0018")):
        with pytest.raises(PackFileError) as err:
            refused()
        msg = str(err.value)
        assert msg.startswith(f"{path}:7: pii_types[0]: 'phon' has no recognizer; fix: use one of "), msg
        assert "phone" in msg and "declare it under national_ids or postcodes" in msg


def test_the_six_original_packs_keep_their_languages_regions_and_types():
    assert set(ORIGINAL) | set(NEW) == set(PACKS)
    en_in = get_pack("en-IN")
    assert en_in.languages == ("en", "en-IN", "hi-Latn", "hi") and en_in.romanized_hindi
    assert en_in.phone_regions == ("IN",) and "in_aadhaar" in en_in.pii_types
    assert get_pack("en-GB").phone_regions == ("GB",) and get_pack("zh-CN").siblings == ()
    assert get_pack("en-US").name_countries == (("US", "GB"), ("IN", "CN"))


@pytest.mark.parametrize(
    ("pack", "text", "kind"),
    [
        ("nl-NL", "Mijn BSN is 111222333.", "nl_bsn"),
        ("de-DE", "Meine Steuer-ID ist 65 929 970 489.", "de_idnr"),
        ("de-AT", "Meine Sozialversicherungsnummer ist 1237 010180.", "at_vnr"),
        ("sv-SE", "Mitt personnummer är 811228-9874.", "se_personnummer"),
        ("fr-FR", "Mon numéro de sécurité sociale est 2 95 10 99 126 111 93.", "fr_nir"),
        ("es-ES", "Mi DNI es 54362315K.", "es_dni"),
        ("es-ES", "Mi NIE es X2482300W.", "es_nie"),
    ],
)
def test_each_new_pack_finds_its_national_id_by_its_stdnum_validator(pack, text, kind):
    assert [m.type for m in find_pii(get_pack(pack), text)] == [kind]
    broken = text.replace("3.", "4.").replace("K.", "T.").replace("W.", "X.")  # check digit off by one
    assert kind not in [m.type for m in find_pii(get_pack(pack), broken)] or broken == text


def write(tmp: Path, name: str, body: str) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / name
    path.write_text(body, encoding="utf-8")
    return path


GOOD = """\
id: it-IT
languages: [it, it-IT, en]
default_lang: it
default_for: [it, it-IT]
phone_regions: [IT]
lid: {detector: lingua, languages: [it, en]}
pii_types: [phone, email, iban, it_codice_fiscale]
cues:
  it:
    person_name: [mi chiamo]
    business: [ordine, fattura]
national_ids:
  - type: it_codice_fiscale
    placeholder: CODICE_FISCALE
    validator: stdnum.it.codicefiscale
    pattern: '[A-Za-z]{6}\\d{2}[A-Za-z]\\d{2}[A-Za-z]\\d{3}[A-Za-z]'
    cues: [codice fiscale]
"""


@pytest.mark.parametrize(
    ("body", "line", "key"),
    [
        (GOOD.replace("phone_regions: [IT]", "phone_regions: [Italy]"), 5, "phone_regions[0]"),
        (GOOD.replace("stdnum.it.codicefiscale", "stdnum.it.nonexistent"), 15, "national_ids[0].validator"),
        (GOOD.replace("    cues: [codice fiscale]", "    cues: [codice fiscale]\n    score: 3"), 13, "national_ids[0]"),
        (GOOD.replace("default_lang: it", "default_lang: fr"), 3, "default_lang"),
        (GOOD.replace("  it:\n", "\tit:\n"), 9, "not valid YAML"),
        (
            GOOD.replace("    business: [ordine, fattura]", "    business: [ordine, fattura]\n    null: [x]"),
            12,
            "quote it",
        ),
    ],
)
def test_a_broken_pack_file_names_its_file_line_and_key(tmp_path, body, line, key):
    path = write(tmp_path, "it-IT.yaml", body)
    with pytest.raises(PackFileError) as err:
        load_pack_file(path, str(path))
    msg = str(err.value)
    assert msg.startswith(f"{path}:{line}:"), msg
    assert key in msg and "fix" in msg


def test_a_user_pack_file_is_a_working_pack(tmp_path):
    write(tmp_path, "it-IT.yaml", GOOD)
    pack = load_pack_dir(tmp_path)["it-IT"]
    text = "Buongiorno, mi chiamo Giulia Rossi e il mio codice fiscale è RSSGLI80A41H501W."
    assert [(m.type, text[m.start : m.end] == "RSSGLI80A41H501W") for m in find_pii(pack, text)] == [
        ("it_codice_fiscale", True)
    ]
    assert detect_lang(pack, "Buongiorno, vorrei sapere dove si trova il mio ordine") == "it"


def test_a_user_pack_in_data_locales_is_used_by_an_import_and_its_redaction(tmp_path):
    """`vak locales` lists it, and `vak import-text` on an Italian upload imports and redacts with it."""
    write(tmp_path / "data" / "locales", "it-IT.yaml", GOOD)
    up = tmp_path / "data" / "raw" / "chats-it"
    write(up, "upload.yaml", "locale: it-IT\nconsent: written\nconsent_ref: dpa-7\nlicense: internal\n")
    line = {
        "id": "c1",
        "domain": "support",
        "messages": [
            {"role": "user", "content": "Buongiorno, il mio codice fiscale è RSSGLI80A41H501W, dov'è il mio ordine?"},
            {"role": "assistant", "content": "Grazie, controllo subito lo stato della spedizione."},
        ],
    }
    write(up, "chat.messages.jsonl", json.dumps(line) + "\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    vak = [sys.executable, "-c", "from vak_pipeline.cli import main; main()"]
    listed = processes.run([*vak, "locales"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr
    [row] = [r for r in listed.stdout.splitlines() if r.startswith("it-IT")]
    assert "it_codice_fiscale" in row and str(tmp_path / "data" / "locales" / "it-IT.yaml") in row
    out = tmp_path / "out.jsonl"
    done = processes.run(
        [*vak, "import-text", str(up), str(out)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [rec] = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert rec["locale"] == "it-IT" and [t["lang"] for t in rec["turns"]] == ["it", "it"]
    # the redaction, in a process started in the dataset's directory like `vak run`, finds it by its pack
    redact = (
        "import json, sys; from vak_pipeline.locales import get_pack; "
        "from vak_pipeline.redaction.redact import redact_record; "
        "from vak_pipeline.schema.record import VakRecord; "
        "rec = VakRecord.model_validate_json(open(sys.argv[1], encoding='utf-8').readline()); "
        "red, log, _ = redact_record(rec, get_pack(rec.locale)); "
        "print(json.dumps([[t.text for t in red.turns], [s.type for s in log.spans]]))"
    )
    done = processes.run(
        [sys.executable, "-c", redact, str(out)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    texts, types = json.loads(done.stdout)
    assert types == ["it_codice_fiscale"]
    assert "RSSGLI80A41H501W" not in texts[0] and "<CODICE_FISCALE_1>" in texts[0]


@pytest.mark.timeout(1900)  # two `vak run`s, each allowed 900 s
def test_vak_run_uses_the_packs_in_the_data_directory_and_republishes_when_one_changes(tmp_path):
    """`vak run --data D` from anywhere reads D/locales/ (not only ./data/locales), and an edited pack file is
    part of the redaction cache key: the records are redacted again with it."""
    data = tmp_path / "dataset"
    write(data / "locales", "it-IT.yaml", GOOD)
    up = data / "raw" / "chats-it"
    write(up, "upload.yaml", "locale: it-IT\nsource: real\nconsent: written\nconsent_ref: dpa-7\nlicense: internal\n")
    line = {"id": "c1", "domain": "support", "messages": [
        {"role": "user", "content": "Buongiorno, il mio codice fiscale è RSSGLI80A41H501W, dov'è il mio ordine?"},
        {"role": "assistant", "content": "Grazie, controllo subito lo stato della spedizione."}]}
    write(up, "chat.messages.jsonl", json.dumps(line) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "VAK_"))}
    env.update(PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", DAGSTER_TELEMETRY_DISABLED="1")
    vak = [sys.executable, "-c", "from vak_pipeline.cli import main; main()", "run", "--data", str(data)]
    done = processes.run(vak, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert "ingest_job[chats-it]: ok" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]
    redacted = (data / "work" / "chats-it" / "redacted.jsonl").read_text(encoding="utf-8")
    assert "<CODICE_FISCALE_1>" in redacted and "RSSGLI80A41H501W" not in redacted
    ledger = DataLayout.at(data).stage_ledger("chats-it", "redacted_manifest")
    keys = {item: e.key for item, e in Ledger.load(ledger).previous.items()}
    write(data / "locales", "it-IT.yaml", GOOD + "\n# a steward's edit\n")
    again = processes.run(vak, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert "ingest_job[chats-it]: ok" in again.stdout, again.stdout[-3000:] + again.stderr[-3000:]
    keys_after = {item: e.key for item, e in Ledger.load(ledger).previous.items()}
    assert keys_after.keys() == keys.keys() and all(keys_after[i] != keys[i] for i in keys)
