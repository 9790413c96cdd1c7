# ruff: noqa: RUF001  (full-width punctuation is the data)
"""The blind person-name set and the shapes its `dev` misses added.

bench/data/pii_blind.jsonl is built by another method than the recognizers: names from Faker's locales
(not names-dataset), templates written apart from the cue lists, hard negatives. Its generator is
deterministic and the committed file is its output; the recognizers meet issue 27's aims on its `test`
split, on which they were never tuned. Then each shape, found with its span, beside a look-alike that
stays unflagged. Failures name spans and counts, never values."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from vak_pipeline_tests.pii.scoring import counts as _counts
from vak_pipeline_tests.pii.scoring import names as _names
from vak_pipeline_tests.pii.scoring import precision_recall as _pr
from vak_pipeline_tests.pii.scoring import span as _span
from vak_pipeline_tests.script_modules import load_script

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
STRUCTURED = {"phone", "email", "payment_card"}


def _rows() -> list[dict]:
    with open(DATA / "pii_blind.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def test_the_committed_set_is_the_generators_output():
    pytest.importorskip("faker", reason="the dev extra installs Faker (the blind set's name source)")
    mod = load_script(DATA / "make_pii_blind.py")
    rows = _rows()
    assert mod.build() == rows
    assert len(rows) >= 400
    assert Counter(r["split"] for r in rows).keys() == {"dev", "test"}
    assert sum(not r["spans"] for r in rows) >= 60  # hard negatives
    for r in rows:
        for s in r["spans"]:
            assert r["text"][s["start"] : s["end"]].strip(), r["id"]


def test_the_blind_test_split_keeps_precision_and_its_measured_recall():
    """Issue 27's aim is names recall >= 0.90 at precision >= 0.95. Measured on this split (never tuned on):
    recall 0.744 before the dev-driven changes, 0.816 after, precision 0.972 -> 0.960; round 2 (a dev half
    widened to at least 4 more wordings per shape) 0.868 recall, 0.962 precision; round 3 (issue 27: labels,
    relations, brands, initials) 0.902 recall, 0.972 precision, which meets the aim."""
    c = _counts([r for r in _rows() if r["split"] == "test"])
    p, r = _pr(c["person_name"])
    assert p >= 0.95 and r >= 0.90, f"names precision {p:.3f} recall {r:.3f}"
    p, r = _pr(sum((c[t] for t in STRUCTURED if t in c), Counter()))
    assert p >= 0.97 and r >= 0.99, f"structured precision {p:.3f} recall {r:.3f}"


FOUND = [
    # an English field label with a name no list holds
    ("en-US", "Account holder: Jinthe Latier", "Jinthe Latier"),
    ("en-IN", "account holder is zaid sunder", "zaid sunder"),
    ("en-GB", "the name on the account is yousef larsson", "yousef larsson"),
    # a Chinese form label before a name whose surname is outside the hundred commonest
    ("zh-CN", "姓名：申鑫", "申鑫"),
    ("zh-CN", "持卡人：傅丽", "傅丽"),
    ("zh-CN", "客户姓名：常欢，手机13396550143", "常欢"),
    ("zh-CN", "账户持有人是詹志偉", "詹志偉"),
    # a surname among the added ones, after a verb
    ("zh-CN", "我找柳明宗", "柳明宗"),
    # spelled letters with the cue after them, or a letter outside ASCII
    ("en-GB", "that is n a r a i n for the surname", "n a r a i n"),
    ("en-US", "that is w ä h n e r for the surname", "w ä h n e r"),
    # an initial before a surname with a particle or a letter outside ASCII; ASR's lone letter
    ("en-GB", "The letter was addressed to L. de Lange.", "L. de Lange"),
    ("en-US", "The letter was addressed to L. Świstek.", "L. Świstek"),
    ("en-IN", "it was sent to c smith last week", "c smith"),
    # an agent introducing herself in Devanagari with a comma after her name
    ("hi-IN", "मैं संजना, Tesco Mobile की तरफ़ से बोल रही हूँ", "संजना"),
    # round 2 (the widened dev half): more English and Chinese form labels, in ASR's lower case too
    ("en-GB", "name of the account holder oskar lindqvist", "oskar lindqvist"),
    ("en-US", "the name on the card reads tamsin okoro", "tamsin okoro"),
    ("zh-CN", "申请人：施雨", "施雨"),
    ("zh-CN", "经办人是魏琳", "魏琳"),
    ("zh-CN", "寄件人：徐平，电话19948452479", "徐平"),
    # an agent's greeting: "you're through to", "you've reached"
    ("en-IN", "you're through to reyansh", "reyansh"),
    ("en-US", "You've reached Zelphine in customer care.", "Zelphine"),
    # a Chinese name after 是/让/投诉/跟 and before 帮/给/接/通过 (the verb's character is not the name's)
    ("zh-CN", "是周敏帮我办的", "周敏"),
    ("zh-CN", "请让傅强给我回电话", "傅强"),
    ("zh-CN", "我要投诉马丽", "马丽"),
    ("zh-CN", "上次是翟博接的电话", "翟博"),
    ("zh-CN", "我刚跟连丽华通过电话", "连丽华"),
    # Hinglish: "main X baat kar rahi hoon", "namaste main X hoon", "mujhe X ne call kiya"
    ("hi-Latn-IN", "haan ji main ritika sen baat kar rahi hoon", "ritika sen"),
    ("hi-Latn-IN", "namaste main harleen hoon", "harleen"),
    ("hi-Latn-IN", "mujhe tanvika ne call kiya tha", "tanvika"),
    # Devanagari: "जी, X बोल रही हूँ", "मैं X बात कर रही हूँ", and a greeting before "मैं X"
    ("hi-IN", "जी, कविता बोल रही हूँ", "कविता"),
    ("hi-IN", "मैं अनीता राव बात कर रही हूँ", "अनीता राव"),
    ("hi-IN", "हेलो, मैं रेखा बोल रही हूँ Airtel से", "रेखा"),
    # a strong cue before "to", a spouse, "copy X in", "can you ask X"
    ("en-US", "i spoke to oliver earlier", "oliver"),
    ("en-GB", "my wife zelphine usually handles the bills", "zelphine"),
    ("en-US", "Please copy Zelphine in on the email.", "Zelphine"),
    ("en-US", "can you ask zelphine to call me back", "zelphine"),
    # round 3 (issue 27; the dev half's misses and wordings written apart from the set): any name field's label,
    # with a colon or a dash, before a name whose first word is also frequent as a word ("Collin")
    ("en-US", "Applicant name: Falko Weitzel", "Falko Weitzel"),
    ("en-IN", "Addressee - Collin Butselaar", "Collin Butselaar"),
    ("en-IN", "the booking is in the name of kritika gola", "kritika gola"),
    # a person named by their relation to the speaker, after my/our/the
    ("en-IN", "my colleague leandra set it up", "leandra"),
    ("en-US", "Our technician Mathilde will visit on Friday.", "Mathilde"),
    # a reply opened by the speaker's name: "X here", "good evening X speaking"
    ("en-IN", "warinder here calling about my bill", "warinder"),
    ("en-GB", "good evening aarini speaking", "aarini"),
    # initials: a capital with a diacritic, a surname of another country's lists, a particle, "a" after "by"
    ("en-GB", "Signed: É. Payet", "É. Payet"),
    ("en-US", "it was sent to g karlsson last week", "g karlsson"),
    ("en-IN", "i was told by m van maaren that it was fine", "m van maaren"),
    ("en-IN", "i was told by a khurana that it was fine", "a khurana"),
    ("en-IN", "Dear M. Butte, thank you for your letter.", "M. Butte"),  # a surname rare as a word
    # mid-sentence: two capitalised words no list holds, a strong verb, an auxiliary before a listed name
    ("en-GB", "Thanks, I'll pass this on to Linnéa Hansson.", "Linnéa Hansson"),
    ("en-US", "i told qasim about the fees", "qasim"),
    ("en-US", "did michael get back to you", "michael"),
    # Chinese: a rarer surname before a listed given name after a verb; 一起 after a name
    ("zh-CN", "请把文件转给冶淑华", "冶淑华"),
    ("zh-CN", "我和刘瑜一起去的", "刘瑜"),
    # Devanagari: an apostrophe inside a surname; a relation before a name
    ("hi-IN", "मैं काशी डी’कोस्टा बात कर रही हूँ", "काशी डी’कोस्टा"),
    ("hi-IN", "मेरी बेटी शिवाली ने फ़ोन किया था", "शिवाली"),
    # Hinglish: bhai after a name, "X se baat", "X ko bola"
    ("hi-Latn-IN", "onveer bhai ne paise bheje", "onveer"),
    ("hi-Latn-IN", "aap sathvik se baat kijiye", "sathvik"),
    ("hi-Latn-IN", "maine samaksh ko bola tha", "samaksh"),
]


@pytest.mark.parametrize(("locale", "text", "value"), FOUND)
def test_the_shape_is_found_with_its_span(locale, text, value):
    assert _span(text, value) in _names(locale, text)


NOT_NAMES = [
    ("en-US", "The account holder is not available right now."),  # a label, no name after it
    ("zh-CN", "持卡人本人需要到场"),  # a label before an ordinary word
    ("zh-CN", "姓名栏可以不填吗"),
    ("en-US", "that is a b c for the first step"),  # letters that spell no name, no spelling cue near
    ("en-US", "take vitamin c tablets every day"),  # a lone letter before an ordinary word
    ("en-IN", "It's sunny in Pune today."),  # a name word in lower case in cased text is the word
    ("en-US", "I'm calling from Sydney about my order."),  # a capitalised name word after "from": a place
    ("en-GB", "It is sunny in Darwin today."),
    ("hi-IN", "मैं भी, ठीक है"),  # "मैं <common word>," is no introduction
    ("hi-IN", "मेरा नाम वही है जो पहले था"),  # "the same"
    ("hi-Latn-IN", "mera naam wahi hai"),
    # round 2's look-alikes: the same cues before an ordinary word
    ("en-US", "the name on the card reads correctly"),
    ("en-US", "Registered name: see the attached form"),
    ("en-US", "you're through to the billing team"),
    ("en-US", "the account is under my husband's name"),
    ("en-US", "my wife usually handles the bills"),
    ("en-US", "i spoke to customer care earlier"),
    ("hi-Latn-IN", "mera naam galat likha hai"),  # "my name is written wrong"
    ("hi-IN", "मेरा नाम ग़लत लिखा है"),
    ("hi-Latn-IN", "namaste main theek hoon"),
    ("hi-Latn-IN", "mujhe bank ne call kiya tha"),
    ("hi-Latn-IN", "main aapse baat kar raha hoon"),
    ("hi-IN", "जी, मैं ठीक हूँ"),
    ("zh-CN", "申请人：本人"),  # "the applicant: myself"
    ("zh-CN", "是银行帮我办的"),
    ("zh-CN", "请让客服给我回电话"),
    ("zh-CN", "上次是谁接的电话"),
    # round 3's look-alikes: a brand before its organisation word, a label before a role, title case, "a" + word
    ("en-GB", "This is Jio Fiber calling about your bill."),
    ("en-US", "Talk to Sky support about it."),
    ("en-US", "Signed: Branch Manager"),
    ("en-US", "Could You Call Me Back"),
    ("en-US", "my colleague usually handles it"),
    ("en-US", "i asked for a refund yesterday"),
    ("en-US", "send it to a tailor"),
    ("en-US", "press c you now"),
    ("en-US", "It was plan B. Afterwards we left."),  # a capital and a dot before a sentence
    ("en-US", "nothing here works"),
    ("zh-CN", "我和朋友一起去的"),
    ("hi-Latn-IN", "maine unko bola tha"),
    ("hi-Latn-IN", "bank se baat kijiye"),
]


@pytest.mark.parametrize(("locale", "text"), NOT_NAMES)
def test_the_look_alike_is_no_name(locale, text):
    assert _names(locale, text) == []


def test_a_capitalised_name_mid_sentence_is_still_found():
    text = "I spoke to Deepa yesterday"
    assert _span(text, "Deepa") in _names("en-US", text)
