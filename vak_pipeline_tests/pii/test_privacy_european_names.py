"""Person-name rules of the European packs (issue 27, third round), each how the language introduces people:

- de-DE, fr-FR, es-ES names come from names-dataset's lists for the pack's countries (as the English packs'
  do), so a listed given name or surname is known there;
- the cues a pack declares: a colleague one connects to ("Kollegin", "collègue", "compañero"), a relative
  or the holder an account is in the name of ("läuft auf", "au nom de", "a nombre de", "mi marido"), who a
  call is from ("de la part de", "de parte de"), "un tal"; an academic title between the cue and the name
  is skipped ("Herr Dr. Krebs");
- in lower-case (ASR) text the same cues take the words that may be names, one of them listed, and stop
  at the language's frequent words ("soy ... le llamo"); one lower-case word after a full-name intro is
  none ("c'est clair");
- a pack's own closings sign a message off ("Mit freundlichen Grüßen", "Cordialement", "Un saludo");
- a particle of a surname may itself be capitalised ("de La Fontaine");
- a name beside a street word is the street: "rue Victor Hugo", "calle Cervantes", "Baker Street";
- a double-barrelled surname is one name ("Ashworth-Blake"), not a name and another one;
- in English a capitalised name word right after an article or possessive names a thing ("the Carmen dress");
- Chinese: a relative (妈妈), 替 or 联系过 before a full name; the names of a list after its label (出席人员：), joined
  by the enumeration comma 、;
- a senior one hands a call to ("my senior X", "अपने सीनियर X"), and "transferring you to X", name X;
- an English cue word that is a frequent word of the pack's language is that word there (German "im").

Failures name spans, never values."""

from __future__ import annotations

import pytest

from vak_pipeline_tests.pii.scoring import names as _names
from vak_pipeline_tests.pii.scoring import span as _span

FOUND = [
    # cased cues
    ("de-DE", "Ich verbinde Sie mit meiner Kollegin Annegret Vogt aus dem Vertrieb.", "Annegret Vogt"),
    ("de-DE", "Herr Dr. Brenninger ruft Sie morgen zurück.", "Brenninger"),
    ("de-DE", "Das Abo läuft auf Wolfgang Kessler, meinen Schwiegervater.", "Wolfgang Kessler"),
    ("fr-FR", "Je vous appelle de la part de Mathilde Roussel au sujet du devis.", "Mathilde Roussel"),
    ("fr-FR", "La ligne est au nom de Gaston Lemaire depuis 2019.", "Gaston Lemaire"),
    ("fr-FR", "Mon fils Baptiste a oublié son mot de passe.", "Baptiste"),
    ("fr-FR", "Le dossier est suivi par Robert de La Fontaine, votre conseiller.", None),
    ("es-ES", "Le atiende Remedios Castaño, ¿en qué puedo ayudarle?", "Remedios Castaño"),
    ("es-ES", "El contrato está a nombre de Anselmo Gutiérrez Ibarra.", "Anselmo Gutiérrez Ibarra"),
    ("es-ES", "Ayer me llamó un tal Fermín Olmedo del servicio técnico.", "Fermín Olmedo"),
    # lower-case (ASR)
    ("de-DE", "ja hallo mein name ist gudrun hartmann ich habe eine frage", "gudrun hartmann"),
    ("de-DE", "moment ich verbinde sie mit dem kollegen matthias", "matthias"),
    ("fr-FR", "bonjour je m'appelle lucien mercier je vous appelle pour mon contrat", "lucien mercier"),
    ("es-ES", "buenos días soy adela carrasco le llamo por una avería", "adela carrasco"),
    ("es-ES", "le paso con mi compañera rocío un momento", "rocío"),
    # signed off with the pack's own closing
    ("de-DE", "Bitte um Rückruf.\nMit freundlichen Grüßen\nKarl-Heinz Baumann", "Karl-Heinz Baumann"),
    ("fr-FR", "Merci de me tenir informé.\nCordialement,\nAmandine Perrot", "Amandine Perrot"),
    ("es-ES", "Espero su respuesta.\nUn saludo,\nEncarnación Ruiz", "Encarnación Ruiz"),
    ("en-GB", "Thanks for sorting it.\nAll the best,\nGwendolyn Price", "Gwendolyn Price"),
]


@pytest.mark.parametrize(("locale", "text", "name"), [f for f in FOUND if f[2] is not None])
def test_the_name_is_found_with_its_span(locale: str, text: str, name: str) -> None:
    assert _span(text, name) in _names(locale, text)


def test_a_capitalised_particle_stays_inside_the_surname() -> None:
    text = "Je vous appelle de la part de Hélène de La Rochefoucauld."
    assert _names("fr-FR", text) == [_span(text, "Hélène de La Rochefoucauld")]


NOT_NAMES = [
    # an ordinary noun after a cue
    ("de-DE", "Der Vertrag läuft auf Rechnung, nicht per Lastschrift."),
    ("de-DE", "ich verbinde sie mit der technik einen moment"),
    ("es-ES", "soy cliente desde hace diez años y nunca me había pasado"),
    ("fr-FR", "c'est clair que la facture est fausse"),
    ("fr-FR", "c'est vrai que le technicien est passé"),
    # a street: the street word before (fr, es) or after (en) the person's name it carries
    ("fr-FR", "Le colis est resté bloqué rue Émile Zola depuis lundi."),
    ("es-ES", "Vivo cerca de la calle Miguel Servet, al lado del parque."),
    ("en-GB", "The van was parked on Abbey Road outside the shop."),
    ("en-US", "They moved the store from Lincoln Avenue to Madison Street."),
    ("hi-Latn-IN", "mera order lajpat nagar ke paas atka hai"),
]


@pytest.mark.parametrize(("locale", "text"), NOT_NAMES)
def test_look_alikes_are_no_name(locale: str, text: str) -> None:
    assert _names(locale, text) == []


def test_a_double_barrelled_surname_is_one_name() -> None:
    text = "Please send the refund to Imogen Ashworth-Blake, she paid for it."
    assert _names("en-GB", text) == [_span(text, "Imogen Ashworth-Blake")]


def test_a_hyphenated_ordinary_word_after_a_name_stays_outside_it() -> None:
    text = "I spoke to Deepa - she said the e-mail was sent."
    assert _names("en-US", text) == [_span(text, "Deepa")]


def test_a_name_word_right_after_an_article_names_a_thing() -> None:
    assert _names("en-US", "We ordered the Carmen dress in blue and a Jasmine candle.") == []
    text = "I told my colleague Priya about the refund."
    assert _names("en-US", text) == [_span(text, "Priya")]


ZH_FOUND = [
    # a relative, a preposition or a contact verb before a full name, and what follows it
    ("我爸爸贺建国名下有两张卡", "贺建国"),
    ("这单是替韩梅下的", "韩梅"),
    ("我之前联系过曹阳了", "曹阳"),
]


@pytest.mark.parametrize(("text", "name"), ZH_FOUND)
def test_a_chinese_name_after_a_relation_or_contact_word_is_found(text: str, name: str) -> None:
    assert _span(text, name) in _names("zh-CN", text)


def test_the_names_of_a_chinese_list_after_its_label_are_all_found() -> None:
    text = "出席人员：周杰、吴敏、郭静怡。"
    assert _names("zh-CN", text) == [_span(text, n) for n in ("周杰", "吴敏", "郭静怡")]


def test_an_enumeration_of_ordinary_words_is_no_list_of_names() -> None:
    assert _names("zh-CN", "我买了苹果、香蕉、葡萄。") == []


@pytest.mark.parametrize(
    ("locale", "text", "name"),
    [
        ("en-IN", "i am connecting you to my senior dhruvika she will help", "dhruvika"),
        ("en-US", "I'm transferring you to Marisol now.", "Marisol"),
        ("hi-IN", "मैं आपको अपने सीनियर हर्षवर्धन से जोड़ रहा हूँ।", "हर्षवर्धन"),
    ],
)
def test_a_senior_one_hands_a_call_to_is_named(locale: str, text: str, name: str) -> None:
    assert _span(text, name) in _names(locale, text)


def test_a_senior_of_no_name_is_no_name() -> None:
    assert _names("en-IN", "please let me talk to my senior manager about the refund") == []


def test_a_signature_whose_surname_is_a_street_word_is_a_name() -> None:
    text = "The parcel is still missing.\nKind regards,\nOwen Lane"
    assert _names("en-GB", text) == [_span(text, "Owen Lane")]


def test_an_english_cue_word_that_is_a_frequent_word_of_the_pack_language_is_that_word() -> None:
    # German "im" (in the) is no ASR "I'm": the noun after it is no name
    assert _names("de-DE", "Ich habe im Kundenkonto nachgesehen.") == []
    text = "im Moment spricht Frau Wendler mit dem Techniker."
    assert _names("de-DE", text) == [_span(text, "Wendler")]
