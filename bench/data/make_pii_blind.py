# ruff: noqa: E501, RUF001  (utterance tables read better unwrapped; full-width punctuation is the data)
"""Builds pii_blind.jsonl: a BLIND person-name set, made by another method than the recognizers.

Names come from the `Faker` package's locales (en_US, en_GB, en_IN, hi_IN, zh_CN, zh_TW and eight European
ones), not from the recognizers' lexicon (names-dataset); the templates below were written without reading
the recognizers' cue lists. Every shape has several wordings, and each wording belongs to one split: the
recognizers may be tuned on `dev` misses only, `test` wordings stay unseen. Hard negatives (look-alike
words, product, place and month names, common words that are also given names) carry no span.
Structured values (phone numbers checked with libphonenumber's public `is_valid_number`, e-mails, Luhn-valid
cards) ride along so structured recall and precision are read on the set too.

    python bench/data/make_pii_blind.py   # rewrites bench/data/pii_blind.jsonl (seeded, deterministic)
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

OUT = Path(__file__).parent / "pii_blind.jsonl"
SEED = 2027
REPEAT = 6  # renders per positive wording
EN_LOCALES = ["en-US", "en-GB", "en-IN"]
HOME_FAKER = {"en-US": "en_US", "en-GB": "en_GB", "en-IN": "en_IN"}
FOREIGN_FAKER = ["de_DE", "fr_FR", "es_ES", "it_IT", "pl_PL", "nl_NL", "sv_SE", "en_IN", "en_US", "en_GB"]

# Fillers that are NOT PII (and are often name look-alikes): companies, places, months, products.
COMPANIES = ["Northwind Bank", "Acme Broadband", "BrightGas", "Tesco Mobile", "Airtel", "HDFC Bank", "Vodafone", "Sky", "Virgin Media", "Jio Fiber"]
PLACES = ["Paris", "Florence", "Sydney", "Lincoln", "Chelsea", "Victoria", "Jackson", "Washington", "Austin", "Darwin", "Adelaide", "Madison", "Charlotte", "Regina", "Chester", "Mumbai", "Pune"]
MONTHS = ["January", "March", "April", "May", "June", "July", "August", "October", "December"]
PRODUCTS = ["Galaxy Note", "Kindle", "iPhone", "Pixel", "Echo Dot", "Jordan trainers", "Surface Pro", "Fire Stick", "Nest thermostat", "Mercedes"]

# {N} full name, {F} given name, {L} surname, {IL} initial + surname, {SP} the surname spelled letter by
# letter, {ZH} a Chinese full name, {HI} a Devanagari given name, {HIN} a Devanagari full name, {HL}/{HLN}
# a romanised Indian given/full name; {PHONE} {EMAIL} {CARD} structured values; {CO} {CITY} {MON} {PROD}
# fillers that are not PII. A wording that starts with "asr:" is lower case without punctuation.
POSITIVE: dict[str, dict[str, list[str]]] = {
    "field_label_en": {
        "dev": ["Name: {N}", "Account holder: {N}", "The account holder is {N}.", "asr:account holder is {N}", "Full name: {N}, phone {PHONE}", "asr:the name on the account is {N}"],
        "test": ["Customer name - {N}", "Cardholder name: {N}", "The policy is in the name of {N}.", "asr:name on the card is {N}", "Policy holder: {N}; DOB 12/03/1981", "asr:it is registered to {N}"],
    },
    "field_label_zh": {
        "dev": ["姓名：{ZH}", "持卡人：{ZH}", "账户持有人是{ZH}", "客户姓名：{ZH}，手机{PHONE}"],
        "test": ["持卡人姓名：{ZH}", "联系人：{ZH}，资料见附件", "户名是{ZH}", "收件人：{ZH}"],
    },
    "spelled_surname": {
        "dev": ["asr:my last name is {SP}", "asr:surname {L} {SP}", "asr:that is {SP} for the surname"],
        "test": ["asr:family name {SP}", "asr:it is {L} spelled {SP}", "asr:the surname is {L} as in {SP}"],
    },
    "initial_surname": {
        "dev": ["The letter was addressed to {IL}.", "It was signed by {IL} on the form.", "asr:it was sent to {IL} last week"],
        "test": ["Please ask {IL} to call me back.", "{IL} approved the refund in March.", "asr:the form says {IL} at the bottom"],
    },
    "zh_after_verb": {
        "dev": ["我昨天已经跟{ZH}说过了", "请把文件转给{ZH}", "这个是{ZH}办的", "我找{ZH}"],
        "test": ["刚才{ZH}打电话来问退款", "麻烦帮我联系一下{ZH}", "我把地址告诉了{ZH}", "是{ZH}帮我开的户"],
    },
    "devanagari_intro": {
        "dev": ["नमस्ते, मैं {HI} बोल रही हूँ।", "मेरा नाम {HIN} है", "मैं {HI}, {CO} की तरफ़ से बोल रही हूँ"],
        "test": ["जी, मैं {HI} बात कर रही हूँ, बताइए", "नमस्कार, {HI} बोल रही हूँ, आपकी क्या मदद करूँ?", "मैं {HIN}, ग्राहक सेवा से"],
    },
    "this_is_x_from_y": {
        "dev": ["Hi, this is {F} from {CO}.", "asr:this is {F} from {CITY}", "Good afternoon, this is {N} from {CO}."],
        "test": ["asr:hello this is {F} calling from {CO}", "Good morning, this is {N} with {CO} support.", "asr:hi this is {F} from the {CITY} branch"],
    },
    "speaking_with": {
        "dev": ["You're speaking with {F}, how can I help?", "asr:you are speaking with {F}"],
        "test": ["asr:you're now speaking to {F} from the billing team", "You are speaking with {N} today."],
    },
    "mid_sentence": {
        "dev": ["I already explained all this to {F} on Monday.", "My husband {F} set up the account.", "asr:yeah {F} said it would be fixed by friday", "asr:i spoke with {N} about the {PROD}", "Can you email {EMAIL} and copy {F} in?"],
        "test": ["Could you let {N} know the parcel arrived?", "My neighbour {F} picked it up for me.", "asr:i think {N} handled it last time", "asr:the engineer {F} never turned up", "The card number {CARD} belongs to {N}."],
    },
    "hinglish": {
        "dev": ["asr:main {HL} bol rahi hoon", "asr:mera naam {HLN} hai"],
        "test": ["asr:ji main {HL} baat kar raha hoon", "asr:haan {HL} ne bola tha refund aayega"],
    },
    "european_native": {
        "dev": ["de-DE|Mein Name ist {N}.", "fr-FR|Je m'appelle {N}."],
        "test": ["es-ES|Me llamo {N}.", "de-DE|Sie sprechen mit {N}."],
    },
}
NATIVE_FAKER = {"de-DE": "de_DE", "fr-FR": "fr_FR", "es-ES": "es_ES", "nl-NL": "nl_NL", "sv-SE": "sv_SE", "de-AT": "de_AT"}

# Round 2: more DEV wordings per shape, written apart from the first ones (forms, chats and calls vary).
# They are rendered after every row above, from their own seed, so the rows above (test's included) stay
# byte-identical.
SEED_MORE = SEED + 1
POSITIVE_MORE: dict[str, list[str]] = {
    "field_label_en": ["Caller name: {N}", "asr:the name on the card reads {N}", "Registered name: {N}", "Contact name - {N}, email {EMAIL}",
                       "asr:the account is under {N}", "Beneficiary: {N}", "asr:name of the account holder {N}", "Billing name: {N}, plan Gold"],
    "field_label_zh": ["申请人：{ZH}", "客户名称：{ZH}", "经办人是{ZH}", "寄件人：{ZH}，电话{PHONE}", "投保人姓名：{ZH}"],
    "spelled_surname": ["asr:my surname is {SP}", "asr:the last name {L} that's {SP}", "asr:surname spelled {SP}", "asr:last name is {L} {SP}"],
    "initial_surname": ["Dear {IL}, thank you for your letter.", "asr:the parcel was for {IL}", "The refund was processed by {IL}.",
                        "asr:i was told by {IL} that it was fine", "Signed: {IL}"],
    "zh_after_verb": ["是{ZH}帮我办的", "我刚跟{ZH}通过电话", "请让{ZH}给我回电话", "上次是{ZH}接的电话", "我要投诉{ZH}"],
    "devanagari_intro": ["मेरा नाम {HI} है", "जी, {HI} बोल रही हूँ", "हेलो, मैं {HI} बोल रही हूँ {CO} से", "मैं {HIN} बात कर रही हूँ",
                         "{HI} जी से बात हुई थी", "मेरा नाम {HIN} है और मैं पुणे से हूँ"],
    "this_is_x_from_y": ["asr:hey it's {F} from {CO}", "This is {F} at {CO}, returning your call.", "asr:yes this is {F} here",
                         "Hello, {F} here from {CO}.", "asr:{F} here calling about my bill"],
    "speaking_with": ["asr:you're through to {F}", "You've reached {F} in customer care.", "asr:ok so you're speaking with {N} now",
                      "asr:this is {F} speaking"],
    "mid_sentence": ["asr:i spoke to {F} earlier", "I talked to {N} yesterday and she said it was fine.", "asr:my wife {F} usually handles the bills",
                     "Please give the keys to {F}.", "asr:can you ask {F} to call me back", "{N} from your team promised a callback."],
    "hinglish": ["asr:mera naam {HL} hai", "asr:main {HL} bol raha hoon", "asr:haan ji main {HLN} baat kar rahi hoon", "asr:{HL} ji se baat hui thi",
                 "asr:mujhe {HL} ne call kiya tha", "asr:namaste main {HL} hoon"],
    "european_native": ["de-DE|Ich heiße {N}.", "es-ES|Mi nombre es {N}.", "fr-FR|Bonjour, ici {N}.", "nl-NL|Mijn naam is {N}.",
                        "sv-SE|Jag heter {N}.", "de-AT|Grüß Gott, hier spricht {N}.", "es-ES|Soy {N}, de {CO}."],
}
NEGATIVE_MORE: dict[str, list[str]] = {
    "en": ["asr:the name on the card is wrong", "Customer name field is blank.", "asr:i spoke to the manager earlier", "asr:yes this is about the bill",
           "Hello from {CITY}!", "Dear customer, thank you for your letter.", "asr:you're through to the billing team", "asr:spelled the same as before",
           "Signed: see attached.", "asr:the account is under my husband's name", "Beneficiary: same as account holder"],
    "zh": ["是银行帮我办的", "请让客服给我回电话", "我要投诉快递", "申请人：本人", "上次是谁接的电话"],
    "hi": ["मेरा नाम ग़लत लिखा है", "जी, मैं ठीक हूँ", "बैंक से बात हुई थी"],
    "hi-Latn": ["asr:main theek hoon", "asr:mujhe bank ne call kiya tha", "asr:mera naam galat likha hai", "asr:haan ji main sun rahi hoon"],
    "de": ["Ich heiße Sie herzlich willkommen.", "Mein Name ist nicht wichtig."],
}
NEG_LOCALE_MORE = {"de": "de-DE"}
SHAPE_LOCALE = {"field_label_zh": "zh-CN", "zh_after_verb": "zh-CN", "devanagari_intro": "hi-IN", "hinglish": "hi-Latn-IN"}

NEGATIVE: dict[str, dict[str, list[str]]] = {
    "en": {
        "dev": ["I will mark it as paid in {MON}.", "Can you be frank with me about the fees?", "The bill came to forty pounds.", "I'm calling from {CITY} about my {PROD}.",
                "asr:my {PROD} stopped charging in {MON}", "It's sunny in {CITY} today.", "Rose gold case, size medium.", "Grace period ends on the fifth.",
                "asr:this is about my order from {CO}", "asr:you are speaking with customer care", "This is {CO} calling about your bill.", "asr:the account holder is not available right now",
                "Hope that helps!", "asr:i spoke to someone in billing on monday", "My phone is {PHONE}."],
        "test": ["We hope to get it sorted by {MON}.", "asr:i will grace you with a refund", "The store in {CITY} was closed.", "asr:the {PROD} arrived broken",
                 "My flight to {CITY} leaves in {MON}.", "asr:can i speak to the manager please", "asr:this is the billing department", "Name on the card is the same as before.",
                 "The surname is the same as my husband's.", "asr:will you send it to {CITY} or {CITY}", "Joy of joys, the router works again.", "asr:it was delivered in {MON} to {CITY}",
                 "Please mail it to {EMAIL}.", "The card number is {CARD}."],
    },
    "zh": {
        "dev": ["我想去王府井逛逛", "华为手机坏了", "李子很甜", "我很高兴", "持卡人本人需要到场", "我昨天已经跟银行说过了"],
        "test": ["张家界的门票多少钱", "黄金会员有什么优惠", "请转给客服部门", "姓名栏可以不填吗", "是我自己开的户", "刚才有人打电话来问退款"],
    },
    "hi": {
        "dev": ["मैं बैंक से बोल रही हूँ", "आज मौसम अच्छा है", "मेरा नाम वही है जो पहले था"],
        "test": ["नमस्ते, मैं ग्राहक सेवा से बोल रही हूँ", "जी, बताइए क्या मदद करूँ", "मैं कल फिर फ़ोन करूँगी"],
    },
    "hi-Latn": {
        "dev": ["asr:main bank se bol rahi hoon", "asr:mera naam wahi hai"],
        "test": ["asr:aaj shaam ko call karna", "asr:ji main customer care se baat kar raha hoon"],
    },
}
NEG_LOCALE = {"zh": "zh-CN", "hi": "hi-IN", "hi-Latn": "hi-Latn-IN"}
REPEAT_NEG = 2
PII_SLOTS = {"N", "F", "L", "IL", "SP", "ZH", "HI", "HIN", "HL", "HLN"}
STRUCT_SLOTS = {"PHONE": "phone", "EMAIL": "email", "CARD": "payment_card"}
SLOT = re.compile(r"\{([A-Z]+)\}")
PHONE_REGION = {"en-US": "US", "en-GB": "GB", "en-IN": "IN", "zh-CN": "CN", "hi-IN": "IN", "hi-Latn-IN": "IN"}


class Names:
    """Faker instances, one per locale, seeded once so the whole set is deterministic."""

    def __init__(self, rng: random.Random, seed: int = SEED) -> None:
        self.rng = rng
        self.seed = seed
        self.fakers: dict = {}

    def faker(self, loc: str):
        from faker import Faker

        if loc not in self.fakers:
            f = Faker(loc)
            f.seed_instance(self.seed + sum(map(ord, loc)))
            self.fakers[loc] = f
        return self.fakers[loc]

    def person(self, faker_loc: str) -> tuple[str, str]:
        f = self.faker(faker_loc)
        return f.first_name().strip(), f.last_name().strip()

    def phone(self, locale: str) -> str:
        import phonenumbers

        region = PHONE_REGION[locale]
        f = self.faker({"US": "en_US", "GB": "en_GB", "IN": "en_IN", "CN": "zh_CN"}[region])
        for _ in range(200):
            cand = f.phone_number()
            try:
                ok = phonenumbers.is_valid_number(phonenumbers.parse(cand, region))
            except phonenumbers.NumberParseException:
                ok = False
            if ok and "x" not in cand:
                return cand
        raise RuntimeError(f"no valid {region} phone number from Faker in 200 draws")


def _spell(word: str) -> str:
    return " ".join(c for c in word.lower() if c.isalpha())


def render(template: str, locale: str, names: Names, rng: random.Random, faker_loc: str) -> tuple[str, list[dict], bool]:
    asr = template.startswith("asr:")
    template = template.removeprefix("asr:")
    first, last = names.person(faker_loc)
    values = {
        "N": f"{first} {last}", "F": first, "L": last, "IL": f"{first[0]}. {last}" if not asr else f"{first[0]} {last}",
        "SP": _spell(last),
    }
    if "{ZH}" in template:
        f = names.faker(rng.choice(["zh_CN", "zh_TW"]))
        values["ZH"] = f.last_name() + f.first_name()
    if "{HI" in template and "{HL" not in template:
        f = names.faker("hi_IN")
        values["HI"] = f.first_name_female()
        values["HIN"] = f"{values['HI']} {f.last_name()}"
    if "{HL" in template:
        f = names.faker("en_IN")
        values["HL"] = f.first_name()
        values["HLN"] = f"{values['HL']} {f.last_name()}"
    text, spans, pos = "", [], 0
    for m in SLOT.finditer(template):
        text += template[pos : m.start()]
        slot = m.group(1)
        if slot in values:
            value = values[slot]
        elif slot == "PHONE":
            value = names.phone(locale)
        elif slot == "EMAIL":
            value = names.faker(faker_loc).free_email()
        elif slot == "CARD":
            value = names.faker("en_US").credit_card_number()
        else:
            value = rng.choice({"CO": COMPANIES, "CITY": PLACES, "MON": MONTHS, "PROD": PRODUCTS}[slot])
        if asr:
            value = value.lower()
        kind = "person_name" if slot in PII_SLOTS else STRUCT_SLOTS.get(slot)
        if kind:
            spans.append({"start": len(text), "end": len(text) + len(value), "type": kind})
        text += value
        pos = m.end()
    text += template[pos:]
    merged: list[dict] = []  # a surname said and spelled at once ("smith s m i t h") is one mention
    for sp in spans:
        if merged and sp["type"] == merged[-1]["type"] == "person_name" and text[merged[-1]["end"] : sp["start"]] == " ":
            merged[-1] = {**merged[-1], "end": sp["end"]}
        else:
            merged.append(sp)
    spans = merged
    if asr:
        text = text.lower()
    return text, spans, asr


def build() -> list[dict]:
    rng = random.Random(SEED)
    names = Names(rng)
    rows: list[dict] = []

    def add(locale: str, text: str, spans: list[dict], asr: bool, split: str, shape: str) -> None:
        rows.append({"id": f"{locale}-b{len(rows):03d}", "locale": locale, "text": text, "spans": spans,
                     "asr": asr, "split": split, "shape": shape})

    def positives(positive: dict[str, dict[str, list[str]]], names: Names, rng: random.Random) -> None:
        for shape, splits in positive.items():
            for split, wordings in splits.items():
                for wording in wordings:
                    for _ in range(REPEAT):
                        tpl = wording
                        if "|" in tpl:
                            locale, tpl = tpl.split("|", 1)
                            faker_loc = NATIVE_FAKER[locale]
                        else:
                            locale = SHAPE_LOCALE.get(shape) or rng.choice(EN_LOCALES)
                            faker_loc = HOME_FAKER.get(locale, "en_IN") if rng.random() < 0.5 else rng.choice(FOREIGN_FAKER)
                        text, spans, asr = render(tpl, locale, names, rng, faker_loc)
                        add(locale, text, spans, asr, split, shape)

    def negatives(negative: dict[str, dict[str, list[str]]], names: Names, rng: random.Random) -> None:
        for family, splits in negative.items():
            for split, wordings in splits.items():
                for wording in wordings:
                    for _ in range(REPEAT_NEG):
                        locale = NEG_LOCALE.get(family) or NEG_LOCALE_MORE.get(family) or rng.choice(EN_LOCALES)
                        text, spans, asr = render(wording, locale, names, rng, HOME_FAKER.get(locale, "en_US"))
                        add(locale, text, spans, asr, split, f"negative_{family}")

    positives(POSITIVE, names, rng)
    negatives(NEGATIVE, names, rng)
    rng_more = random.Random(SEED_MORE)  # round 2's dev rows: their own stream, after all of the above
    names_more = Names(rng_more, SEED_MORE)
    positives({k: {"dev": v} for k, v in POSITIVE_MORE.items()}, names_more, rng_more)
    negatives({k: {"dev": v} for k, v in NEGATIVE_MORE.items()}, names_more, rng_more)
    return rows


def main() -> None:
    rows = build()
    with open(OUT, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    n_dev = sum(r["split"] == "dev" for r in rows)
    print(f"wrote {len(rows)} rows to {OUT} (dev {n_dev}, test {len(rows) - n_dev})")


if __name__ == "__main__":
    main()
