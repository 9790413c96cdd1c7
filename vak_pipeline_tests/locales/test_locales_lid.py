"""Language ID for the European packs: lingua restricted to the pack's languages behind the same
`detect_lang`, code-switch aware, short turns falling back to the conversation's language, and the
Hindi/English/Chinese logic of the original packs unchanged."""

from __future__ import annotations

import pytest

from vak_pipeline.locales import get_pack
from vak_pipeline.locales.lid import conversation_lang, detect_lang
from vak_pipeline.pii.recognizers import lexicon_names  # imports lid._HINDI


@pytest.mark.parametrize(
    ("pack", "text", "lang"),
    [
        ("nl-NL", "Ik heb de router opnieuw opgestart maar het lampje blijft knipperen.", "nl"),
        ("nl-NL", "Sorry, can I continue in English? My Dutch is not great.", "en"),
        ("nl-NL", "Ik heb het already betaald maar de payment staat nog open.", "nl"),
        ("de-DE", "Das Paket ist leider beschädigt angekommen.", "de"),
        ("de-DE", "Sorry, could we switch to English, please?", "en"),
        ("de-AT", "Die Lieferung ist schon wieder nicht gekommen, bitte prüfen Sie das.", "de"),
        ("sv-SE", "Paketet kom aldrig fram till utlämningsstället.", "sv"),
        ("fr-FR", "Le colis est arrivé abîmé et il manque une pièce.", "fr"),
        ("es-ES", "El paquete llegó roto y falta una pieza.", "es"),
        ("es-ES", "I have been waiting for the refund for weeks.", "en"),
    ],
)
def test_each_turn_gets_the_pack_language_it_is_written_in(pack, text, lang):
    assert detect_lang(get_pack(pack), text, get_pack(pack).default_lang) == lang


def test_the_detector_never_answers_a_language_the_pack_does_not_speak():
    # German text in the Dutch pack is still one of the Dutch pack's languages
    assert detect_lang(get_pack("nl-NL"), "Ich möchte meinen Vertrag zum Monatsende kündigen.") in {"nl", "en"}


def test_short_turns_take_the_conversations_language():
    nl = get_pack("nl-NL")
    turns = ["Ik wacht al drie dagen op mijn pakket.", "Kunnen jullie kijken waar het is?", "Oké, dank je."]
    fallback = conversation_lang(nl, turns)
    assert fallback == "nl" and detect_lang(nl, "Okay thanks", fallback) == "nl"
    assert detect_lang(get_pack("de-DE"), "Super", "en") == "en"


def test_the_original_packs_keep_their_script_and_lexicon_logic():
    assert detect_lang(get_pack("hi-Latn-IN"), "mera order abhi tak nahi aaya hai") == "hi-Latn"
    assert detect_lang(get_pack("en-IN"), "I want to check the status of my refund please") == "en"
    assert detect_lang(get_pack("zh-CN"), "我的订单还没有到") == "zh"
    assert detect_lang(get_pack("hi-IN"), "मेरा ऑर्डर अभी तक नहीं आया") == "hi"
    assert "hai" in lexicon_names.lid._HINDI


# written by hand for this test, apart from bench/data/make_pii_eu.py: everyday support turns that insert
# English product words into the pack's language (the matrix language decides), and plain English turns
HANDWRITTEN_CASES = [
    ("nl-NL", "Ik heb mijn password gereset maar de login werkt nog steeds niet", "nl"),
    ("nl-NL", "Can you please send me the invoice again?", "en"),
    ("nl-NL", "Is mijn refund al verwerkt of moet ik nog een ticket aanmaken?", "nl"),
    ("de-DE", "Ich habe das Update installiert, aber die App crasht immer noch", "de"),
    ("de-DE", "The tracking link in your email is broken", "en"),
    ("de-AT", "Können Sie mir bitte den Invoice nochmal schicken, der Download geht nicht", "de"),
    ("fr-FR", "J'ai fait un upgrade de mon plan mais la facture est wrong", "fr"),
    ("fr-FR", "I already sent the screenshot to your team yesterday", "en"),
    ("fr-FR", "Est-ce que vous pouvez faire un refund sur ma carte ?", "fr"),
    ("es-ES", "Ya hice el reset del router pero sigue sin funcionar", "es"),
    ("es-ES", "Could you check whether my refund went through?", "en"),
    ("es-ES", "Necesito cambiar el email de mi cuenta, el login no funciona", "es"),
    ("sv-SE", "Jag har gjort en reset av appen men den kraschar fortfarande", "sv"),
    ("sv-SE", "Thanks, that solved the issue for me", "en"),
    ("sv-SE", "Kan ni skicka en ny invoice till min mejl?", "sv"),
]


@pytest.mark.parametrize(("locale", "text", "lang"), HANDWRITTEN_CASES)
def test_a_code_switched_turn_is_tagged_by_its_grammar_words_not_its_borrowed_nouns(locale, text, lang):
    assert detect_lang(get_pack(locale), text) == lang


def test_function_words_two_languages_share_decide_nothing():
    from vak_pipeline.locales.registry import _function_words

    words = _function_words({"fr": ["on", "a", "le"], "en": ["on", "a", "the"]})
    assert words == {"fr": frozenset({"le"}), "en": frozenset({"the"})}
