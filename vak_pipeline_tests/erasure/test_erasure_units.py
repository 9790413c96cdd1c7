"""The pieces of erasure on their own: what each selector reaches, the stages refusing what the ledger names
(a restored raw file is not decoded, a re-encoded copy is deleted right after decoding), and the ledger's
form (digests, append-only)."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest
import soundfile as sf

from bench.dedup_set import SR, render_call, write_variant
from vak_pipeline.audio.stage import normalize_upload
from vak_pipeline.core.erasure import ErasureEntry, append_entry, digest, load_erased, now, read_entries
from vak_pipeline.erasure import plan, refuse_audio
from vak_pipeline.erasure.plan import normalise_value
from vak_pipeline.identity import audio_print
from vak_pipeline.layout import DataLayout
from vak_pipeline.storage import sha256_file
from vak_pipeline_tests.ingest_fixtures import make_upload

pytestmark = pytest.mark.timeout(300)


def _record(conv: str, upload: str, file: str, speakers: dict | None = None, text: str = "hello there",
            audio: bool = False) -> dict:
    rec = {"id": conv, "turns": [{"speaker": "user", "start": 0, "end": 1, "text": text}],
           "meta": {"origin": {"upload": upload, "file": f"{upload}/{file}", "line": 1}, "speakers": speakers}}
    if audio:
        rec["audio"] = {"path": f"audio/{conv}.wav", "duration_s": 60.0}
    return rec


@pytest.fixture
def known(tmp_path) -> DataLayout:
    layout = DataLayout.at(tmp_path)
    rows = {"calls": [_record("calls-a", "calls", "a.wav", {"user": "cust-17", "agent": "dana"}, audio=True),
                      _record("calls-b", "calls", "b.wav", {"user": "cust-99", "agent": "dana"}, audio=True)],
            "chats": [_record("chats-x-1", "chats", "x.messages.jsonl", {"user": "cust-17"},
                              text="Reach me at Alice.Smith@Example.com or 07700 900461"),
                      _record("chats-x-2", "chats", "x.messages.jsonl", text="nothing personal here")]}
    for upload, recs in rows.items():
        layout.conversations(upload).parent.mkdir(parents=True)
        layout.conversations(upload).write_text("".join(json.dumps(r) + "\n" for r in recs))
    return layout


@pytest.mark.parametrize(("selector", "values", "expected"), [
    ("conversation", ["calls-b"], ["calls-b"]),
    ("speaker", ["cust-17"], ["calls-a", "chats-x-1"]),
    ("upload", ["chats"], ["chats-x-1", "chats-x-2"]),
    ("file", ["calls/a.wav"], ["calls-a"]),
    ("value", ["alice.smith@example.com"], ["chats-x-1"]),
    ("value", ["+44 7700 900461"], ["chats-x-1"]),
    ("value", ["+44 7700 900462"], []),
])
def test_each_selector_reaches_exactly_its_conversations(known, selector, values, expected):
    assert plan(known, selector, values).conv_ids == expected


def test_a_text_file_is_whole_only_when_every_record_in_it_is_erased(known):
    assert plan(known, "upload", ["chats"]).whole_files == {"chats/x.messages.jsonl"}
    assert plan(known, "conversation", ["chats-x-1"]).whole_files == set()


def test_the_plan_names_ids_and_counts_never_the_value(known):
    lines = "\n".join(plan(known, "value", ["07700 900461"]).describe())
    assert "chats-x-1" in lines and "900461" not in lines


def test_values_are_compared_in_normalised_form():
    assert normalise_value(" Alice.Smith@Example.COM ") == ("email", "alice.smith@example.com")
    assert normalise_value("+44 (0)7700-900461") == ("phone", "4407700900461")
    assert normalise_value("CUST-0017") == ("id", "cust0017")


def test_the_ledger_is_append_only_digests(tmp_path):
    append_entry(tmp_path, ErasureEntry(at=now(), selector="conversation", conversations=[digest("c1")]))
    append_entry(tmp_path, ErasureEntry(at=now(), selector="conversation", conversations=[digest("c2")]))
    assert len(read_entries(tmp_path)) == 2
    erased = load_erased(tmp_path)
    assert erased.has_conv("c1") and erased.has_conv("c2") and not erased.has_conv("c3")
    assert "c1" not in (tmp_path / "work" / "erasure" / "ledger.jsonl").read_text().replace(digest("c1"), "")


@pytest.fixture(scope="module")
def call(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("call")
    sf.write(out / "call.wav", render_call(random.Random(5), "Hello, you are through to billing."), SR,
             subtype="PCM_16")
    return out / "call.wav"


def test_a_restored_raw_file_is_not_decoded_again(tmp_path, call):
    up = make_upload(tmp_path)
    (up / "call.wav").write_bytes(call.read_bytes())
    layout = DataLayout.at(tmp_path)
    first = normalize_upload(layout, "up1")
    assert first.recordings == 1
    sha = sha256_file(up / "call.wav")  # what raw_uploads' inventory records
    append_entry(tmp_path, ErasureEntry(at=now(), selector="file", files=[sha]))
    again = normalize_upload(layout, "up1")
    assert again.recordings == 0 and again.erased == 1 and again.decoded == 0
    assert any(i.code == "audio_erased" for i in again.issues)


def test_a_re_encoded_copy_of_erased_audio_is_refused_right_after_decoding(tmp_path, call):
    x, _ = sf.read(call, dtype="float32", always_2d=True)
    fp = audio_print(call)
    append_entry(tmp_path, ErasureEntry(at=now(), selector="conversation", prints=[
        {str(ch): base64.b64encode(f.astype("<u4").tobytes()).decode() for ch, f in enumerate(fp.channels)}]))
    up = make_upload(tmp_path)
    write_variant(x, "mp3", up / "restored_from_backup")
    layout = DataLayout.at(tmp_path)
    res = normalize_upload(layout, "up1", refuse=refuse_audio(tmp_path))
    assert res.recordings == 0 and res.erased == 1
    assert not list((tmp_path / "work" / "up1" / "audio").glob("*.wav"))
    assert "restored_from_backup" not in layout.stage_ledger("up1", "normalized_audio").read_text()


def test_other_audio_passes_the_erasure_test(tmp_path, call):
    x, _ = sf.read(call, dtype="float32", always_2d=True)
    other = tmp_path / "other.wav"
    sf.write(other, render_call(random.Random(6), "Thank you for calling Acme support."), SR, subtype="PCM_16")
    fp = audio_print(call)
    append_entry(tmp_path, ErasureEntry(at=now(), selector="conversation", prints=[
        {str(ch): base64.b64encode(f.astype("<u4").tobytes()).decode() for ch, f in enumerate(fp.channels)}]))
    refuse = refuse_audio(tmp_path)
    assert refuse is not None and refuse(call) and not refuse(other)


def test_an_erasure_makes_exactly_the_uploads_it_touched_stale_without_deleting_anything(known):
    """tagged_turns is made of the ledger entries that touch its upload (speech.stage.tag_upstream): an erasure
    changes what its report must have been made from in the uploads it touched, and only there."""
    from vak_pipeline.erasure import carry_out
    from vak_pipeline.speech.stage import tag_upstream

    layout = known
    before = {upload: tag_upstream(layout, upload) for upload in ("calls", "chats")}
    carry_out(layout, plan(layout, "conversation", ["chats-x-2"]))
    assert tag_upstream(layout, "chats") != before["chats"]  # the ledger moved on for this upload
    assert tag_upstream(layout, "calls") == before["calls"]  # untouched: still ingested
    [entry] = read_entries(layout.root)
    assert entry.uploads == [digest("chats")]  # a digest, like every name in the ledger


def test_a_hissing_copy_of_an_erased_call_with_long_silences_is_refused_by_its_weighted_prints(tmp_path):
    """The ledger keeps each channel's energy weights with its fingerprint: silence counts for nothing, so low
    noise over the seconds each side is silent does not hide the copy (and two quiet calls stay apart)."""
    rng = random.Random(5)
    x, y = (render_call(rng, "Hello, you are through to billing.", gap=4.0) for _ in range(2))
    sf.write(tmp_path / "call.wav", x, SR, subtype="PCM_16")
    sf.write(tmp_path / "other.wav", y, SR, subtype="PCM_16")
    hiss = write_variant(x, "noise-50", tmp_path / "hiss")
    fp = audio_print(tmp_path / "call.wav")

    def b64(a) -> str:
        return base64.b64encode(a.tobytes()).decode()

    append_entry(tmp_path, ErasureEntry(at=now(), selector="conversation",
                                        prints=[{str(c): b64(f.astype("<u4")) for c, f in enumerate(fp.channels)}],
                                        weights=[{str(c): b64(w) for c, w in enumerate(fp.weights)}]))
    refuse = refuse_audio(tmp_path)
    assert refuse is not None and refuse(hiss) and not refuse(tmp_path / "other.wav")
