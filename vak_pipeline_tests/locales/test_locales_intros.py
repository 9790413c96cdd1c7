"""Self-introductions in the European packs' own languages (`name_intros` in their files): the name is
found in real phrasing, and the same words before an ordinary word are left alone."""

from __future__ import annotations

import pytest

from vak_pipeline.locales.registry import PACKS
from vak_pipeline.pii.recognizers import find_pii


def names(pack_id: str, text: str) -> list[str]:
    return [text[m.start : m.end] for m in find_pii(PACKS[pack_id], text) if m.type == "person_name"]


@pytest.mark.parametrize(
    ("pack_id", "text", "expected"),
    [
        # German: "ich bin" / "hier ist" before a full name, "am Apparat" after one
        ("de-DE", "Hallo, ich bin Hannah Hartmann aus der Buchhaltung.", ["Hannah Hartmann"]),
        ("de-DE", "Guten Morgen, Jonas Becker am Apparat.", ["Jonas Becker"]),
        ("de-AT", "Grüß Gott, hier ist Florian Gruber von der Hausverwaltung.", ["Florian Gruber"]),
        ("de-DE", "Ich bin Kunde seit 2019 und warte auf meine Gutschrift.", []),
        ("de-DE", "Ich bin Kunde Ihrer Firma und habe eine Frage.", []),  # Ihrer: a formal pronoun, not a name
        ("de-DE", "Der Techniker am Apparat konnte nicht helfen.", []),
        ("de-DE", "Hier ist Ihre Rechnung vom März.", []),
        # Dutch
        ("nl-NL", "Goedendag, ik ben Ingrid Bakker van de administratie.", ["Ingrid Bakker"]),
        ("nl-NL", "Dit is Femke de Boer, ik bel namens mijn vader.", ["Femke de Boer"]),
        ("nl-NL", "Dit is Belangrijk voor mijn aanvraag.", []),
        ("nl-NL", "Ik ben klant sinds vorig jaar.", []),
        # Swedish: the name before "heter jag"
        ("sv-SE", "Hej, Erik Lindqvist heter jag och jag ringer om fakturan.", ["Erik Lindqvist"]),
        ("sv-SE", "Det är Karin Holm som ringer igen.", ["Karin Holm"]),
        ("sv-SE", "Det är Fredag i morgon, så paketet kommer på måndag.", []),
        # French: "je suis", "moi c'est", "... à l'appareil" (either apostrophe)
        ("fr-FR", "Bonsoir, je suis Nicolas Dubois, le locataire du deuxième.", ["Nicolas Dubois"]),
        ("fr-FR", "Bonjour, c’est Claire Fontaine à l’appareil.", ["Claire Fontaine"]),
        ("fr-FR", "Je suis Cliente depuis dix ans.", []),
        ("fr-FR", "Le Service Client à l'appareil ne répond plus.", []),
        # Spanish: "soy", "al habla"
        ("es-ES", "Buenos días, soy Lucía Romero, la vecina del tercero.", ["Lucía Romero"]),
        ("es-ES", "Hola, al habla Nuria Navarro.", ["Nuria Navarro"]),
        ("es-ES", "Soy Cliente desde hace años y nadie me contesta.", []),
    ],
)
def test_a_self_introduction_in_the_packs_language_names_the_caller(pack_id: str, text: str, expected: list[str]):
    assert names(pack_id, text) == expected


def test_a_pack_files_self_introductions_are_its_own():
    rules = PACKS["de-DE"].rules
    intros = [(r.before, r.after) for r in rules.intros]
    assert intros == [(("ich bin", "hier ist", "sie sprechen mit"), ()), ((), ("am apparat",))]
    assert PACKS["de-DE"].rules.shared_intros == () and PACKS["en-US"].rules.intros == ()


def addresses(pack_id: str, text: str) -> list[str]:
    return [text[m.start : m.end] for m in find_pii(PACKS[pack_id], text) if m.type == "address"]


@pytest.mark.parametrize(
    ("pack_id", "text", "expected"),
    [
        # after an address cue, up to the postcode and city, whatever the street looks like
        ("de-DE", "Meine Adresse ist Unter den Linden 12, 10117 Berlin.", ["Unter den Linden 12, 10117 Berlin"]),
        ("de-AT", "Meine Anschrift ist Postfach 12, 1010 Wien.", ["Postfach 12, 1010 Wien"]),
        ("de-DE", "Meine Adresse ist geändert. Neu ist Lindenweg 5, 10115 Berlin.", ["Lindenweg 5, 10115 Berlin"]),
        ("de-DE", "Meine Adresse ist seit 2019 unverändert, Kundennummer 12345.", []),
        ("de-DE", "Ich wohne in Berlin, Bestellnummer 10115 Berlin ist angekommen.", []),
        ("nl-NL", "Mijn adres is Postbus 1234, 3500 AB Utrecht.", ["Postbus 1234, 3500 AB Utrecht"]),
        ("nl-NL", "Mijn adres is niet veranderd sinds 2019.", []),
        ("sv-SE", "Min adress är Box 123, 114 55 Stockholm.", ["Box 123, 114 55 Stockholm"]),
        ("fr-FR", "Mon adresse est BP 1234, 75008 Paris.", ["BP 1234, 75008 Paris"]),
        ("es-ES", "Mi dirección es Apartado de Correos 123, 28013 Madrid.", ["Apartado de Correos 123, 28013 Madrid"]),
        ("es-ES", "Vivo en Madrid desde 2015 y mi pedido 28013 no llega.", []),
    ],
)
def test_an_address_after_an_address_cue_is_found_up_to_its_postcode(pack_id: str, text: str, expected: list[str]):
    assert addresses(pack_id, text) == expected
