"""A reply's digits are the value the other speaker just asked for, even when ASR garbled the reply's own
cue or broke the check digit; business numbers and unasked replies stay."""

from __future__ import annotations

from vak_pipeline.locales import get_pack
from vak_pipeline.redaction.redact import redact_record
from vak_pipeline_tests.builders import make_record, turn


def _redact(locale: str, *texts: tuple[str, str]) -> list[str]:
    turns = [turn(spk, 2.0 * i, 2.0 * i + 1.5, text) for i, (spk, text) in enumerate(texts)]
    rec = make_record("c1", locale=locale, turns=turns, source="real", consent="written", consent_ref="x")
    out, _, _ = redact_record(rec, get_pack(locale))
    return [t.text for t in out.turns]


def test_a_card_asked_for_is_redacted_when_asr_misheard_the_cue_and_broke_luhn():
    texts = _redact(
        "en-US", ("agent", "Which card would you like to use?"), ("user", "The current number is 415004276, 5522588.")
    )
    assert texts[1] == "The current number is <CARD_1>."


def test_a_spoken_pin_code_asked_for_is_redacted():
    texts = _redact("en-IN", ("agent", "What is your pin code?"), ("user", "it is five six zero zero three four"))
    assert texts[1] == "it is <PIN_1>"


def test_a_business_number_in_the_reply_stays_and_an_unasked_reply_is_untouched():
    assert (
        _redact(
            "en-US", ("agent", "Which card would you like to use?"), ("user", "order 4150042765522588 first please")
        )[1]
        == "order 4150042765522588 first please"
    )
    assert (
        _redact("en-US", ("agent", "How long have you been a customer?"), ("user", "since 2019, about 41500 points"))[1]
        == "since 2019, about 41500 points"
    )
