"""Language ID for the European packs: lingua restricted to the pack's languages behind the same
`detect_lang`, code-switch aware, short turns falling back to the conversation's language, and the
Hindi/English/Chinese logic of the original packs unchanged."""

from __future__ import annotations

import pytest

from vak_pipeline.locales import get_pack
from vak_pipeline.locales.lid import conversation_lang, detect_lang
from vak_pipeline.redaction.recognizers import lexicon_names  # imports lid._HINDI


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
