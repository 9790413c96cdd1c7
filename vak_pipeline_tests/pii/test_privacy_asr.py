"""Numbers garbled by ASR are still a person's number when the conversation says so."""

from __future__ import annotations

from vak_pipeline.locales import get_pack
from vak_pipeline.redaction.redact import redact_record
from vak_pipeline_tests.builders import make_record, turn


def _redact(*texts: tuple[str, str]):
    turns = [turn(spk, 2.0 * i, 2.0 * i + 1.5, text) for i, (spk, text) in enumerate(texts)]
    rec = make_record("c1", locale="en-IN", turns=turns, source="real", consent="written", consent_ref="x")
    out, log, _ = redact_record(rec, get_pack("en-IN"))
    return [t.text for t in out.turns], log


def test_a_reply_to_a_number_question_loses_its_digits_even_when_asr_garbled_them():
    # tiny.en heard "nine eight seven six five four three two one zero" as "876-543 to 1.0"
    texts, log = _redact(("agent", "Can I have the phone number on your account?"),
                         ("user", "Sure, it is 876-543 to 1.0."))
    assert texts[1] == "Sure, it is <PHONE_1>."
    assert [s.type for s in log.spans] == ["phone"]


def test_a_cue_in_the_same_turn_is_enough():
    texts, _ = _redact(("user", "my mobile is 4411 2233 99 thanks"))
    assert texts[0] == "my mobile is <PHONE_1> thanks"


def test_business_numbers_after_the_question_are_kept():
    texts, log = _redact(("agent", "What is your phone number?"), ("user", "My order 1234567 is late."),
                         ("agent", "The total is 1,234,567 rupees."))
    assert texts[1:] == ["My order 1234567 is late.", "The total is 1,234,567 rupees."] and not log.spans


def test_dotted_digits_after_a_business_cue_are_not_an_ip_address():
    # ASR wrote "four four seven one" as "4.4.7.1": a customer number, a business entity, not PII
    texts, log = _redact(("user", "my customer number is 4.4.7.1, and my server is 10.0.0.12"))
    assert texts[0] == "my customer number is 4.4.7.1, and my server is <IP_1>"


def test_spoken_digits_in_odd_letters_are_read_like_plain_ones():
    # "ſ" and "ı" match s and i when case is ignored, but lower-case to themselves: they once raised KeyError
    from vak_pipeline.pii.recognizers import find_pii

    pack = get_pack("en-US")
    plain = "call me on six one seven five five five zero one nine nine"
    for odd in (plain.replace("six", "ſix"), plain.replace("nine", "nıne"), "it is double ſeven two"):
        found = [(m.type, m.start, m.end) for m in find_pii(pack, odd)]
        if "call me" in odd:
            assert found == [(m.type, m.start, m.end) for m in find_pii(pack, plain)]
