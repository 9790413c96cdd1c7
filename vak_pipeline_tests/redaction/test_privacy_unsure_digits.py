"""The audio-side safety net: five or more digits read out in answer to a question are redacted (and so
masked) even when ASR garbled the cue that would say what they are; order numbers, times and amounts in
the same place stay. Sentences are tiny.en transcripts of espeak-ng speech, or shaped like them."""

from __future__ import annotations

import pytest

from vak_pipeline.locales import get_pack
from vak_pipeline.redaction.redact import redact_record
from vak_pipeline_tests.builders import make_record, turn


def _redact(locale: str, *texts: tuple[str, str]) -> tuple[list[str], list[str]]:
    turns = [turn(spk, 2.0 * i, 2.0 * i + 1.5, text) for i, (spk, text) in enumerate(texts)]
    rec = make_record("c1", locale=locale, turns=turns, source="real", consent="written", consent_ref="x")
    out, log, _ = redact_record(rec, get_pack(locale))
    return [t.text for t in out.turns], [s.type for s in log.spans]


@pytest.mark.parametrize("question,reply,redacted", [
    # "zip code" heard as "dip code": no recognizer can name it, the digits go all the same
    ("And your billing details?", "My dip code is 1, 3, 9, 1, 6", "My dip code is <NUMBER_1>"),
    # "pin code" heard as "Napping code"; spoken digit words
    ("Which area are you in?", "Napping code in six, three, three, three, two, seven, only.",
     "Napping code in <NUMBER_1>, only."),
    # "free" is how tiny.en wrote "three" inside the run: it goes with the run
    ("What's the best way to reach you?", "Okay so it's nine eight free 4 4 1 2", "Okay so it's <NUMBER_1>"),
    # Chinese digit characters
    ("您的联系方式是？", "是一三八一二三四五六七", "是<NUMBER_1>"),
])
def test_digits_read_out_after_a_question_are_redacted_when_their_type_is_unsure(question, reply, redacted):
    locale = "zh-CN" if "您" in question else "en-US"
    texts, types = _redact(locale, ("agent", question), ("user", reply))
    assert texts[1] == redacted
    assert "unsure_number" in types


def test_the_asked_type_names_a_run_of_its_length_even_with_misheard_nines():
    # "four six nine seven two nine eight eight ..." heard with "i.e." for each "nine"
    texts, types = _redact("en-US", ("agent", "Which card would you like to use?"),
                           ("user", "The current number is 46, i.e. 72, i.e. 88, 28, i.e. 31, 48."))
    assert texts[1] == "The current number is <CARD_1>."
    assert types == ["payment_card"]


def test_a_typed_match_is_widened_to_the_whole_run_and_keeps_its_type():
    # the ZIP recognizer takes five digits; the two that tiny.en wrote after them are heard too
    texts, types = _redact("en-US", ("agent", "What's your zip code?"), ("user", "zip code is 94103, i.e. 2"))
    assert texts[1] == "zip code is <ZIP_1>"
    assert types == ["us_zip"]


@pytest.mark.parametrize("question,reply", [
    ("What's your order number?", "it's 4 5 6 7 8 9"),  # the question asks for a business id
    ("Anything else I can help with?", "yes my order 1 2 3 4 5 6 has not come"),  # a business cue before
    ("Anything else I can help with?", "the ticket was 5 5 5 1 2 3 4, that one"),
    ("When can the engineer come?", "tomorrow at 10 30 or 11 45"),  # times: four digits a run
    ("How much did you pay?", "I paid 45,000 rupees"),  # an amount with thousands
    ("How much did you pay?", "about 12500 dollars, I think"),  # an amount with its unit
    ("How much did you pay?", "it was $ 12345 in total"),
    ("What did the screen say?", "it said 1 2 3 4 and then nothing"),  # four digits
])
def test_business_numbers_times_and_amounts_after_a_question_stay(question, reply):
    texts, types = _redact("en-US", ("agent", question), ("user", reply))
    assert (texts[1], types) == (reply, [])


def test_without_a_question_before_nothing_unsure_is_redacted():
    texts, types = _redact("en-US", ("agent", "Thanks, we will call you back."), ("user", "okay 1 2 3 4 5 bye"))
    assert (texts[1], types) == ("okay 1 2 3 4 5 bye", [])
