"""Person names without a cue phrase, per locale, from the names-dataset lists plus context; ordinary
words that are also names stay. Assertions compare (type, start, end) only, so a failure never prints
a name."""

from __future__ import annotations

import pytest

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.name_table import fingerprint, lexicon
from vak_pipeline.pii.recognizers import find_pii


def spans(locale: str, text: str, ptype: str = "person_name") -> list[tuple[int, int]]:
    return [(m.start, m.end) for m in find_pii(get_pack(locale), text) if m.type == ptype]


def at(text: str, value: str) -> tuple[int, int]:
    i = text.index(value)
    return i, i + len(value)


FOUND = [
    pytest.param("en-US", "yeah it's rahul sharma calling about my order", "rahul sharma", id="reply-pair-lower"),
    pytest.param("en-GB", "hello, James Whitfield here, I rang last week", "James Whitfield", id="name-here"),
    pytest.param("en-US", "I spoke to Deepa yesterday and she said it was fixed", "Deepa", id="capitalised-first"),
    pytest.param("en-US", "thanks priya, that helps", "priya", id="vocative-lower"),
    pytest.param("en-GB", "can I speak to mr kowalczyk please", "kowalczyk", id="title-unknown-surname"),
    pytest.param("en-US", "yeah it's mark green", "mark green", id="two-common-words-after-cue"),
    pytest.param("en-US", "Grace Patel called earlier", "Grace Patel", id="common-first-plus-surname"),
    pytest.param("en-US", "the account is under jocelyn okafor my wife", "jocelyn okafor", id="unknown-surname-cue"),
    pytest.param("en-IN", "sharma ji ka order abhi tak nahi aaya", "sharma", id="hindi-ji-after"),
    pytest.param("hi-Latn-IN", "shrimati kunal menon ke naam pe connection hai", "kunal menon", id="shrimati-title"),
    pytest.param("hi-Latn-IN", "theek hai nandini main dekh leta hoon", "nandini", id="theek-hai-vocative"),
    pytest.param("hi-IN", "श्रीमती सुनीता देवी का खाता", "सुनीता देवी", id="devanagari-title"),
    pytest.param("hi-IN", "सक्सेना जी ने शिकायत दर्ज की थी", "सक्सेना", id="devanagari-ji"),
    pytest.param("zh-CN", "您好，王美玲女士，您的订单已发货", "王美玲", id="han-surname-given"),
    pytest.param("zh-CN", "李先生您好", "李", id="han-surname-title"),
    pytest.param("zh-CN", "收件人是张伟，电话另给", "张伟", id="han-recipient-cue"),
    pytest.param("zh-CN", "这边是欧阳靖，想查一下物流", "欧阳靖", id="han-compound-surname"),
    pytest.param("zh-CN", "my English name is Liang Shuyi, the account is in pinyin", "Liang Shuyi", id="pinyin"),
    # cased turns: a capitalised common word inside a sentence, with a cue, is a name
    pytest.param("en-US", "Sorry, I spoke to Will yesterday about the refund.", "Will", id="cased-will-after-cue"),
    pytest.param("en-GB", "Yes, Grace said you may call back.", "Grace", id="cased-grace-said"),
    pytest.param("en-US", "Can you ask Grace Patel to call me?", "Grace Patel", id="cased-common-first-surname"),
    # a title right after the given name, or a one-character title (总)
    pytest.param("zh-CN", "张伟女士，您的快递到了", "张伟", id="han-given-then-title"),
    pytest.param("zh-CN", "请转告王总，合同已寄出", "王", id="han-one-character-title"),
]


@pytest.mark.parametrize(("locale", "text", "value"), FOUND)
def test_a_name_without_my_name_is_is_found(locale, text, value):
    assert at(text, value) in spans(locale, text)


KEPT = [
    pytest.param("en-US", "i will call you back tomorrow", id="will"),
    pytest.param("en-US", "may i have your account number please", id="may"),
    pytest.param("en-US", "the bill is due on the fifth, mark it as paid", id="bill-mark"),
    pytest.param("en-US", "there is a grace period of ten days", id="grace"),
    pytest.param("en-US", "I hope the rose gold one is in stock", id="hope-rose"),
    pytest.param("en-GB", "there's a mark on the screen and the jack is loose", id="mark-jack"),
    pytest.param("hi-Latn-IN", "das din ho gaye order nahi aaya", id="das-ten"),
    pytest.param("hi-Latn-IN", "ek pal rukiye, main check karti hoon", id="pal-moment"),
    pytest.param("hi-Latn-IN", "bill kal tak aa jayega, aap fikar mat kijiye", id="hinglish-verbs"),
    pytest.param("hi-Latn-IN", "pincode 302017 hai jaipur mein", id="city-after-hai"),
    pytest.param("hi-IN", "हाँ जी बताइए", id="haan-ji"),
    pytest.param("zh-CN", "这个时间不行，我马上去查一下，很高兴为您服务", id="surname-characters-in-words"),
    pytest.param("zh-CN", "张贴的通知说活动延期了", id="zhang-as-verb"),
    # cased turns whose only list words are grammar words or common words in their ordinary use
    pytest.param("en-US", "Thanks for waiting, let me check that for you.", id="cased-you"),
    pytest.param("en-US", "I will check, and May is fine for the visit.", id="cased-will-may"),
    pytest.param("en-US", "The grace period is over, so the bill will go out in May.", id="cased-grace-bill-may"),
    pytest.param("en-US", "I Will Call You Back Tomorrow", id="title-case-sentence"),
    pytest.param("zh-CN", "先生您好，请问有什么可以帮您", id="title-without-surname"),
]


@pytest.mark.parametrize(("locale", "text"), KEPT)
def test_ordinary_words_that_are_also_names_stay(locale, text):
    assert spans(locale, text) == []


def test_the_persona_of_the_system_prompt_is_not_redacted():
    from vak_pipeline.pii.recognizers.names import persona_names

    persona = persona_names("You are Priya from SunCare Solar support.")
    text = "thanks priya, and my name is rahul sharma"
    found = [(m.start, m.end) for m in find_pii(get_pack("en-IN"), text, persona=persona) if m.type == "person_name"]
    assert found == [at(text, "rahul sharma")]


def test_the_lexicon_is_derived_offline_and_knows_which_names_are_words():
    lex = lexicon()
    assert not lex.empty
    assert {"will", "mark", "bill", "grace", "hope"} <= lex.common  # ordinary words first
    assert not {"john", "mary", "rahul", "priya"} & lex.common  # names first
    assert lex.first["rahul"]["IN"] <= 10 and "IN" in lex.last["sharma"]
    assert len(fingerprint()) == 12 and fingerprint() == fingerprint()


@pytest.mark.parametrize("locale", ["en-US", "en-GB", "en-IN"])
def test_a_turn_with_a_dotted_capital_i_is_scanned_like_any_other(locale):
    """İ (U+0130) lowers to two characters, "i" and a combining dot; a Turkish name in a cased turn once made
    the name scan raise, and with it the redaction of the whole call. The names around it are still found, and
    the Turkish name itself, joined to Deepa by "and"."""
    text = "Thanks Priya, I spoke to İsmail Yılmaz and Deepa yesterday, my number is +1 415 555 0132."
    assert spans(locale, text) == [at(text, "Priya"), at(text, "İsmail Yılmaz"), at(text, "Deepa")]
    assert spans(locale, text, "phone") == [at(text, "+1 415 555 0132")]
    # the same turn with a plain I: the same findings
    plain = text.replace("İ", "I")
    assert spans(locale, plain) == [at(plain, "Priya"), at(plain, "Ismail Yılmaz"), at(plain, "Deepa")]
