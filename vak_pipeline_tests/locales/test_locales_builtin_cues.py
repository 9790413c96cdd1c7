"""The original packs' cue words and number words are data in their pack files, read by the recognizers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vak_pipeline.locales.packfile import BUILTIN_DIR, PackFileError, load_pack_file
from vak_pipeline.locales.registry import PACKS
from vak_pipeline.pii.recognizers import spoken_digits


def assert_edit_refused(tmp_path: Path, file: str, old: str, new: str, error: str) -> None:
    """A copy of a built-in pack file with `old` replaced by `new` is refused naming the file, a line and `error`
    (the key and what is wrong)."""
    text = (BUILTIN_DIR / file).read_text(encoding="utf-8")
    assert old in text, f"{file} no longer holds {old!r}: the test would edit nothing"
    (tmp_path / file).write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(PackFileError, match=re.escape(file) + r":\d+: " + error):
        load_pack_file(tmp_path / file, "test")


def test_the_builtin_spoken_digit_table_is_read_from_the_original_packs_files():
    assert spoken_digits._WORDS["nine"] == "9"  # en-US.yaml
    assert spoken_digits._WORDS["paanch"] == "5"  # hi-Latn-IN.yaml
    assert spoken_digits._WORDS["सात"] == "7"  # hi-IN.yaml
    assert spoken_digits._REPEAT == {"double": 2, "triple": 3, "डबल": 2, "ट्रिपल": 3}
    assert spoken_digits._ZH["幺"] == "1"  # zh-CN.yaml
    # the shared table is every pack's, so the original packs carry no per-pack extra words
    assert all(PACKS[p].number_words == () for p in ("en-US", "en-GB", "en-IN", "hi-Latn-IN", "hi-IN", "zh-CN"))


def test_spoken_digits_from_the_pack_files_become_a_digit_view():
    view = spoken_digits.digit_view("call me on nine eight double seven six five four")
    assert view is not None and "9877654" in view.text
    view = spoken_digits.digit_view("号码是幺三八零零一三八零零零")
    assert view is not None and "13800138000" in view.text


def test_a_repeat_word_that_repeats_four_times_is_refused_with_its_line(tmp_path: Path):
    assert_edit_refused(tmp_path, "en-US.yaml", "triple: 3", "triple: 4", r"repeat_words\.en\.triple")


def test_postcode_cues_are_read_from_the_packs_that_list_the_type():
    from vak_pipeline.pii.recognizers import postcodes

    assert "pincode" in PACKS["en-IN"].rules.shared_cue_words["postcode"]
    assert "पिन कोड" in PACKS["hi-IN"].rules.shared_cue_words["postcode"]
    assert "邮编" in PACKS["zh-CN"].rules.shared_cue_words["postcode"]
    # each word the files give is a cue of its type's recognizer, and a space matches any whitespace
    for pid, pattern in (("en-US", postcodes._US_CUE), ("en-IN", postcodes._IN_CUE), ("zh-CN", postcodes._CN_CUE)):
        for w in PACKS[pid].rules.shared_cue_words["postcode"]:
            assert pattern.fullmatch(w.replace(" ", "  ")), (pid, w)
    assert [m.norm for m in postcodes.IN_PIN("mera पिन  कोड hai 110001")] == ["110001"]
    assert [m.norm for m in postcodes.US_ZIP("my zip - code is 78701")] == ["78701"]
    assert list(postcodes.CN_POSTCODE("订单号 123456")) == []  # no postcode cue, no postcode


def test_shared_cues_feed_the_python_recognizers_not_the_pack_file_rules():
    for pid in ("en-US", "en-IN", "hi-IN", "hi-Latn-IN", "zh-CN"):
        rules = PACKS[pid].rules
        assert PACKS[pid].source == "built-in" and rules.name_cues is None and rules.phone_cues is None


def test_phone_cues_are_read_from_the_original_packs_and_apply_in_every_pack():
    from vak_pipeline.pii.recognizers import phone

    words = [w for pid in ("en-US", "hi-IN", "zh-CN") for w in PACKS[pid].rules.shared_cue_words["phone"]]
    assert {"whatsapp", "reach me", "मोबाइल", "手机"} <= set(words)
    assert all(phone._PHONE_CUE.fullmatch(w) for w in words)
    assert phone._PHONE_CUE.search("telefoonnummer") is None  # a European pack's cue stays in its own rules
    assert phone.asks_for_number("what is the best number to reach  me on?")
    assert [m.norm for m in phone.find_cued_digit_runs("मेरा मोबाइल 98765 43 210 hai")] == ["9876543210"]


def test_the_words_around_a_name_are_read_from_the_pack_files_by_script():
    from vak_pipeline.pii.recognizers import lexicon_names as ln

    assert "speak with" in ln._CUE_PREV2 and "naam hai" in ln._STRONG_PREV2  # en-US, hi-Latn-IN
    assert {"ji", "sahab"} <= ln._STRONG_NEXT and "shri" in ln._TITLES  # hi-Latn-IN
    assert "श्री" in ln._DEVA_TITLES and "श्री" not in ln._TITLES  # hi-IN, kept to its script
    assert "先生" in ln._ZH_TITLES  # zh-CN
    assert PACKS["nl-NL"].rules.shared_name_context == {}  # a pack without shared_cues feeds none of them


def test_name_context_roles_are_checked_by_the_schema(tmp_path: Path):
    assert_edit_refused(tmp_path, "zh-CN.yaml", "    titles:", "    honorifics:",
                        r"name_context\.zh: Additional properties")


def test_a_user_pack_that_replaces_a_builtin_one_leaves_the_shared_tables_as_shipped(tmp_path: Path, monkeypatch):
    from vak_pipeline.locales import registry

    text = (BUILTIN_DIR / "en-US.yaml").read_text(encoding="utf-8").replace("shared_number_words: true\n", "")
    (tmp_path / "en-US.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(registry, "PACKS", dict(registry.PACKS))
    registry.PACKS.update(registry.load_pack_dir(tmp_path))
    assert registry.PACKS["en-US"].source != "built-in"
    assert registry.BUILTIN_PACKS["en-US"].source == "built-in"
    assert dict(registry.BUILTIN_PACKS["en-US"].rules.shared_number_words)["nine"] == "9"


def test_self_introductions_are_read_from_the_pack_files_per_script():
    from vak_pipeline.pii.recognizers import names

    def found(text: str) -> list[str]:
        return [text[m.start : m.end] for m in names.find_cued_names(text)]

    assert [r.lang for r in PACKS["en-US"].rules.shared_intros][:1] == ["en"]
    assert found("hi, my name is priya sharma and I need help") == ["priya sharma"]  # en-US
    assert found("This is Rahul from the billing team") == ["Rahul"]  # en-US, with its follower
    assert found("this is about my order") == []  # no follower after the words: not an introduction
    assert found("I am Worried about the bill") == ["Worried"] and found("i am worried") == []  # capitalised rule
    assert found("haan ji mera naam sunita devi hai") == ["sunita devi"]  # hi-Latn-IN
    assert found("main rohit bol raha hoon") == ["rohit"]
    assert found("मेरा नाम अनीता शर्मा है") == ["अनीता शर्मा"]  # hi-IN
    assert found("मैं आप से बोल रहा हूँ") == []  # a stop word of hi-IN is never a name
    assert found("你好，我叫王小明，手机坏了") == ["王小明"]  # zh-CN
    assert found("我名叫李华。") == ["李华"]  # every cue of the file counts (the old prefilter missed this one)
    assert "namaste" in names.STOP and "the" in names.STOP and "है" in names._DEVA_STOP


def test_the_persona_and_ambiguous_name_words_are_read_from_the_pack_files():
    from vak_pipeline.pii.recognizers import names

    assert names.persona_names("You are Priya from SunCare Solar support.") == {"priya"}  # en-US
    assert names.persona_names("aap Meera ho, ek helpful assistant") == {"meera"}  # hi-Latn-IN
    assert {"grace", "will"} <= names._AMBIGUOUS
    # "Grace" is matched as written, "grace" (an ordinary word) is not
    text = "by the grace of Grace Lee"
    spans = {(m.start, m.end) for m in names.find_given_names(text, ("Grace Lee",))}
    assert (text.index("Grace Lee"), len(text)) in spans and (7, 12) not in spans


def test_a_self_introduction_without_before_or_after_words_is_refused_with_its_line(tmp_path: Path):
    text = (BUILTIN_DIR / "zh-CN.yaml").read_text(encoding="utf-8")
    text = text.replace("    - before: [我叫", "    - capitalised: true\n      not_before: [我叫")
    (tmp_path / "zh-CN.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(PackFileError, match=r"name_intros\.zh\[0\]"):
        load_pack_file(tmp_path / "zh-CN.yaml", "test")


def test_the_name_lists_grammar_and_stop_words_are_read_from_the_pack_files():
    from vak_pipeline.locales.registry import BUILTIN_PACKS
    from vak_pipeline.pii.recognizers import lexicon_names as ln

    zh = BUILTIN_PACKS["zh-CN"].rules.shared_name_context
    assert "王" in zh["surnames"] and "收件人是" in zh["strong_before"] and "小" in zh["prefixes"]
    assert ln._ZH_SURNAMES == frozenset(zh["surnames"]) and {"我", "吗"} <= ln._ZH_STOP  # stop + common_words
    assert {"das", "pal", "rupees"} <= ln.NON_NAME and "yeah" in ln._FILLERS and "haan" in ln._FILLERS
    assert "बोल" in ln._DEVA_AFTER_ANY and "बोल" not in ln._DEVA_AFTER  # after a listed name only
    # the name words are the files' (en-US's form labels "applicant", "caller" among them, hi-Latn-IN's "naam")
    assert "this side" in ln._CUE_NEXT2 and ln._NAME_WORDS == frozenset(ln.context_words("name_words"))
    assert {"name", "holder", "naam", "applicant"} <= ln._NAME_WORDS
    pack = PACKS["zh-CN"]

    def names_in(text: str) -> list[str]:
        return [text[m.start : m.end] for m in ln.find_lexicon_names(text, pack)]

    assert names_in("收件人是张伟，电话发你了") == ["张伟"]  # a surname after a cue of the file
    assert names_in("小王，你好") == ["小王"]  # 小 + surname as a whole reply
    assert names_in("我们和他们都说了") == []  # grammar characters, no name


def test_personal_cues_and_the_words_before_a_trailing_business_cue_are_read_from_the_pack_files():
    from vak_pipeline.pii.recognizers import base

    assert "nhs" in PACKS["en-GB"].rules.shared_cue_words["personal"]  # en-GB, read by every pack
    packs = ("en-US", "en-IN", "hi-IN", "zh-CN")
    assert all(base._PERSONAL_CUES.fullmatch(w) for p in packs for w in PACKS[p].rules.shared_cue_words["personal"])
    # a personal cue closer to the number than the business cue outweighs it
    assert base.business_context("the order number is 2345 6789 0123", 20)
    assert not base.business_context("order issue, my aadhaar is 2345 6789 0123", 27)
    text = "4155550132 is my order number"
    assert base.business_context(text, 0, end=10)  # "is" (business_links) + "my" (business_determiners)
    assert not base.business_context("4155550132, my order is late", 0, end=10)  # after a comma: other clause
    assert base.business_context("8123456789 wala booking", 0, end=10)  # hi-Latn-IN


def test_misheard_digits_and_the_word_for_plus_are_read_from_the_pack_files():
    from vak_pipeline.pii.recognizers import phone

    assert dict(PACKS["en-US"].rules.shared_misheard_digits) == phone._HOMOPHONES
    # "nine eight seven six five four three two one zero" as ASR wrote it, after a phone cue
    assert [m.norm for m in phone.find_cued_digit_runs("my phone is 876 to 1 for 3 oh 12")] == ["8762143012"]
    assert [m.norm for m in phone.find_cued_digit_runs("the order is 876 to 1 for 3 oh 12")] == []  # no phone cue
    view = spoken_digits.digit_view("plus nine one nine eight seven six five four three two one")
    assert view is not None and view.text == "+91987654321"


def test_the_address_forms_read_their_words_from_the_pack_files():
    from vak_pipeline.pii.recognizers import addresses

    street = {w for p in ("en-US", "en-IN", "hi-Latn-IN") for w in PACKS[p].rules.shared_address_words["street"]}
    assert {"street", "marg", "colony"} <= street

    def found(text: str) -> list[str]:
        return [text[m.start : m.end] for m in addresses.find_addresses(text)]

    assert found("I live at 42 Baker Street, London NW1 6XE.") == ["42 Baker Street, London NW1 6XE"]  # en-US
    assert found("ship it to flat no. 12, Lajpat Nagar, 110024") == ["flat no. 12, Lajpat Nagar, 110024"]
    assert found("mera address hai H-42, sector 15, Noida 201301") == ["H-42, sector 15, Noida 201301"]
    assert found("मकान नंबर 12, गली 3, शास्त्री नगर") == ["मकान नंबर 12, गली 3, शास्त्री नगर"]  # hi-IN
    assert found("我住在北京市朝阳区建国路88号3号楼") == ["北京市朝阳区建国路88号3号楼"]  # zh-CN, lead removed
    assert found("it took 12 minutes to the road") == []  # "minutes", "to", "the": never in a street name


def test_an_address_word_that_is_not_a_regex_is_refused_with_its_line(tmp_path: Path):
    assert_edit_refused(tmp_path, "hi-IN.yaml", "'नं\\.?'", "'नं(\\.?'",
                        r"address_words\.hi\.unit_number\[2\]: not a valid")


def test_the_european_packs_stop_words_and_particles_are_read_from_their_files():
    from vak_pipeline.pii.recognizers import pack_rules

    assert {"und", "och", "oui", "and"} <= pack_rules._NAME_STOP and {"van", "von", "del"} <= pack_rules._PARTICLES
    assert PACKS["nl-NL"].rules.name_particles >= {"van", "ter"}
    pack = PACKS["nl-NL"]
    found = pack_rules.find_pack_names("Goedemiddag, u spreekt met Sanne de Vries en ik bel over", pack)
    assert [m.norm for m in found] == ["sanne de vries"]  # a particle inside, "en" (a stop word) ends it


def test_the_id_cues_and_the_us_states_are_read_from_the_pack_files():
    from vak_pipeline.pii.recognizers import national_ids, postcodes

    assert "nino" in PACKS["en-GB"].rules.shared_cue_words["uk_nino"]
    assert national_ids._AADHAAR_CUE.fullmatch("आधार") and national_ids._AADHAAR_CUE.fullmatch("aadhar")
    assert national_ids._SSN_CUE.search("my social security number") and not national_ids._SSN_CUE.search("socially")
    assert "TX" in PACKS["en-US"].rules.shared_address_words["regions"] and len(postcodes._STATES) == 51
    assert [m.norm for m in postcodes.US_ZIP("ship it to 500 Congress Ave, Austin, TX 78701")] == ["78701"]
    assert list(postcodes.US_ZIP("invoice total, XY 78701")) == []  # not a state


def test_a_builtin_self_introduction_without_before_words_is_refused_with_its_line(tmp_path: Path):
    assert_edit_refused(tmp_path, "hi-IN.yaml", "    - before: [मैं]\n", "    - ",
                        r"name_intros\.hi\[1\]: the built-in name recognizer")


def test_the_words_before_a_version_are_read_from_the_pack_files(tmp_path: Path):
    from vak_pipeline.pii.recognizers import network

    assert "firmware\\s*" in PACKS["en-US"].rules.shared_version_words
    assert "固件" in PACKS["zh-CN"].rules.shared_version_words

    def ips(text: str) -> list[str]:
        return [text[m.start : m.end] for m in network.find_ips(text)]

    assert ips("the router is on firmware 4.2.0.118 now") == []  # en-US: a version
    assert ips("固件版本号 4.2.0.118") == [] and ips("ऐप का वर्जन 4.2.0.118 है") == []  # zh-CN, hi-IN
    assert ips("my laptop's address is 192.168.1.20") == ["192.168.1.20"]  # no version word before it
    assert_edit_refused(tmp_path, "zh-CN.yaml", "'版本号?'", "'版本(号?'", r"version_words\.zh\[0\]: not a valid")


def test_the_words_of_a_question_for_a_value_are_read_from_the_pack_files(tmp_path: Path):
    from vak_pipeline.pii.recognizers import asked

    assert "\\bpincode\\b" in PACKS["en-US"].rules.shared_question_words["in_pin"]
    assert "邮编" in PACKS["zh-CN"].rules.shared_question_words["cn_postcode"]
    types = ("payment_card", "in_pin", "us_zip", "cn_postcode")
    assert asked.asked_types("could you read me the card number?", types) == ["payment_card"]  # en-US
    assert asked.asked_types("आपका पिन कोड क्या है", types) == ["in_pin"]  # hi-IN
    assert asked.asked_types("请说一下您的银行卡卡号和邮编", types) == ["payment_card", "cn_postcode"]  # zh-CN
    assert asked.asked_types("what is the postal code there?", ("in_pin",)) == []  # only the pack's own types
    assert asked.asked_types("is it still raining over there?", types) == []
    assert_edit_refused(tmp_path, "hi-IN.yaml", "in_pin: ['पिन", "in_pin: ['पिन(",
                        r"question_words\.hi\.in_pin\[0\]: not a valid")


def test_the_words_of_a_spoken_email_address_are_read_from_the_pack_files(tmp_path: Path):
    from vak_pipeline.pii.recognizers import email

    assert "hyphen" in PACKS["en-US"].rules.shared_email_words["dash"]
    assert "rediffmail" in PACKS["en-US"].rules.shared_email_words["providers"]
    assert "hai" in PACKS["hi-Latn-IN"].rules.shared_email_words["not_local"]

    def emails(text: str) -> list[str]:
        return [m.norm for m in email.find_emails(text)]

    assert emails("it is priya underscore k at the rate gmail dot com") == ["priya_k@gmail.com"]  # at, underscore
    assert emails("write to ravi hyphen m at yahoo dot in please") == ["ravi-m@yahoo.in"]  # dash words, tlds
    assert emails("send it to meenaatrediffmail.com") == ["meena@rediffmail.com"]  # providers, glued_tlds
    assert emails("mera email hai at gmail dot com") == []  # not_local (hi-Latn-IN)
    assert emails("the dot at the end of the line") == []
    assert_edit_refused(tmp_path, "en-US.yaml", "glued_tlds: [com,", "glued_tlds: ['(com',",
                        r"email_words\.en\.glued_tlds\[0\]: not a valid")


def test_the_cues_of_a_house_number_without_a_street_word_are_read_from_the_pack_files(tmp_path: Path):
    """'I live at 33 maples treat': ASR garbled the street word; the pack's house cues still make it an address,
    and only those cues (a parcel 'deliver to 12 units' is not an address)."""
    from vak_pipeline.pii.recognizers import addresses

    assert PACKS["en-US"].rules.shared_address_words["house_cue"] == ("live\\s+at", "address\\s+is")

    def found(text: str) -> list[str]:
        return [text[m.start : m.end] for m in addresses.find_addresses(text) if m.recognizer == "cue_house"]

    assert found("yeah i live at 33 maples treat springfield") == ["33 maples treat springfield"]
    assert found("my address is 42 harbour rode") == ["42 harbour rode"]
    assert found("please deliver to 12 units by friday") == []
    assert_edit_refused(tmp_path, "en-US.yaml", "'live\\s+at'", "'live\\s+(at'",
                        r"address_words\.en\.house_cue\[0\]: not a valid")
