"""Placeholders already in the text (aidb pseudonym tokens) keep their meaning through redaction."""

from __future__ import annotations

from vak_pipeline.locales import get_pack
from vak_pipeline.redaction.redact import redact_record
from vak_pipeline_tests.builders import make_record, turn


def test_new_values_are_numbered_after_existing_tokens_and_the_log_covers_both():
    rec = make_record("c1", turns=[
        turn("user", 0.0, 0.0, "Call me on <PHONE_1>, I am <PER_1>."),
        turn("agent", 1.0, 1.0, "Or the other number 07911 123456?"),
    ])
    rec = rec.model_copy(update={"locale": "en-GB"})
    out, log, _ = redact_record(rec, get_pack("en-GB"))
    assert out.turns[0].text == "Call me on <PHONE_1>, I am <PER_1>."
    assert out.turns[1].text == "Or the other number <PHONE_2>?"
    by_placeholder = {s.placeholder: s for s in log.spans}
    assert set(by_placeholder) == {"<PHONE_1>", "<PER_1>", "<PHONE_2>"}
    for s in log.spans:
        text = out.turns[s.turn].text
        assert text[s.start:s.end] == s.placeholder
    assert by_placeholder["<PER_1>"].type == "person_name"
