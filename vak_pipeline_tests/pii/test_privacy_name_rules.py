# ruff: noqa: RUF001  (full-width punctuation is the data)
"""Person-name rules added for issue 27's second round, each a shape that holds beyond one template:

- a message signed off: a closing line ("Best regards,", "Dhanyawad,", "धन्यवाद,", "谢谢！") and a line with
  only a name that ends the text; a team, a brand or a sentence on that line is no name;
- a surname said and then spelled a few words later ("Lee - that's L-E-E"): both mentions are the name;
- a line break ends a name: a form's next field label ("Mobile:") is not a brand word after the name;
- Devanagari form labels ("नाम: ...") and a listed name before "के नाम पर"; a relation word ("एजेंट") before one;
- hand-off cues of three words ("transfer me to", "put me through to") take a name no list knows;
- Chinese relation and time words before a full name (我老公X的, 刚才X给); a name followed by 都 or 那个;
- the first of two Chinese names joined by 和/跟 ("杨强和王金凤都是"), where it opens the clause;
- a capitalised listed or unknown word joined to a found name by "and"/"aur" ("Both Bill and Alannah"),
  never a month, a day, a stop or brand word;
- Hinglish relations after a possessive ("meri behen X", "mera bhai X"), as "my sister X" in English;
- a strong cue is a cue for two listed words in lower case too ("was called hope kolber");
- namings "myself X" (Indian English), "was called X", "named X", "calls me X"; while a lone name word after
  in/at/from is a place even before "was", a capitalised month is no name, and "last"/"next" end a name.

Failures name spans, never values."""

from __future__ import annotations

import pytest

from vak_pipeline_tests.pii.scoring import names as _names
from vak_pipeline_tests.pii.scoring import span as _span

FOUND = [
    # signed off
    ("en-US", "The router still drops every night.\n\nKind regards,\nMarguerite Oyelaran", "Marguerite Oyelaran"),
    ("en-GB", "Cheers,\nTomasz van der Berg", "Tomasz van der Berg"),
    ("hi-Latn-IN", "Refund jaldi kijiye.\nShukriya,\nNeelam Bhardwaj", "Neelam Bhardwaj"),
    ("hi-IN", "कृपया जल्दी करें।\nसादर,\nसुमित्रा देवी", "सुमित्रा देवी"),
    ("zh-CN", "麻烦尽快处理。\n感谢！\n郑凯", "郑凯"),
    # said, then spelled a few words later: both mentions
    ("en-GB", "It's Pryce - that is P-R-Y-C-E.", "Pryce"),
    ("en-GB", "It's Pryce - that is P-R-Y-C-E.", "P-R-Y-C-E"),
    ("en-IN", "Surname Rao, R-A-O.", "Rao"),
    ("en-IN", "Surname Rao, R-A-O.", "R-A-O"),
    # a line break ends the name after a form label
    ("en-IN", "Customer Name: Harjeet Sohal\nMobile: 98100 00000", "Harjeet Sohal"),
    ("en-US", "Submitted by: Odalys Ferreira (owner)", "Odalys Ferreira"),
    # Devanagari
    ("hi-IN", "नाम: कमला नेगी\nपता: देहरादून", "कमला नेगी"),
    ("hi-IN", "रिफंड खान के नाम पर आएगा", "खान"),
    ("hi-IN", "मेरे एजेंट सुरेश ने फोन नहीं उठाया", "सुरेश"),
    ("hi-IN", "नमस्ते, मेरा नाम मोहन लाल शर्मा है", "मोहन लाल शर्मा"),
    # three-word hand-off cues
    ("en-US", "could you put me through to okonkwo adeyemi please", "okonkwo adeyemi"),
    ("en-US", "can you transfer me to zubeida", "zubeida"),
    # Chinese relation and time words, and what follows a name
    ("zh-CN", "我老婆郑芳的手机号换了", "郑芳"),
    ("zh-CN", "刚才韩磊给我回电话了", "韩磊"),
    ("zh-CN", "对，就是马丽那个订单", "马丽"),
    ("zh-CN", "贺伟和赵丽华都来过", "贺伟"),
    # joined to a found name
    ("en-US", "Both Lucky and Roberta signed the lease.", "Lucky"),
    ("en-GB", "The account is shared by Hamish Doyle and Zbigniew Ostrowski.", "Zbigniew Ostrowski"),
    # Hinglish relations
    ("hi-Latn-IN", "Mera bhai Vihaan ka phone band hai.", "Vihaan"),
    ("hi-Latn-IN", "meri bhabhi tanushree ne order kiya tha", "tanushree"),
    # namings
    ("en-US", "the technician was called grace kowalczyk", "grace kowalczyk"),
    ("en-IN", "Good morning, myself Tanvika Rege, calling about my refund.", "Tanvika Rege"),
    ("en-US", "the driver was called zubeida kolber i think", "zubeida kolber"),
    ("en-US", "I spoke to Grace yesterday.", "Grace"),
    ("en-GB", "Everyone at work calls me Sunny.", "Sunny"),
]


@pytest.mark.parametrize(("locale", "text", "name"), FOUND)
def test_the_name_is_found_with_its_span(locale: str, text: str, name: str) -> None:
    assert _span(text, name) in _names(locale, text)


NOT_NAMES = [
    # a closing before a team, a brand, a sentence or a number word is no signature
    ("en-US", "Thanks,\nThe Support Team"),
    ("en-US", "Best regards,\nAcme Bank"),
    ("en-US", "Thanks!\nWill do."),
    ("en-US", "Regards,\nSeven"),
    ("en-US", "Regards,\nCopy"),
    ("hi-IN", "धन्यवाद,\nकृपया जल्दी करें"),
    ("zh-CN", "谢谢！\n客服中心"),
    # a closing inside a sentence: the next line is no signature
    ("en-US", "thanks for nothing\nApril"),
    # letters that spell no word said before them
    ("en-US", "The code was sent - that's A-B-C."),
    # "के नाम" after a word no list holds, or a relation
    ("hi-IN", "कंपनी के नाम पर बिल आया"),
    ("hi-IN", "पति के नाम पर खाता है"),
    # a three-word cue before an ordinary word
    ("en-US", "can you transfer me to someone else"),
    # a time word before an ordinary phrase
    ("zh-CN", "刚才有人给我打电话"),
    # joined to a found name, but a month, a day or a brand word
    ("en-US", "The appointment moved between Monday and April."),
    # a relation before an ordinary word
    ("hi-Latn-IN", "meri beti ka school band hai"),
    ("hi-Latn-IN", "mera dost bhi aayega"),
    # places, months and what ends a name
    ("en-US", "The bus from Savannah was late again."),
    ("en-GB", "I moved from Chelsea last year."),
    ("en-US", "My rent goes out on the 1st of April."),
    ("en-US", "I did it myself yesterday"),
]


@pytest.mark.parametrize(("locale", "text"), NOT_NAMES)
def test_look_alikes_are_no_name(locale: str, text: str) -> None:
    assert _names(locale, text) == []


def test_an_ordinary_word_before_and_and_a_name_is_no_name() -> None:
    text = "高兴和张伟一起去"
    assert _names("zh-CN", text) == [_span(text, "张伟")]


def test_a_month_a_brand_word_or_camel_case_joined_to_a_name_is_no_name() -> None:
    for text in ("I spoke to Deepa and April.", "I spoke to Deepa and Support said no."):
        assert _names("en-US", text) == [_span(text, "Deepa")]
    text = "Both DarkBlue and Sienna are available."
    assert _names("en-US", text) == [_span(text, "Sienna")]


def test_a_place_joined_to_a_name_is_no_name() -> None:
    text = "I moved from Wallerport and Deepa helped."
    assert _span(text, "Wallerport") not in _names("en-US", text)
