# ruff: noqa: E501, RUF001  (utterance tables read better unwrapped; full-width punctuation is the data)
"""Builds pii_names.jsonl: the person-name shapes an independent check found missed, by templates and
names written by hand here (not the recognizers' lists or cue words), with look-alikes that must stay
unflagged and a few structured values (phone, email, card) so the structured rows are read on it too.

Shapes: a name after a field label (a form field, "the account holder is", 持卡人是), a name spelled letter
by letter in ASR text, an initial before a surname, a Chinese full name after a verb or preposition with no
title or cue, an agent introducing herself in Devanagari. Half the English utterances are rendered as ASR
(lower case, no punctuation) where the shape survives that.

    python bench/data/make_pii_names.py   # rewrites bench/data/pii_names.jsonl (seeded, deterministic)
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

OUT = Path(__file__).parent / "pii_names.jsonl"

GIVEN = ["John", "Maria", "Wesley", "Margot", "Daniel", "Aisha", "Priya", "Rahul", "Helen", "Oliver", "Ingrid", "Tomasz"]
LAST = ["Smith", "Okafor", "Hargreaves", "Whitaker", "Kowalski", "Nguyen", "Brennan", "Delgado", "Fitzgerald", "Kulkarni", "Lindqvist", "Moreau"]
ZH = ["贺婉清", "王美玲", "张伟", "李娜", "刘洋", "陈静", "杨帆", "赵磊", "周婷", "吴昊", "孙悦", "郭子豪", "欧阳靖", "邓子涵"]
DEVA_GIVEN = ["प्रिया", "अंजलि", "नेहा", "पूजा", "सुनीता", "कविता", "स्नेहा", "रीना"]
DEVA_LAST = ["शर्मा", "वर्मा", "गुप्ता", "सिंह"]
BANKS = ["एक्सिस बैंक", "एचडीएफसी बैंक", "कस्टमर केयर", "एयरटेल"]
PHONES = ["617-466-9107", "(512) 609-9296", "+1 415 408 8367"]
EMAILS = ["w.okafor@example.com", "margot.h@mail.co.uk"]
CARDS = ["4111 1111 1111 1111", "5500 0000 0000 0004"]

# (locale, template, renders as ASR); {n} the name, {p} a phone, {e} an email, {c} a card
EN = [
    "Name: {n}", "Full name: {n}, date of birth 4 May", "Account holder: {n}", "the account holder is {n}",
    "account holder name is {n}", "the card holder is {n} I think", "Customer name: {n}; phone {p}",
    "beneficiary name is {n}", "the policy holder is {n}, yes",
]
SPELLED = ["my surname is {s}", "it's spelled {s}", "last name {s}", "that's {l} {s}", "{l} {s} yes",
           "spelled {s} okay", "surname {s} and first name {g}"]
INITIAL = ["please ask {i}. {l} to call back", "Dear {i}. {l}, thank you for writing", "the form was signed by {i}. {l} yesterday",
           "{i}. {l} will call you tomorrow", "it was approved by {i}. {j}. {l}", "send it to {i}. {l} at {e}"]
ZH_LABEL = ["姓名：{z}", "持卡人是{z}", "户主是{z}", "账户持有人是{z}，对吗", "开户人是{z}。", "收货人是{z}，电话{p}"]
ZH_VERB = ["我把包裹交给了{z}", "你和{z}联系一下", "我找{z}", "麻烦通知{z}签收", "快递寄给{z}了", "请转告{z}明天来", "我想问问{z}"]
DEVA = ["नमस्ते, मैं {b} से {d} बोल रही हूँ", "नमस्ते, मैं {d}, {b} से", "मैं {d} {dl} बोल रही हूं", "जी, मैं {b} से {d} बात कर रही हूँ"]
NEGATIVE = [
    ("en-US", "press a b c to continue"), ("en-US", "choose option B. Then press send"), ("en-US", "the U.S. office is closed"),
    ("en-US", "your order 4155550132 shipped"), ("en-US", "the letters are x y z"), ("en-US", "Plan A. It failed."),
    ("en-GB", "Name: not given"), ("en-US", "the account holder is me"), ("en-US", "it's spelled the usual way"),
    ("zh-CN", "给我打电话"), ("zh-CN", "我很高兴的"), ("zh-CN", "和朋友一起去"), ("zh-CN", "请找一下订单号"), ("zh-CN", "我找不到快递"),
    ("zh-CN", "交给快递员了"), ("hi-IN", "मैं कस्टमर केयर से आपसे बात कर रही हूँ"), ("hi-IN", "नमस्ते, मैं ठीक हूँ।"),
    ("en-US", "version 2. Then restart"), ("en-IN", "press 1. Then wait"),
]


def _asr(text: str) -> str:
    return re.sub(r"[,.;:!?]", "", text.lower())


def _fill(template: str, values: dict[str, tuple[str, str]]) -> tuple[str, list[dict]]:
    """The template with each {key} replaced; spans for those whose type is not empty."""
    out, spans, pos = "", [], 0
    for m in re.finditer(r"\{(\w+)\}", template):
        out += template[pos:m.start()]
        value, kind = values[m.group(1)]
        if kind:
            spans.append({"start": len(out), "end": len(out) + len(value), "type": kind})
        out += value
        pos = m.end()
    return out + template[pos:], spans


def _merge(spans: list[dict]) -> list[dict]:
    """Adjacent name parts ("{l} {s}", "{i}. {l}") are one name."""
    out: list[dict] = []
    for s in sorted(spans, key=lambda s: s["start"]):
        if out and out[-1]["type"] == s["type"] == "person_name" and s["start"] - out[-1]["end"] <= 2:
            out[-1]["end"] = s["end"]
        else:
            out.append(dict(s))
    return out


def rows() -> list[dict]:
    rnd = random.Random(27)
    out: list[dict] = []

    def add(locale: str, template: str, values: dict[str, tuple[str, str]], asr: bool = False) -> None:
        text, spans = _fill(template, values)
        if asr:
            low = _asr(text)
            if len(low) != len(text):  # punctuation removed: place the spans again by their values
                spans = [{**s, "start": low.index(text[s["start"]:s["end"]].lower().replace(".", "")),
                          "end": low.index(text[s["start"]:s["end"]].lower().replace(".", "")) + len(text[s["start"]:s["end"]].replace(".", ""))}
                         for s in spans]
            text = low
        out.append({"id": f"{locale}-n{len(out):03d}", "locale": locale, "text": text, "spans": _merge(spans), "asr": asr})

    def common() -> dict[str, tuple[str, str]]:
        return {"p": (rnd.choice(PHONES), "phone"), "e": (rnd.choice(EMAILS), "email"), "c": (rnd.choice(CARDS), "payment_card")}

    for t in EN:
        for _ in range(4):
            name = f"{rnd.choice(GIVEN)} {rnd.choice(LAST)}"
            add(rnd.choice(["en-US", "en-GB", "en-IN"]), t, {"n": (name, "person_name"), **common()}, asr=rnd.random() < 0.5)
    for t in SPELLED:
        for _ in range(4):
            last = rnd.choice(LAST)
            spelled = " ".join(last.lower()) if rnd.random() < 0.7 else "-".join(last.upper())
            add(rnd.choice(["en-US", "en-GB", "en-IN"]), t, {"s": (spelled, "person_name"), "l": (last.lower(), "person_name"),
                                                            "g": (rnd.choice(GIVEN).lower(), "person_name")})
    for t in INITIAL:
        for _ in range(4):
            add(rnd.choice(["en-US", "en-GB", "en-IN"]), t, {"i": (rnd.choice("ABCDEJKMRST"), "person_name"),
                                                            "j": (rnd.choice("ABCDEJKMRST"), "person_name"),
                                                            "l": (rnd.choice(LAST), "person_name"), **common()})
    for t in ZH_LABEL + ZH_VERB:
        for _ in range(4):
            add("zh-CN", t, {"z": (rnd.choice(ZH), "person_name"), "p": ("13947148658", "phone")})
    for t in DEVA:
        for _ in range(4):
            add("hi-IN", t, {"d": (rnd.choice(DEVA_GIVEN), "person_name"), "dl": (rnd.choice(DEVA_LAST), "person_name"),
                             "b": (rnd.choice(BANKS), "")})
    for _ in range(10):
        add("en-US", rnd.choice(["call me on {p}", "email me at {e} please", "the card is {c}"]), common())
    for locale, text in NEGATIVE:
        out.append({"id": f"{locale}-n{len(out):03d}", "locale": locale, "text": text, "spans": [], "asr": False})
    return out


if __name__ == "__main__":
    with open(OUT, "w", encoding="utf-8") as fh:
        for r in rows():
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}")
