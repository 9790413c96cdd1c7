"""Issue 26 (2): the redaction stage cleans every published string outside the turns.

Speaker ids that carry PII become keyed pseudonyms, the same for the same id in every record (so speaker-
disjoint splits still hold) and not testable against a guess without the data directory's private key;
clean ids and the agent persona stay readable. PII in metadata values and keys and in descriptor fields
becomes numbered placeholders after the record's own; a tool name is cleaned in the tools list and its calls.
"""

from __future__ import annotations

import functools
import hashlib

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.fields import findings, published_strings
from vak_pipeline.redaction.published import clean_published, pseudonym_key, speaker_pseudonym
from vak_pipeline_tests.builders import make_record, make_tool, tool_call

EMAIL, PHONE = "devika.r@example.com", "+91 98765 43210"
PACK = get_pack("en-US")


def _clean(rec, tmp_path):
    return clean_published(rec, PACK, (), functools.partial(pseudonym_key, tmp_path / "work"))


def test_pii_speaker_ids_become_the_same_keyed_pseudonym_everywhere(tmp_path):
    a, _ = _clean(make_record("a", speakers={"user": EMAIL, "agent": "agent-7"}), tmp_path)
    b, counts = _clean(make_record("b", speakers={"user": EMAIL, "agent": "cust-4471"}), tmp_path)
    assert a.meta.speakers["user"] == b.meta.speakers["user"] and a.meta.speakers["user"].startswith("spk-")
    assert a.meta.speakers["agent"] == "agent-7" and b.meta.speakers["agent"] == "cust-4471"
    assert counts == {"email": 1}
    key = (tmp_path / "work" / ".pseudonym-key").read_text()
    assert (tmp_path / "work" / ".pseudonym-key").stat().st_mode & 0o077 == 0
    unkeyed = hashlib.sha256(EMAIL.encode()).hexdigest()
    assert unkeyed[:10] not in a.meta.speakers["user"] and len(key) == 64
    assert speaker_pseudonym(b"another key", EMAIL) != a.meta.speakers["user"]  # a guess needs the key
    assert not findings(PACK, next(s for s in published_strings(a.dump()) if s.kind == "speaker"))


def test_metadata_and_descriptor_strings_get_placeholders_and_pass_the_recheck(tmp_path):
    tool = make_tool("notify_" + "devika", phone="string").model_copy(update={"description": f"mail {EMAIL}"})
    rec = make_record("c", tools=[tool], turns=[("user", 0.0, 1.0, "hello"), tool_call(1.0, "c1", tool.name)],
                      sft_metadata={"participants": [EMAIL, "Devika Raghunathan"], EMAIL: "vip",
                                    "note": f"call back on {PHONE}"})
    rec = rec.model_copy(update={"scenario": "callback", "domain": f"support desk of {EMAIL}"})
    out, counts = _clean(rec, tmp_path)
    doc = out.dump()
    text = str(doc).lower()
    assert "devika" not in text and "98765" not in text and "example.com" not in text
    assert doc["meta"]["sft_metadata"]["note"] == "call back on <PHONE_1>"
    assert doc["meta"]["sft_metadata"]["participants"][0].startswith("<EMAIL_")
    assert doc["tools"][0]["name"] == doc["turns"][1]["tool_call"]["name"] and doc["scenario"] == "callback"
    assert doc["domain"].startswith("support desk of <EMAIL_")
    assert counts["email"] == 4 and counts["phone"] == 1
    assert not [s for s in published_strings(doc) if findings(PACK, s)]


def test_a_clean_record_is_returned_unchanged(tmp_path):
    rec = make_record("d", speakers={"user": "cust-4471", "agent": "agent-7"}, sft_metadata={"source": "chat_log"})
    assert _clean(rec, tmp_path) == (rec, {})
    assert not (tmp_path / "work" / ".pseudonym-key").exists()  # no key made when none is needed


def test_a_run_scans_each_repeated_string_outside_the_turns_once(tmp_path, monkeypatch):
    """The strings outside the turns (tool schemas, metadata keys, domain, speaker ids) are mostly the same in
    every record of an upload: with the run's memo each is scanned once, with the same result as without it;
    another persona or another name list is another scan."""
    from vak_pipeline.redaction import published

    tool = make_tool("lookup_account", account_id="string")

    def rec(cid: str, prompt: str = "You are a helpful support agent."):
        return make_record(cid, speakers={"user": EMAIL, "agent": "agent-7"}, tools=[tool], system_prompt=prompt,
                           sft_metadata={"note": f"call back on {PHONE}", "source": "chat_log"})

    key = functools.partial(pseudonym_key, tmp_path / "work")
    alone = [clean_published(rec(c), PACK, (), key) for c in ("a", "b")]
    scanned: list[str] = []
    real = published.findings
    monkeypatch.setattr(published, "findings", lambda pack, s, *a: scanned.append(s.text) or real(pack, s, *a))
    memo: published.Memo = {}
    first = clean_published(rec("a"), PACK, (), key, memo)
    n = len(scanned)
    second = clean_published(rec("b"), PACK, (), key, memo)
    assert [first, second] == alone and n == len(set(scanned))
    assert scanned[n:] == []  # nothing of the second record was scanned again
    clean_published(rec("c", "You are Meera, a support agent."), PACK, (), key, memo)
    clean_published(rec("d"), PACK, ("Devika",), key, memo)
    assert len(scanned) == 3 * n


def test_a_metadata_key_that_is_a_surname_is_cleaned_and_a_field_name_of_the_record_is_kept(tmp_path):
    """Keys are identifiers (the strict policy): `kurz` is a German surname however ordinary a word it is in
    German, so as a key it goes; a key that is a field name of the canonical record (`lang`) or an everyday
    English word (`line`, `queue`) stays readable."""
    rec = make_record("e", sft_metadata={"labels": {"kurz": "account", "lang": "de", "queue": "billing"},
                                         "origin": {"line": 3}})
    out, counts = _clean(rec, tmp_path)
    labels = out.dump()["meta"]["sft_metadata"]["labels"]
    assert "kurz" not in str(labels).lower() and counts == {"person_name": 1}
    assert labels["lang"] == "de" and labels["queue"] == "billing"
    assert out.dump()["meta"]["sft_metadata"]["origin"] == {"line": 3}  # a Norwegian name, but a word as a key
    assert not [s for s in published_strings(out.dump()) if findings(PACK, s)]
