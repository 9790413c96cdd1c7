"""A new PII type is one declaration in a pack file (its national_ids entry: type, placeholder, validator,
pattern, cues, surrogate) plus the pack's `pii_types`: with nothing registered anywhere else, it is
recognized, redacted to its own placeholder, spoken by synth as its declared fake value and re-checked by
the privacy rule. A built-in type declares its placeholder once, on its recognizer."""

from __future__ import annotations

from pathlib import Path

import pytest
from stdnum.nl import onderwijsnummer

from vak_pipeline.locales import registry
from vak_pipeline.locales.base import LocalePack
from vak_pipeline.locales.packfile import BUILTIN_DIR
from vak_pipeline_tests.builders import make_record, turn

pytestmark = pytest.mark.timeout(120)

NUMBER = "101222343"  # a valid onderwijsnummer, and not a valid BSN
SURROGATE = "101222331"
ENTRY = f"""  - type: nl_onderwijsnummer
    placeholder: ONDERWIJSNUMMER
    validator: stdnum.nl.onderwijsnummer
    pattern: '\\d{{9}}'
    cues: [onderwijsnummer]
    surrogate: '{SURROGATE}'
"""
TEXT = f"mijn onderwijsnummer is {NUMBER} graag"


@pytest.fixture
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LocalePack:
    """nl-NL as a user's pack directory would replace it, registered after import like `register_pack_dir`."""
    text = (BUILTIN_DIR / "nl-NL.yaml").read_text(encoding="utf-8")
    assert "nl_bsn, nl_postcode]" in text and "national_ids:\n" in text
    text = text.replace("nl_bsn, nl_postcode]", "nl_bsn, nl_postcode, nl_onderwijsnummer]")
    text = text.replace("national_ids:\n", "national_ids:\n" + ENTRY)
    (tmp_path / "nl-NL.yaml").write_text(text, encoding="utf-8")
    loaded = registry.load_pack_dir(tmp_path)["nl-NL"]
    monkeypatch.setitem(registry.PACKS, "nl-NL", loaded)
    return loaded


def _record(text: str, **meta):
    return make_record("nl-1", turns=[turn("user", 0.0, 2.0, text, lang="nl"),
                                      turn("agent", 2.1, 3.0, "dank u", lang="nl")], locale="nl-NL", **meta)


def test_the_fixture_number_is_of_the_new_type_only():
    assert onderwijsnummer.is_valid(NUMBER) and onderwijsnummer.is_valid(SURROGATE)


def test_a_type_declared_once_in_a_pack_file_is_recognized(pack):
    from vak_pipeline.pii.recognizers import find_pii

    found = [(m.type, TEXT[m.start:m.end]) for m in find_pii(pack, TEXT)]
    assert found == [("nl_onderwijsnummer", NUMBER)]


def test_a_type_declared_once_is_redacted_to_the_placeholder_its_declaration_names(pack):
    from vak_pipeline.redaction.redact import redact_record

    redacted, log, _ = redact_record(_record(TEXT), pack)
    assert redacted.turns[0].text == "mijn onderwijsnummer is <ONDERWIJSNUMMER_1> graag"
    assert [s.type for s in log.spans] == ["nl_onderwijsnummer"]


def test_a_type_declared_once_is_spoken_by_synth_as_its_declared_surrogate(pack):
    from vak_pipeline.synth.surrogates import Surrogates

    spoken, spans = Surrogates("nl-1", "nl-NL").speak("mijn onderwijsnummer is <ONDERWIJSNUMMER_1>")
    [(*_, sur)] = spans
    assert (sur.kind, sur.value) == ("ONDERWIJSNUMMER", SURROGATE)
    assert spoken.endswith(" ".join(SURROGATE))  # said digit by digit, as a number is read out
    assert NUMBER not in spoken


def test_a_type_declared_once_is_checked_by_the_privacy_rule(pack, tmp_path):
    from vak_pipeline.redaction.redact import redact_record
    from vak_pipeline.rules.context import ValidationContext
    from vak_pipeline.rules.engine import validate_record

    ctx = ValidationContext(base_dir=tmp_path, check_audio=False)
    leaked = validate_record(_record(TEXT, pii_redacted=True).dump(), ctx)
    [issue] = [i for i in leaked.issues if i.code == "pii_present"]
    assert "nl_onderwijsnummer" in issue.message and NUMBER not in issue.message  # the type, never the value
    redacted, _, _ = redact_record(_record(TEXT), pack)
    clean = redacted.model_copy(update={"meta": redacted.meta.model_copy(update={"pii_redacted": True})})
    assert not [i for i in validate_record(clean.dump(), ctx).issues if i.code == "pii_present"]


def test_every_built_in_recognizer_declares_its_placeholder_once_and_packs_add_theirs():
    from vak_pipeline.pii.placeholders import PLACEHOLDER_RE, format_placeholder
    from vak_pipeline.pii.recognizers import PLACEHOLDER_PREFIX, RECOGNIZERS

    for t, rec in RECOGNIZERS.items():
        assert rec.placeholder, f"RECOGNIZERS[{t!r}] names no placeholder"
        assert PLACEHOLDER_RE.fullmatch(format_placeholder(rec.placeholder, 1)), t
        assert PLACEHOLDER_PREFIX[t] == rec.placeholder
    assert (PLACEHOLDER_PREFIX["payment_card"], PLACEHOLDER_PREFIX["nl_bsn"]) == ("CARD", "BSN")
    assert PLACEHOLDER_PREFIX["unsure_number"] == "NUMBER"
    assert PLACEHOLDER_PREFIX.get("no_such_type") is None
