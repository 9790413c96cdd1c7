"""Issue 26: the strict identifier policy (ids, file and folder names, speaker ids) against the text policy.

The strict policy takes any names-dataset country's top-10,000 name as a name unless it is identifier vocabulary
derived from wordfreq (`name_table._identifier_names`); free text keeps its context-aware policy.
"""

from __future__ import annotations

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.fields import PublishedString, findings
from vak_pipeline.pii.identifiers import identifier_pii
from vak_pipeline.pii.name_table import _identifier_names

PACK = get_pack("en-US")


def test_the_vocabulary_rule_is_frequency_against_home_rank():
    """(best rank anywhere, best rank in an en/de/fr/es country) -> name or vocabulary word."""
    best = {"long": [37, 127], "young": [47, 47], "kurz": [113, 113], "klein": [14, 14], "order": [9000, 10**9],
            "march": [1428, 1928], "billing": [1145, 3546], "english": [331, 331], "may": [3, 50],
            "venkataraman": [3500, 10**9], "cust": [8325, 10**9], "deep": [20000, 20000]}
    names, words = _identifier_names(best)
    assert {"long", "young", "kurz", "klein", "venkataraman"} <= names
    assert {"order", "march", "billing", "english", "may", "cust"} <= words  # may: a month name
    assert "deep" not in names | words  # ranked below IDENT_RANK everywhere: not kept


def test_strict_is_for_identifiers_text_keeps_its_context():
    assert identifier_pii(PACK, "kurz", strict=True) and not identifier_pii(PACK, "kurz")
    assert identifier_pii(PACK, "fox_2026", strict=True)
    assert identifier_pii(PACK, "billing-march", strict=True) == []
    assert identifier_pii(PACK, "spk-bcdfghjklm", strict=True) == []  # the pipeline's own pseudonym


def test_a_speaker_id_and_a_value_without_spaces_are_identifiers_a_sentence_and_a_key_are_not():
    def found(text: str, kind: str = "text") -> bool:
        return bool(findings(PACK, PublishedString(("meta", "x", "y"), text, kind, 2)))

    assert found("young", "speaker") and found("kelly.leonard") and found("cust-young-4")
    assert not found("cust-4471", "speaker") and not found("replacement_sent") and not found("lang", "key")
    assert not found("it took a long time")
