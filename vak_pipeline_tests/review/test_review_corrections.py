"""Corrections back and kept: a Label Studio annotation maps to one correction per reviewed conversation (each
kind: text, speaker, boundaries, language, PII added and removed), the store keeps reviewer and time, and
every re-run applies it (verified_by_human, redaction over the corrected text, words re-fitted or marked
approximate), also after a re-transcription with another model. A correction that no longer fits (audio
replaced, conversation erased, turn gone) is reported to the steward and not applied."""

from __future__ import annotations

import json

import pytest

from vak_pipeline.core.corrections import (
    Correction,
    TurnCorrection,
    load_corrections,
    save_corrections,
    store_path,
    upload_digest,
)
from vak_pipeline.core.erasure import ErasureEntry, append_entry, digest, now
from vak_pipeline.core.issue import Severity
from vak_pipeline.review.annotations import correction_of, import_export
from vak_pipeline.review.tasks import export_tasks
from vak_pipeline.schema import Alignment
from vak_pipeline.speech.stage import tag_upstream

from . import builders as b

pytestmark = pytest.mark.timeout(300)
PHONE = "415 555 0132"


def task_of(layout, **settings) -> dict:
    from vak_pipeline.review.settings import ReviewSettings

    export_tasks(layout, ReviewSettings(conversations=["calls-call"], **settings))
    [task] = json.loads((layout.root / "work/review/tasks.json").read_text())
    return task


def reviewer_edits(result: list[dict], task: dict) -> None:
    """Edit a text (typing a phone number), move a boundary, swap a speaker, change a language, add a PII span."""
    a, u, c = (t["rid"] for t in task["data"]["turns"])
    b.region(result, u, "text")["value"]["text"] = [f"i want to change my billing address call me on {PHONE}"]
    for name in ("speaker", "text", "lang"):
        b.region(result, a, name)["value"]["end"] = 2.1  # the agent's turn ends later than the ASR said
    b.region(result, c, "speaker")["value"]["labels"] = ["user"]  # it was the caller who said it
    b.region(result, c, "lang")["value"]["choices"] = ["en-US"]
    result.append({"id": "newpii", "from_name": "pii", "to_name": "dialogue", "type": "paragraphlabels",
                   "value": {"start": "0", "end": "0", "startOffset": 14, "endOffset": 21, "text": "calling",
                             "paragraphlabels": ["person_name"]}})


@pytest.fixture()
def call(tmp_path):
    layout = b.make_call(tmp_path)
    b.rebuild(layout)
    return layout


def reviewed(layout) -> dict:
    task = b.annotate(task_of(layout), reviewer_edits)
    res = import_export(layout, [task])
    assert (res.reviewed, res.changed_turns, res.stored) == (1, 3, 1), res
    return task


def test_an_annotation_maps_to_one_correction_of_each_kind(call):
    task = b.annotate(task_of(call), reviewer_edits)
    corr, issues = correction_of(task)
    assert issues == []
    assert (corr.conv_id, corr.upload, corr.reviewer, corr.at) == ("calls-call", "calls", "label-studio:7",
                                                                    "2026-12-01T10:00:00Z")
    assert corr.audio_sha == task["data"]["audio_sha"] and corr.source == "label-studio:task/42"
    a, u, c = corr.turns
    assert (a.start, a.end, a.new_end, a.new_start, a.text) == (0.2, 1.9, 2.1, None, None)
    assert [(p.type, p.text) for p in a.pii_added] == [("person_name", "calling")]
    assert u.text.endswith(PHONE) and u.changes == ["text"]
    assert (c.speaker, c.lang, c.changes) == ("user", "en-US", ["speaker", "lang"])


def test_an_untouched_annotation_confirms_every_turn_and_an_unsubmitted_task_is_not_a_review(call):
    task = task_of(call)
    corr, _ = correction_of(b.annotate(task, lambda r, t: None))
    assert [t.changes for t in corr.turns] == [[], [], []]
    assert correction_of(task) == (None, [])
    res = import_export(call, [task])
    assert (res.reviewed, res.unreviewed) == (0, 1) and not store_path(call.root).exists()


def test_a_deleted_predicted_pii_span_is_a_removed_span(call):
    b.write_transcript(call, turns=[*b.TURNS[:1], ("user", 2.3, 4.1, f"my number is {PHONE}", -0.2), *b.TURNS[2:]])
    b.rebuild(call)
    task = task_of(call)
    assert [p["type"] for p in task["data"]["pii"]] == ["phone"]
    pid = task["data"]["pii"][0]["id"]
    corr, _ = correction_of(b.annotate(task, lambda r, t: r.remove(next(x for x in r if x["id"] == pid))))
    assert [(p.type, p.text) for p in corr.turns[1].pii_removed] == [("phone", "<PHONE_1>")]


def _remove_predicted_spans(call, turn0: str, turn1: str) -> dict:
    """The reviewer deletes every PII span the release predicted on these two turns."""
    b.write_transcript(call, turns=[("agent", 0.2, 1.9, turn0, -0.2), ("user", 2.3, 4.1, turn1, -0.2),
                                    *b.TURNS[2:]])
    b.rebuild(call)
    task = task_of(call)
    shown = {p["id"] for p in task["data"]["pii"]}

    def drop(result: list[dict], _task: dict) -> None:
        result[:] = [x for x in result if x["id"] not in shown]

    return b.annotate(task, drop)


def test_a_name_the_reviewer_says_is_not_pii_is_left_in_the_release_and_a_phone_number_stays_redacted(call):
    task = _remove_predicted_spans(call, "this is hope from billing how can i help", f"my number is {PHONE}")
    assert sorted(p["type"] for p in task["data"]["pii"]) == ["person_name", "phone"]
    import_export(call, [task])
    [stored] = load_corrections(call.root)
    assert [(p.type, p.text) for p in stored.turns[0].pii_removed] == [("person_name", "hope")]  # its value
    _, red = b.rebuild(call)
    [rec] = b.records(call)
    assert rec["turns"][0]["text"] == "this is hope from billing how can i help"  # cleared by the reviewer
    assert rec["turns"][1]["text"] == "my number is <PHONE_1>"  # a validated phone number is never un-redacted
    assert (red.review_cleared, red.review_kept) == (1, 1)
    [kept] = [i for i in red.issues if i.code == "review_pii_kept"]
    assert kept.severity == Severity.WARN and PHONE not in kept.message and "0132" not in kept.fix
    b.write_transcript(call, engine="faster-whisper-large-v3", shift=0.04,
                       turns=[("agent", 0.2, 1.9, "this is hope from billing how can i help", -0.2),
                              ("user", 2.3, 4.1, f"my number is {PHONE}", -0.2), *b.TURNS[2:]])
    b.rebuild(call)  # another model, the same words: the reviewer's decision still holds
    assert b.records(call)[0]["turns"][0]["text"] == "this is hope from billing how can i help"


def test_a_cleared_span_changes_the_redaction_key_so_the_record_is_redacted_again(call):
    from vak_pipeline.redaction.stage import redact_upload

    b.rebuild(call)
    assert redact_upload(call, "calls").unchanged == 1
    import_export(call, [_remove_predicted_spans(call, "this is hope from billing how can i help", "fine thanks")])
    b.rebuild(call)
    assert b.records(call)[0]["turns"][0]["text"].startswith("this is hope")


def test_every_kind_of_correction_is_applied_and_survives_a_retranscription_with_another_model(call):
    reviewed(call)
    for engine, shift in (("faster-whisper-tiny.en", 0.0), ("faster-whisper-large-v3", 0.04)):
        b.write_transcript(call, engine=engine, shift=shift)  # what a re-run with another ASR model writes
        tag, _ = b.rebuild(call)
        assert (tag.reviewed, tag.reviewed_turns, tag.review_unfit) == (1, 3, 0), tag.issues
        [rec] = b.records(call, redacted=False)
        tr = rec["meta"]["transcription"]
        assert tr["verified_by_human"] is True and tr["engine"] == engine and tr["verified_turns"] == 3
        a, u, c = rec["turns"]
        assert a["end"] == 2.1 and a["speaker"] == "agent"
        assert [e["type"] for e in a["entities"]] == ["person_name"]
        assert u["text"] == f"i want to change my billing address call me on {PHONE}"
        assert (c["speaker"], c["lang"]) == ("user", "en-US")
        words = Alignment.model_validate_json(call.work_alignment("calls", "calls-call").read_text()).words
        user = [w for w in words if w.turn == 1]
        assert [w.word for w in user] == u["text"].split() and all(w.approximate for w in user)
        assert all(u["start"] <= w.start <= w.end <= u["end"] for w in user)
        assert {w.speaker for w in words if w.turn == 2} == {"user"}
        assert not any(w.approximate for w in words if w.turn == 2)  # same words: the ASR's timings, re-fitted


def test_a_phone_number_the_reviewer_typed_is_redacted_in_the_release(call):
    reviewed(call)
    b.rebuild(call)
    [rec] = b.records(call)
    text = rec["turns"][1]["text"]
    assert PHONE not in text and "<PHONE_1>" in text and "0132" not in json.dumps(rec)
    assert rec["meta"]["pii_redacted"] is True and rec["meta"]["transcription"]["verified_by_human"] is True
    assert "<PERSON_1>" in rec["turns"][0]["text"]  # the span the reviewer marked
    log = json.loads((call.release_files("calls") / "redactions/calls-call.json").read_text())
    assert {(s["turn"], s["type"]) for s in log["spans"]} >= {(1, "phone"), (0, "person_name")}
    assert all(s["audio"] for s in log["spans"] if s["turn"] == 1)  # masked in the audio too
    words = json.loads((call.release_files("calls") / "alignments/calls-call.json").read_text())["words"]
    assert "0132" not in json.dumps(words)


def test_a_placeholder_the_reviewer_kept_is_its_private_value_again_and_still_redacted(call):
    b.write_transcript(call, turns=[*b.TURNS[:1], ("user", 2.3, 4.1, f"my numbr is {PHONE}", -1.5), *b.TURNS[2:]])
    b.rebuild(call)

    def fix_typo(result, task):
        rid = task["data"]["turns"][1]["rid"]
        shown = b.region(result, rid, "text")["value"]["text"][0]
        assert shown == "my numbr is <PHONE_1>"  # the reviewer only ever saw the redacted text
        b.region(result, rid, "text")["value"]["text"] = ["my number is <PHONE_1>"]

    import_export(call, [b.annotate(task_of(call), fix_typo)])
    [stored] = load_corrections(call.root)
    assert stored.turns[1].text == f"my number is {PHONE}"  # private store, whole text
    b.rebuild(call)
    assert b.records(call)[0]["turns"][1]["text"] == "my number is <PHONE_1>"


def test_the_store_keeps_reviewer_and_time_and_a_later_review_replaces_an_earlier_one(call):
    reviewed(call)
    first = load_corrections(call.root)
    later = b.annotate(task_of(call), lambda r, t: None, ann_id=2, who=9, at="2026-12-02T09:00:00Z")
    import_export(call, [later])
    [c] = load_corrections(call.root)
    assert (c.reviewer, c.at) == ("label-studio:9", "2026-12-02T09:00:00Z") and c != first[0]
    assert save_corrections(call.root, first) == (0, 1)  # an older review does not win


def test_a_new_review_makes_the_upload_not_ingested(call):
    # tagged_turns is made of the transcripts, the text import, the files and the corrections: a new review
    # changes what its report must have been made from, so the chain `is_ingested` reads no longer holds
    before = tag_upstream(call, "calls")
    reviewed(call)
    assert upload_digest(call.root, "calls") is not None
    assert tag_upstream(call, "calls") != before


def test_a_correction_of_replaced_audio_is_reported_not_applied(call):
    reviewed(call)
    from vak_pipeline.audio.stage import normalize_upload
    from vak_pipeline_tests.ingest_fixtures import write_wav

    write_wav(call.upload_dir("calls") / "call.wav", seconds=6.5, rate=16000, channels=2, seed=5)  # another call
    normalize_upload(call, "calls")
    b.write_transcript(call)
    tag, _ = b.rebuild(call)
    [issue] = [i for i in tag.issues if i.family == "review"]
    assert (issue.code, issue.record_id, issue.file) == ("review_audio_changed", "calls-call", "calls/call.wav")
    assert "vak review export --conversation" in issue.fix
    [rec] = b.records(call, redacted=False)
    assert rec["meta"]["transcription"]["verified_by_human"] is False and PHONE not in json.dumps(rec)
    report = json.loads(call.speech_report("calls").read_text())["tagged_turns"]
    assert report["counts"]["review_unfit"] == 1 and report["issues"][0]["code"] == "review_audio_changed"


def test_a_correction_of_an_erased_conversation_is_reported_without_its_id(call):
    reviewed(call)
    append_entry(call.root, ErasureEntry(at=now(), selector="conversation", conversations=[digest("calls-call")]))
    tag, _ = b.rebuild(call)
    [issue] = [i for i in tag.issues if i.family == "review"]
    assert issue.code == "review_conversation_erased" and issue.record_id is None
    assert "calls-call" not in issue.message + issue.fix and tag.review_unfit == 1


def test_a_correction_whose_turn_vanished_is_reported_and_the_others_still_apply(call):
    reviewed(call)
    b.write_transcript(call, turns=b.TURNS[:1] + b.TURNS[2:])  # the new model heard nothing at 2.3-4.1 s
    tag, _ = b.rebuild(call)
    [issue] = [i for i in tag.issues if i.family == "review"]
    assert issue.code == "review_turn_vanished" and "2.30-4.10 s" in issue.message
    assert (tag.reviewed, tag.reviewed_turns, tag.review_unfit) == (1, 2, 1)


def test_a_turn_correction_names_its_kinds():
    tc = TurnCorrection(start=1, end=2, new_start=1.1)
    assert tc.changes == ["boundaries"]
    assert Correction(upload="u", conv_id="c", reviewer="r", at="t", turns=[tc]).digest() == \
        Correction(upload="u", conv_id="c", reviewer="r", at="t", turns=[tc]).digest()


def test_vak_erase_takes_the_review_out_of_the_store_leaves_no_trace_and_the_steward_is_told(call):
    from vak_pipeline.erasure import carry_out, plan
    from vak_pipeline.erasure.verify import verify

    reviewed(call)
    p = plan(call, "conversation", ["calls-call"])
    assert p.found
    carry_out(call, p)
    assert load_corrections(call.root) == []
    assert json.loads((call.root / "work/review/tasks.json").read_text()) == []
    assert not [t for t in verify(call) if t.path.startswith("work/review")]
    tag, _ = b.rebuild(call)
    [issue] = [i for i in tag.issues if i.family == "review"]
    assert issue.code == "review_conversation_erased" and issue.record_id is None and "3 turns" in issue.message
