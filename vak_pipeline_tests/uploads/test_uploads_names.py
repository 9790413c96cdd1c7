"""Issue 26 (1): ids and published file names carry no PII from source file or folder names.

Numbers, e-mail addresses and names in a file or folder name are replaced by their type, and the public name
gets a tag made from the file's own bytes (never from the value, which could be brute forced). Clean names
keep their readable ids. The private map under work/ lets `vak lookup` find the raw file again; an upload
folder whose name carries PII is refused before it becomes a partition key.
"""

from __future__ import annotations

import hashlib
import json

from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.layout import DataLayout
from vak_pipeline.orchestrate import _refuse_pii_names
from vak_pipeline.uploads.ids import conversation_id, public_file
from vak_pipeline.uploads.names import lookup, upload_name_issue, write_name_map

SHA = hashlib.sha256(b"the recording's bytes").hexdigest()
CALLER = "2026-09-16_+919876543210_devika-raghunathan.wav"


def test_a_caller_named_file_is_published_under_its_types_and_a_content_tag():
    pub = public_file(CALLER, SHA, "en-IN")
    assert pub.startswith("2026-09-16_phone_name-") and pub.endswith(".wav")
    assert "9876543210" not in pub and "devika" not in pub and "raghunathan" not in pub
    assert public_file("call_4155550123.wav", SHA).startswith("call_phone-")
    assert public_file("zelda-quarrington/call_001.flac", SHA).startswith("name/call_001-")
    assert public_file("chat_devika.r@example.com.messages.jsonl", SHA).endswith(".messages.jsonl")
    assert "example" not in public_file("chat_devika.r@example.com.messages.jsonl", SHA)


def test_a_lone_rare_surname_or_first_name_is_a_name_but_ordinary_words_stay_readable():
    assert public_file("raghunathan.wav", SHA).startswith("name-")  # no neighbour: the rare-name table
    assert public_file("devika.wav", SHA).startswith("name-")
    assert public_file("support/okonkwo.flac", SHA).startswith("support/name-")
    for clean in ("order.wav", "support.wav", "billing-march.wav", "hinglish.wav", "soporte.wav",
                  "kundendienst.wav", "sample-calls/call_001.wav"):
        assert public_file(clean, SHA) == clean


def test_a_name_in_a_script_without_an_ascii_base_is_tagged_by_the_file_never_hashed_by_the_name():
    other = hashlib.sha256(b"another recording").hexdigest()
    pub = public_file("देविका.wav", SHA)  # Devanagari, no recognizer reads it
    assert pub == f"text-{pub[5:13]}.wav" and public_file("张伟.wav", SHA) == pub  # the bytes, not the name
    assert public_file("देविका.wav", other) != pub
    name_hash = hashlib.sha256("देविका".encode()).hexdigest()[:8]
    conv = conversation_id("up1", "देविका.wav", sha256=SHA)
    assert conv == f"up1-{pub[:-4]}" and name_hash not in conv
    assert public_file("Łukasz-Wójcik.wav", SHA) == pub  # no letter of it is left to read
    assert public_file("José-García.wav", SHA).startswith("name-")  # read through its accents
    assert public_file("cañon-résumé.wav", SHA) == "cañon-résumé.wav"  # words: kept as they are


def test_the_tag_comes_from_the_file_bytes_not_the_value():
    other = hashlib.sha256(b"another recording").hexdigest()
    a, b = public_file("call_4155550123.wav", SHA), public_file("call_4155550199.wav", other)
    assert a != b  # two callers, two recordings: two names
    assert public_file("call_4155550123.wav", SHA) == a  # stable across runs and machines
    assert public_file("call_4155550199.wav", SHA) == a  # the number itself does not enter the tag
    assert not any(c.isdigit() for c in a.split("-")[-1].split(".")[0])  # consonants only: never a number


def test_clean_names_keep_their_readable_ids():
    assert conversation_id("sample-chats", "support.messages.jsonl", record_id="chat-order-001") == \
        "sample-chats-support-chat-order-001"
    assert conversation_id("up1", "call_001.flac") == "up1-call_001"
    assert conversation_id("up1", "x.wav", override="sample_call_003") == "sample_call_003"
    assert public_file("call_001.flac", SHA) == "call_001.flac"


def test_conversation_ids_and_given_ids_are_cleaned_too():
    conv = conversation_id("up1", CALLER, locale="en-IN", sha256=SHA)
    assert conv.startswith("up1-2026-09-16_phone_name-") and "9876" not in conv
    given = conversation_id("up1", "x.wav", override="call-4155550123", sha256=SHA)
    assert given.startswith("call-phone-") and "4155" not in given
    rec = conversation_id("up1", "chats.messages.jsonl", record_id="devika.r@example.com", sha256=SHA)
    assert "devika" not in rec and "email" in rec


def test_vak_lookup_reads_the_private_map(tmp_path):
    layout = DataLayout.at(tmp_path)
    conv = conversation_id("up1", CALLER, locale="en-IN", sha256=SHA)
    write_name_map(layout.name_map("up1"), [(conv, public_file(CALLER, SHA, "en-IN"), CALLER)])
    text_pub = public_file("support_+919812345678.messages.jsonl", SHA)
    write_name_map(layout.name_map("up1", "text"), [(None, text_pub, "support_+919812345678.messages.jsonl")])
    pub = public_file(CALLER, SHA, "en-IN")
    assert lookup(tmp_path, conv) == [{"upload": "up1", "file": CALLER, "public_file": pub}]
    chat = conversation_id("up1", text_pub, record_id="chat-7")
    assert lookup(tmp_path, chat)[0] == {"upload": "up1", "file": "support_+919812345678.messages.jsonl",
                                              "public_file": text_pub, "record": "chat-7"}
    res = CliRunner().invoke(app, ["lookup", conv, "--data", str(tmp_path)])
    assert res.exit_code == 0 and f"raw/up1/{CALLER}" in res.output
    res = CliRunner().invoke(app, ["lookup", "no-such-id", "--data", str(tmp_path)])
    assert res.exit_code == 1


def test_an_upload_folder_named_after_a_caller_is_refused_naming_type_and_range_only():
    issue = upload_name_issue("calls_+919876543210")
    assert issue is not None and issue.code == "upload_name_pii"
    assert "phone at characters 6-19" in issue.message and "rename the folder" in issue.fix
    assert "9876543210" not in issue.render()
    assert upload_name_issue("sample-calls") is None and upload_name_issue("up1") is None
    said: list[str] = []
    refused = _refuse_pii_names(["sample-calls", "devika-raghunathan-sept"], said.append)
    assert list(refused) == ["devika-raghunathan-sept"]
    assert len(said) == 1 and "person_name" in said[0] and "devika" not in said[0].lower()


def test_recordings_csv_issues_name_a_missing_caller_file_by_its_types(tmp_path):
    from vak_pipeline.uploads.descriptor import load_descriptor

    up = tmp_path / "up1"
    up.mkdir()
    (up / "upload.yaml").write_text("locale: en-US\nsource: real\nconsent: recorded_verbal\nconsent_ref: CR-1\n")
    (up / "recordings.csv").write_text("file,user_speaker\ncall_4155550123.wav,cust-1\n")
    _, issues = load_descriptor(up)
    (issue,) = [i for i in issues if i.code == "descriptor_csv_file_missing"]
    assert "call_phone.wav" in issue.message and "4155550123" not in issue.render()


def test_a_stage_report_issue_is_shown_without_the_pii_of_a_raw_name_whoever_wrote_it(tmp_path):
    """The steward report and `vak run` read stage issues through one place, which names files and record ids
    without PII even when a reader quoted the raw name (a file of unknown kind, an old report)."""
    from vak_pipeline.report.stage_reports import stage_issues
    from vak_pipeline.uploads.names import shown_issue

    raw = {"code": "file_unknown_kind", "message": "file type not recognised; it is ignored", "fix": "remove it",
           "severity": "WARN", "family": "audio", "file": "calls/notes_+919876543210_devika-raghunathan.docx",
           "record_id": "alice.smith@example.com"}
    shown = shown_issue(raw)
    assert "9876543210" not in shown["file"] and "devika" not in shown["file"].lower()
    assert "alice" not in shown["record_id"] and shown["file"].startswith("calls/")
    report = tmp_path / "work" / "calls" / "report.json"
    report.parent.mkdir(parents=True)
    report.write_text(json.dumps({"upload": "calls", "issues": [raw]}))
    [si] = stage_issues(DataLayout.at(tmp_path), "calls")
    assert "9876543210" not in (si.issue.file or "") and "alice" not in (si.issue.record_id or "")


def test_a_record_id_in_an_unread_script_is_tagged_by_its_file_never_hashed_by_the_name():
    from vak_pipeline.sources.aidb import conversation_id_for

    other = hashlib.sha256(b"another chat export").hexdigest()
    conv = conversation_id_for("up1", "up1/chats.messages.jsonl", "देविका", lambda: SHA)
    name_hash = hashlib.sha256("देविका".encode()).hexdigest()[:8]
    assert conv.startswith("up1-chats-text-") and name_hash not in conv and "देविका" not in conv
    assert conversation_id_for("up1", "up1/chats.messages.jsonl", "张伟", lambda: SHA) != conv  # one tag a record
    assert conversation_id_for("up1", "up1/chats.messages.jsonl", "देविका", other) != conv  # and a file
    assert conversation_id_for("up1", "up1/chats.messages.jsonl", "देविका", lambda: SHA) == conv  # stable


def test_a_clean_record_id_never_reads_its_file_to_make_a_tag():
    from vak_pipeline.sources.aidb import conversation_id_for

    def unread() -> str:
        raise AssertionError("the file was hashed for a clean id")

    assert conversation_id_for("up1", "up1/chats.messages.jsonl", "chat-order-001", unread) == \
        "up1-chats-chat-order-001"


def test_an_imported_chat_whose_id_is_a_devanagari_name_gets_the_file_tag(tmp_path):
    from vak_pipeline.sources.text import import_text_upload

    up = tmp_path / "raw" / "up1"
    up.mkdir(parents=True)
    (up / "upload.yaml").write_text("locale: en-US\nsource: synthetic\nconsent: synthetic\n", encoding="utf-8")
    line = {"id": "देविका", "messages": [{"role": "user", "content": "hello"},
                                          {"role": "assistant", "content": "hi, how can I help"}]}
    (up / "chats.messages.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    n, issues = import_text_upload(up, tmp_path / "out.jsonl")
    assert n == 1, issues
    [rec] = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rec["id"].startswith("up1-chats-text-")
    assert hashlib.sha256("देविका".encode()).hexdigest()[:8] not in rec["id"]


def test_identifiers_get_the_high_recall_policy_any_countrys_top_name_is_cleaned():
    """Issue 26: a lone surname of one country (`kurz`, `venkataraman`), a common-word surname (`klein`, `fox`,
    `long`, `young`) is a name in a file name; ordinary identifier vocabulary stays readable."""
    for caller in ("kurz.wav", "venkataraman.wav", "klein-order.wav", "fox_2026.wav", "long.wav", "young.wav",
                   "park.wav", "lee.wav", "rose.wav", "bird.wav", "mary-long.wav"):
        pub = public_file(caller, SHA)
        assert pub.startswith("name") and pub != caller, (caller, pub)
    assert public_file("klein-order.wav", SHA).startswith("name-order-")  # the word beside it stays
    assert public_file("fox_2026.wav", SHA).startswith("name_2026-")
    for clean in ("order.wav", "billing-march.wav", "support-call-03.wav", "sample-calls/call_001.flac",
                  "support.messages.jsonl", "tickets.aidb.jsonl", "new-order.wav", "soporte.wav"):
        assert public_file(clean, SHA) == clean


def test_a_vocabulary_word_that_is_a_name_somewhere_is_a_name_beside_one():
    """`sales` (a Brazilian surname), `march`, `li` (two letters) alone are no names; beside a first name
    they are the rest of it. A number beside a vocabulary word does not make it a name."""
    for pair in ("joao-sales.wav", "regine-april.wav", "wei-li.wav", "Hock-Yip.wav"):
        assert public_file(pair, SHA).startswith("name-"), pair
    assert public_file("sales-march.wav", SHA) == "sales-march.wav"
    assert public_file("call_4155550123_billing.wav", SHA).startswith("call_phone_billing-")


def test_cleaned_ids_pass_the_strict_recheck_and_stay_stable():
    """The tag (consonants) is never read as a name, so validation's id check agrees with the id's maker."""
    from vak_pipeline.locales import get_pack
    from vak_pipeline.pii.identifiers import identifier_pii

    for caller in ("kurz.wav", CALLER, "fox_2026.wav", "zelda-quarrington/call_4155550123.flac"):
        conv = conversation_id("up1", caller, sha256=SHA)
        assert identifier_pii(get_pack("en-US"), conv, strict=True) == [], conv
        assert conversation_id("up1", caller, sha256=SHA) == conv
    assert conversation_id("sample-chats", "support.messages.jsonl", record_id="chat-order-001") == \
        "sample-chats-support-chat-order-001"
    assert conversation_id("up1", "x.messages.jsonl", record_id="kelly.leonard", sha256=SHA).startswith(
        "up1-x-name-")
