"""Redaction on the stage core: one ledger entry per record (key: the line's bytes, the descriptor's names, the
settings fingerprint with the recognizers' code and the locale packs, the private source files; outputs:
where its redacted line is, its counts, stamps of its published files). A second run reruns no recognizer,
a changed setting re-keys, a failed record is reported again (not retried), and the report is read by
`vak run`."""

from __future__ import annotations

import json

import pytest

from vak_pipeline.cli import upload_problems
from vak_pipeline.core.stage import Ledger
from vak_pipeline.layout import DataLayout
from vak_pipeline.redaction.stage import STAGE, RedactionSettings, redact_upload

UPLOAD = "u1"
TEXTS = {"c1": "call me on +91 98765 43210", "c2": "email me at asha.k@example.com", "c3": "nothing personal"}


def _rec(cid: str, text: str, locale: str = "en-IN", audio: bool = False) -> dict:
    rec = {"id": cid, "schema_version": "0.1", "locale": locale, "language": {"primary": "en"},
           "turns": [{"speaker": "user", "start": 0.1, "end": 1.9, "text": text, "lang": "en"}],
           "meta": {"source": "real", "consent": "recorded_verbal", "consent_ref": "p1"}}
    if audio:  # its normalized audio is missing: redacted, with an issue, pii_redacted false
        rec["audio"] = {"path": f"work/{UPLOAD}/audio/{cid}.wav", "sample_rate": 24000, "channels": 2,
                        "channel_map": {"0": "user", "1": "agent"}, "duration_s": 2.0}
    return rec


def _setup(tmp_path, rows: list[dict]) -> DataLayout:
    layout = DataLayout.at(tmp_path)
    up = layout.upload_dir(UPLOAD)
    up.mkdir(parents=True)
    (up / "upload.yaml").write_text("locale: en-IN\nconsent: recorded_verbal\nconsent_ref: p1\n"
                                    "names: [Priya Sharma]\n", encoding="utf-8")
    _write(layout, rows)
    return layout


def _write(layout: DataLayout, rows: list[dict]) -> None:
    layout.conversations(UPLOAD).parent.mkdir(parents=True, exist_ok=True)
    layout.conversations(UPLOAD).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _ledger(layout: DataLayout):
    return Ledger.load(layout.stage_ledger(UPLOAD, STAGE)).previous


def test_a_second_run_reuses_every_record_from_the_ledger(tmp_path):
    layout = _setup(tmp_path, [_rec(c, t) for c, t in TEXTS.items()])
    first = redact_upload(layout, UPLOAD)
    assert (first.redacted, first.unchanged) == (3, 0) and set(_ledger(layout)) == set(TEXTS)
    before = layout.redacted(UPLOAD).read_bytes()
    again = redact_upload(layout, UPLOAD)
    assert (again.redacted, again.unchanged) == (0, 3)
    assert again.counts_by_type == first.counts_by_type and again.counts_by_type
    report = json.loads(layout.redaction_report(UPLOAD).read_text())
    assert (report["counts"]["redacted"], report["counts"]["unchanged"]) == (0, 3)
    assert layout.redacted(UPLOAD).read_bytes() == before
    entry = _ledger(layout)["c1"]
    place = entry.outputs["line"]  # where its redacted line is
    assert json.loads(before[place["at"]:place["at"] + place["len"]])["id"] == "c1"


def test_a_changed_setting_or_name_list_rekeys_every_record(tmp_path):
    layout = _setup(tmp_path, [_rec(c, t) for c, t in TEXTS.items()])
    redact_upload(layout, UPLOAD)
    keys = {i: e.key for i, e in _ledger(layout).items()}
    padded = redact_upload(layout, UPLOAD, RedactionSettings(padding_s=0.3))
    assert (padded.redacted, padded.unchanged) == (3, 0)
    keys_padded = {i: e.key for i, e in _ledger(layout).items()}
    assert all(keys_padded[i] != keys[i] for i in keys)
    yaml = layout.upload_dir(UPLOAD) / "upload.yaml"
    yaml.write_text(yaml.read_text(encoding="utf-8").replace("Priya Sharma", "Asha Kumar"), encoding="utf-8")
    renamed = redact_upload(layout, UPLOAD, RedactionSettings(padding_s=0.3))
    assert (renamed.redacted, renamed.unchanged) == (3, 0)


def test_a_changed_record_or_a_changed_published_file_redoes_that_record_alone(tmp_path):
    rows = [_rec(c, t) for c, t in TEXTS.items()]
    layout = _setup(tmp_path, rows)
    redact_upload(layout, UPLOAD)
    rows[2] = _rec("c3", "my mail is x.y@example.org")
    _write(layout, rows)
    one = redact_upload(layout, UPLOAD)
    assert (one.redacted, one.unchanged) == (1, 2)
    log = layout.release_files(UPLOAD) / layout.redaction_rel("c2")
    log.write_text("{}", encoding="utf-8")  # its log, edited by hand
    other = redact_upload(layout, UPLOAD)
    assert (other.redacted, other.unchanged) == (1, 2)
    assert json.loads(log.read_text())["spans"]


def test_a_failed_record_is_reported_again_from_the_ledger_not_retried(tmp_path):
    layout = _setup(tmp_path, [_rec("c1", TEXTS["c1"]), _rec("bad", "hello", locale="xx-XX")])
    first = redact_upload(layout, UPLOAD)
    assert first.failed == 1 and [(i.code, i.line) for i in first.issues] == [("redaction_unknown_locale", 2)]
    path = layout.stage_ledger(UPLOAD, STAGE)
    entries = [json.loads(x) for x in path.read_text().splitlines()]
    assert [e["item"] for e in entries if "failure" in e] == ["bad"]
    for e in entries:  # mark the remembered failure, to tell a reused failure from a recomputed one
        if "failure" in e:
            e["failure"]["message"] = "remembered"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    again = redact_upload(layout, UPLOAD)
    assert again.failed == 1 and again.redacted == 0 and again.unchanged == 1
    assert [(i.code, i.message, i.line) for i in again.issues] == [("redaction_unknown_locale", "remembered", 2)]
    assert [p["code"] for p in upload_problems(layout, UPLOAD)] == ["redaction_unknown_locale"]


def test_a_reused_record_reports_its_issues_again_at_its_line_of_this_run(tmp_path):
    rows = [_rec("c1", TEXTS["c1"]), _rec("call", "hello there", audio=True)]
    layout = _setup(tmp_path, rows)
    first = redact_upload(layout, UPLOAD)
    assert [(i.code, i.line) for i in first.issues] == [("redaction_audio_missing", 2)]
    _write(layout, [_rec("c0", TEXTS["c3"]), *rows])  # a new record above it moves it to line 3
    again = redact_upload(layout, UPLOAD)
    assert (again.redacted, again.unchanged) == (1, 2)
    assert [(i.code, i.line, i.record_id) for i in again.issues] == [("redaction_audio_missing", 3, "call")]


def test_a_redaction_log_is_not_fsynced_because_a_log_a_crash_lost_is_redone(tmp_path, monkeypatch):
    """An fsync per record's log was half the stage's time. The ledger keeps each log's content hash, so a log
    that a crash left missing or empty fails that check and its record is redacted again; the ledger itself
    and the redacted manifest stay fsynced."""
    import os

    layout = _setup(tmp_path, [_rec(c, t) for c, t in TEXTS.items()])
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    redact_upload(layout, UPLOAD)
    assert not [p for p in synced if "/redactions/" in p]
    assert [p for p in synced if "/ledger/" in p] and [p for p in synced if ".redacted.jsonl." in p]
    logs = layout.release_files(UPLOAD)
    (logs / layout.redaction_rel("c1")).write_bytes(b"")  # truncated by a crash
    (logs / layout.redaction_rel("c2")).unlink()  # lost by a crash
    again = redact_upload(layout, UPLOAD)
    assert (again.redacted, again.unchanged) == (2, 1)
    assert json.loads((logs / layout.redaction_rel("c1")).read_text())["spans"]
    assert json.loads((logs / layout.redaction_rel("c2")).read_text())["spans"]


def test_each_log_is_stamped_with_the_hash_of_the_bytes_written_without_reading_it_back(tmp_path):
    import hashlib

    texts = {f"c{i}": TEXTS[f"c{1 + i % 3}"] for i in range(7)}
    layout = _setup(tmp_path, [_rec(c, t) for c, t in texts.items()])
    first = redact_upload(layout, UPLOAD, batch=3)
    assert first.redacted == 7
    for entry in _ledger(layout).values():
        log = (layout.release_files(UPLOAD) / layout.redaction_rel(entry.item)).read_bytes()
        assert json.loads(log)["conversation_id"] == entry.item
        assert entry.outputs["published"] == {"audio": None, "align": None,
                                              "log": hashlib.sha256(log).hexdigest()[:16]}
    again = redact_upload(layout, UPLOAD, batch=3)
    assert (again.redacted, again.unchanged) == (0, 7)


def test_a_log_that_cannot_be_written_fails_the_run_and_keeps_the_last_ledger(tmp_path, monkeypatch):
    from vak_pipeline.redaction import stage

    layout = _setup(tmp_path, [_rec(c, t) for c, t in TEXTS.items()])
    redact_upload(layout, UPLOAD)
    before = layout.stage_ledger(UPLOAD, STAGE).read_bytes()
    real = stage.atomic_write_bytes

    def full_for_c2(path, data, durable=True):
        if path.name == "c2.json":
            raise OSError(28, "No space left on device")
        return real(path, data, durable)

    monkeypatch.setattr(stage, "atomic_write_bytes", full_for_c2)
    _write(layout, [_rec(c, t + " again") for c, t in TEXTS.items()])
    with pytest.raises(OSError, match="No space"):
        redact_upload(layout, UPLOAD)
    assert layout.stage_ledger(UPLOAD, STAGE).read_bytes() == before
