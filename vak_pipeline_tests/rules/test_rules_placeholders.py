"""The redaction re-check knows every placeholder form the importers and the redaction stage write
(pii.PLACEHOLDER_RE, one definition): none of them is taken for PII."""

from __future__ import annotations

import pytest

from vak_pipeline.rules import ValidationContext, validate_record


@pytest.mark.parametrize("text", [
    "Haan theek hai, mail me at <EMAIL_1>",
    "Haan theek hai, the code is <SECRET>",  # aidb's unnumbered token
    "Haan theek hai, <PER_1> here, mail me at <EMAIL>",
    "Haan theek hai, my reference is <SPELLED_CODE_1> and <NUMBER_2>",
])
def test_placeholders_of_every_form_are_not_pii(example_dataset, example_record, text):
    example_record["turns"][6]["text"] = text
    issues = validate_record(example_record, ValidationContext(base_dir=example_dataset)).issues
    assert [i.code for i in issues if i.code == "pii_present"] == []
