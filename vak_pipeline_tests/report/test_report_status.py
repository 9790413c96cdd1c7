"""The steward page's first screen, piece by piece (no pipeline run): durations a person reads, the warnings that
change what may be trained on, and root causes attributed to the file that must change."""

from __future__ import annotations

import json
from collections import Counter

from vak_pipeline.layout import DataLayout
from vak_pipeline.report.decision import blocking_causes
from vak_pipeline.report.steward import StewardSummary, hms, training_warnings


def test_durations_read_as_clock_times():
    assert [hms(80), hms(3725.4), hms(0.0221 * 3600), hms(None)] == ["0:01:20", "1:02:05", "0:01:20", ""]


def _summary() -> StewardSummary:
    s = StewardSummary(with_audio=4, split_names=["train", "validation", "test"])
    s.audio_by_split = Counter(test=4)
    s.by["split"] = Counter(train=3, validation=1, test=6)
    s.by_split["locale"] = {"en-GB": Counter(train=3, validation=1, test=2), "en-IN": Counter(test=4)}
    s.by_split["source"] = {"real": Counter(train=3, validation=1, test=6)}
    s.by["consent"] = Counter(written=6, recorded_verbal=4)
    s.by["license"] = Counter({"proprietary-internal": 10})
    return s


def test_a_split_without_real_audio_a_locale_in_one_split_and_a_consent_mix_are_warnings():
    warnings = training_warnings(_summary())
    assert [w.split(":")[0] for w in warnings if "no real audio" in w] == [
        "train holds no real audio", "validation holds no real audio"]
    assert any(w.startswith("locale en-IN is only in test (4 conversations)") for w in warnings)
    assert not any("en-GB" in w or "source real" in w for w in warnings)
    assert any(w.startswith("the release mixes 2 consents (written x6, recorded_verbal x4)") for w in warnings)
    assert not any("licences" in w for w in warnings)


def test_no_warning_when_every_split_has_real_audio_and_one_consent():
    s = _summary()
    s.audio_by_split = Counter(train=2, validation=1, test=1)
    s.by_split["locale"] = {"en-GB": Counter(train=3, validation=1, test=6)}
    s.by["consent"] = Counter(written=10)
    assert training_warnings(s) == []


def _issues(layout: DataLayout, rows: list[dict]) -> None:
    layout.validation_report.parent.mkdir(parents=True, exist_ok=True)
    layout.validation_report.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _row(file: str, line: int, family: str = "provenance", code: str = "consent_ref_missing",
         fld: str = "meta.consent_ref") -> dict:
    return {"family": family, "severity": "ERROR", "code": code, "file": file, "line": line, "field": fld,
            "message": "consent 'written' requires consent_ref", "fix": "set meta.consent_ref"}


def test_a_field_the_descriptor_lacks_is_one_cause_naming_upload_yaml(tmp_path):
    up = tmp_path / "raw" / "partner"
    up.mkdir(parents=True)
    (up / "upload.yaml").write_text("locale: en-GB\nconsent: written\n", encoding="utf-8")
    cand = DataLayout.at(tmp_path).candidate()
    _issues(cand, [_row("partner/chats.messages.jsonl", n) for n in (1, 2, 3)]
            + [_row("partner/tickets.aidb.jsonl", 1), _row("partner/chats.messages.jsonl", 4, "turns", "x", "turns")])
    (cause,) = blocking_causes(cand)  # the turns row does not block; the four rows are one cause
    assert (cause.file, cause.field, cause.count, cause.lines) == ("raw/partner/upload.yaml", "consent_ref", 4, [])
    assert "add `consent_ref:` to raw/partner/upload.yaml" in cause.fix
    assert cause.sentence().startswith("blocking check rules_provenance failed (consent_ref_missing x4: ")


def test_a_canonical_import_carries_its_own_meta_so_its_lines_are_the_cause(tmp_path):
    up = tmp_path / "raw" / "partner"
    up.mkdir(parents=True)
    (up / "upload.yaml").write_text("locale: en-GB\nconsent: written\n", encoding="utf-8")
    cand = DataLayout.at(tmp_path).candidate()
    _issues(cand, [_row("partner/old.vakforge.jsonl", n) for n in (3, 7)])
    (cause,) = blocking_causes(cand)
    assert (cause.file, cause.lines, cause.fix) == ("raw/partner/old.vakforge.jsonl", [3, 7], "set meta.consent_ref")
    assert "(raw/partner/old.vakforge.jsonl:3,7)" in cause.sentence()


def test_a_descriptor_that_sets_the_field_is_not_blamed(tmp_path):
    up = tmp_path / "raw" / "partner"
    up.mkdir(parents=True)
    (up / "upload.yaml").write_text("locale: en-GB\nconsent: written\nconsent_ref: dpa-1\n", encoding="utf-8")
    cand = DataLayout.at(tmp_path).candidate()
    _issues(cand, [_row("partner/chats.messages.jsonl", 2)])
    (cause,) = blocking_causes(cand)
    assert cause.file == "raw/partner/chats.messages.jsonl" and cause.lines == [2]
