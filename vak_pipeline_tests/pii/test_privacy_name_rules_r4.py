"""Person-name rules of issue 27's fourth round, each a positive and a hard negative, in sentences of their own:

- a weekday is a word, never a name ("booked for Friday"), while a name beside it is still found;
- a word no list holds right before a colon is a form's label ("Name of leaseholder: ..."), the name after it stays;
- "Cc"/"Bcc" open an e-mail's copy line; the names on it are found, the label is not;
- a legal-form suffix (SA, GmbH, AG) ends a company name, as "Ltd" does;
- a pack's own street word with its particles ("avenida de", "rue de la") opens a street, not a person;
- Devanagari honorifics and relation words (साहब, मैनेजर) are never the name, a name beside them is;
- Hinglish hold-line verbs ("bane rahiye") are no name after a hand-off;
- list labels (Attendees:, सदस्य:) open a list of names, and a Devanagari list goes on after its commas and और;
- "called" before a listed name ("a guy called ...");
- Chinese role nouns (快递员, 客服), 联系 and 机主 before a surname and given name;
- Devanagari family words (पिताजी, मम्मी) before a name, as other relations;
- a German agent's "sie sprechen mit <full name>";
- Spanish/French "en"/"au" before a lone capitalised first name: a shop or a place, as after "in"; a cue
  still takes a name there.

Failures name spans, never values."""

from __future__ import annotations

import pytest

from vak_pipeline_tests.pii.scoring import names as _names
from vak_pipeline_tests.pii.scoring import span as _span

FOUND = [
    ("en-US", "Please ask Priscilla to ring me back on Friday.", "Priscilla"),
    ("en-GB", "Name of leaseholder: Gordon Whitfield", "Gordon Whitfield"),
    ("en-GB", "Bcc: Yvonne Marsh; Declan Burke", "Declan Burke"),
    ("fr-FR", "Le contrat est au nom de Hélène Marchal depuis mai.", "Hélène Marchal"),
    ("es-ES", "Vivo en la avenida de Goya, pregunte por Rosario Quintana.", "Rosario Quintana"),
    ("hi-IN", "मैनेजर साहब ने कहा कि सुरेखा जी कल आएँगी", "सुरेखा"),
    ("hi-Latn-IN", "main aapki call ritika sabharwal ko transfer kar raha hoon", "ritika sabharwal"),
    ("en-GB", "Attendees: Imogen Radcliffe, Oswald Pennington", "Imogen Radcliffe"),
    ("hi-IN", "प्रतिभागी: सुनीता रावत, कमल जोशी और दीपा बिष्ट", "कमल जोशी"),
    ("hi-IN", "प्रतिभागी: सुनीता रावत, कमल जोशी और दीपा बिष्ट", "दीपा बिष्ट"),
    ("en-US", "i got a text from a guy called marcus about the refund", "marcus"),
    ("zh-CN", "客服王丽说明天发货。", "王丽"),
    ("zh-CN", "退款问题请联系周婷，她会跟进。", "周婷"),
    ("zh-CN", "请问您是机主孙浩吗", "孙浩"),
    ("hi-IN", "मेरी मम्मी सरला भटनागर के नाम पर बिल आता है", "सरला भटनागर"),
    ("de-DE", "guten morgen sie sprechen mit helga brunnhuber wie kann ich helfen", "helga brunnhuber"),
    ("es-ES", "Dejé el paquete en casa de mi vecina, se lo di a la señora Pilar Roldán.", "Pilar Roldán"),
]


@pytest.mark.parametrize(("locale", "text", "name"), FOUND)
def test_the_name_is_found_with_its_span(locale: str, text: str, name: str) -> None:
    assert _span(text, name) in _names(locale, text)


NOT_A_NAME = [
    ("en-US", "Please ask Priscilla to ring me back on Friday.", "Friday"),
    ("en-GB", "The parcel is booked in for Thursday afternoon.", "Thursday"),
    ("en-GB", "Name of leaseholder: Gordon Whitfield", "leaseholder"),
    ("en-GB", "Bcc: Yvonne Marsh; Declan Burke", "Bcc"),
    ("en-GB", "Cc: Yvonne Marsh", "Cc"),
    ("fr-FR", "Lefèvre Rousseau SA a encaissé le chèque deux fois.", "Lefèvre Rousseau"),
    ("de-DE", "Die Rechnung kam von Brandt Köhler GmbH aus Hamburg.", "Brandt Köhler"),
    ("es-ES", "Vivo en la avenida de Goya, pregunte por Rosario Quintana.", "Goya"),
    ("es-ES", "Lo dejaron en la plaza de Emilio Castelar sin avisar.", "Emilio Castelar"),
    ("fr-FR", "Le colis est resté avenue de Gaston Berger depuis lundi.", "Gaston Berger"),
    ("hi-IN", "मैनेजर साहब ने कहा कि सुरेखा जी कल आएँगी", "साहब"),
    ("hi-IN", "मैनेजर साहब ने कहा कि सुरेखा जी कल आएँगी", "मैनेजर"),
    ("hi-Latn-IN", "main aapki call ritika sabharwal ko transfer kar raha hoon, line par bane rahiye", "bane rahiye"),
    ("es-ES", "Lo devolví en Naiara porque la talla no era.", "Naiara"),
    ("en-GB", "The engineer can come for Friday.", "Friday"),
]


@pytest.mark.parametrize(("locale", "text", "word"), NOT_A_NAME)
def test_the_look_alike_is_no_name(locale: str, text: str, word: str) -> None:
    found = _names(locale, text)
    a, b = _span(text, word)
    assert not any(s < b and a < e for s, e in found), (a, b)


def test_a_role_noun_or_relation_before_an_ordinary_phrase_is_no_name() -> None:
    assert _names("zh-CN", "客服说明天发货。") == []
    assert _names("zh-CN", "有问题请联系客服中心。") == []
    assert _names("hi-IN", "मेरे पिताजी ने कल फोन किया था") == []
    assert _names("de-DE", "sie sprechen mit dem kundenservice") == []


def test_a_list_label_before_ordinary_words_is_no_name() -> None:
    assert _names("en-GB", "Attendees: Please Confirm by email") == []
