# ruff: noqa: E501, RUF001  (utterance tables read better unwrapped; full-width punctuation is the data)
"""Builds pii_heldout.jsonl: a held-out PII set of support-call utterances in the six locales, written by a
different method than the recognizers and than make_pii_labelled.py.

How it differs from what it measures:
- names come from the small lists below, written by hand for this file: surnames and given names
  chosen from outside the very top of names-dataset (Kulkarni, Bhattacharya, Whitaker, Hargreaves,
  欧阳, 邓子涵 ...), plus some common ones, so recall reflects how far the name lists reach;
- the phrasings are not the recognizers' cue phrases: names arrive as answers ("yeah it's ..."), in
  third person ("ishita already sent it"), after Hindi/Chinese titles, as vocatives, or after the
  agent asked; numbers arrive split into spoken digits, grouped oddly, or in Hindi/Chinese numerals;
- about half the utterances are rendered as ASR output: lower case, no punctuation, digits as words;
- distractors must stay unflagged: order/PNR/UTR/ticket/booking ids, firmware versions and model
  numbers, amounts, dates, times, and ordinary words that are also names (will, may, grace, bill,
  mark, rose, hope; Hinglish das, pal; Chinese 马上, 高兴, 黄色).

Two splits: `dev` (660 utterances; the recognizers were tuned while looking at its misses, so its figures
are an upper bound) and `test` (360 utterances from templates written afterwards and scored as they
came out). Check digits are computed here with their own small implementations.

    python bench/data/make_pii_heldout.py   # rewrites bench/data/pii_heldout.jsonl (seeded, deterministic)
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

OUT = Path(__file__).with_name("pii_heldout.jsonl")
R = random.Random(16_2026_12)

# ---------------------------------------------------------------- hand-written name lists
IN_FIRST = [
    "Tanmay",
    "Ishita",
    "Harshvardhan",
    "Nandini",
    "Kunal",
    "Swati",
    "Abhijeet",
    "Mrunal",
    "Devika",
    "Siddharth",
    "Aparna",
    "Vaibhav",
    "Ritika",
    "Yogesh",
    "Charulata",
    "Prateek",
    "Shalini",
    "Omkar",
    "Gayatri",
    "Tejas",
    "Anuradha",
    "Rohan",
    "Pallavi",
    "Hemant",
]
IN_LAST = [
    "Kulkarni",
    "Bhattacharya",
    "Rathore",
    "Iyer",
    "Deshpande",
    "Mehrotra",
    "Chaturvedi",
    "Banerjee",
    "Nair",
    "Joshi",
    "Saxena",
    "Trivedi",
    "Menon",
    "Pillai",
    "Malhotra",
    "Rastogi",
    "Kapoor",
    "Dubey",
]
WEST_FIRST = [
    "Colton",
    "Maeve",
    "Declan",
    "Imogen",
    "Tobias",
    "Harriet",
    "Brooke",
    "Everett",
    "Sienna",
    "Rupert",
    "Delaney",
    "Graham",
    "Felicity",
    "Garrett",
    "Rosalind",
    "Spencer",
    "Margot",
    "Wesley",
    "Jocelyn",
    "Nolan",
]
WEST_LAST = [
    "Whitaker",
    "Donnelly",
    "Hargreaves",
    "Pritchard",
    "Kendrick",
    "Ashworth",
    "Gallagher",
    "Thornton",
    "Okafor",
    "Lindqvist",
    "Fairbanks",
    "Mcallister",
    "Redmond",
    "Caldwell",
    "Blackwood",
    "Prescott",
]
ZH_PINYIN = [
    ("Zhou", "Jiahui"),
    ("Tang", "Yuxuan"),
    ("Deng", "Zihan"),
    ("Xu", "Mingze"),
    ("Liang", "Shuyi"),
    ("Guo", "Haoran"),
    ("Feng", "Ruoxi"),
    ("Cao", "Yichen"),
]
ZH_HAN_FULL = [
    "邓子涵",
    "贺婉清",
    "欧阳靖",
    "程思远",
    "范雨桐",
    "蒋浩然",
    "袁梦琪",
    "潘家乐",
    "曾凡宇",
    "韩雪莹",
    "陶志远",
    "宋佳怡",
    "沈一鸣",
    "梁晓彤",
]
ZH_SURNAME = ["邓", "贺", "程", "范", "蒋", "袁", "潘", "曾", "韩", "陶", "宋", "沈", "梁", "魏"]
DEVA_FULL = [
    "तन्मय कुलकर्णी",
    "इशिता भट्टाचार्य",
    "नंदिनी अय्यर",
    "कुणाल देशपांडे",
    "स्वाति मेहरोत्रा",
    "रोहन कपूर",
    "पल्लवी जोशी",
    "हेमंत सक्सेना",
]
DEVA_LAST = ["कुलकर्णी", "जोशी", "सक्सेना", "कपूर", "त्रिवेदी", "मल्होत्रा"]

CITIES_IN = [
    ("Pune", "411038"),
    ("Kolkata", "700029"),
    ("Jaipur", "302017"),
    ("Kochi", "682024"),
    ("Lucknow", "226010"),
    ("Indore", "452010"),
]
COLONIES = ["Shivaji Nagar", "Salt Lake", "Malviya Nagar", "Panampilly Nagar", "Gomti Nagar", "Vijay Nagar"]
STREETS_US = ["Magnolia Drive", "Juniper Lane", "Sycamore Avenue", "Chestnut Street", "Willow Bend Road"]
CITIES_US = [("Boise", "ID", "83702"), ("Tulsa", "OK", "74103"), ("Madison", "WI", "53703"), ("Reno", "NV", "89501")]
STREETS_GB = ["Hawthorn Close", "Beech Grove", "Orchard Way", "Kingsley Road", "Mill Lane"]
POST_GB = ["LS6 2AB", "BS8 4QT", "NG7 1FE", "CF10 3AT", "EH9 1JR", "M14 5RX"]
ZH_ADDR = [
    "杭州市西湖区文三路259号5幢702室",
    "成都市武侯区科华北路65号2栋3单元1104室",
    "南京市鼓楼区中山北路108号",
    "广州市天河区体育东路32号B座1501室",
    "武汉市洪山区珞喻路1037号",
    "西安市雁塔区小寨东路11号4号楼602室",
]
ZH_POST = ["310012", "610041", "210008", "510620", "430074", "710061"]

# ---------------------------------------------------------------- numbers
EN_D = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
HI_D = ["shunya", "ek", "do", "teen", "char", "paanch", "chhe", "saat", "aath", "nau"]
DEVA_D = ["शून्य", "एक", "दो", "तीन", "चार", "पांच", "छह", "सात", "आठ", "नौ"]
ZH_D = "零幺二三四五六七八九"


def rnd_digits(n: int, lead: str = "123456789") -> str:
    return R.choice(lead) + "".join(R.choice("0123456789") for _ in range(n - 1))


def say(num: str, words: list[str] = EN_D) -> str:
    """Digits as an ASR would write them when spoken one by one ("oh" for zero now and then)."""
    out = []
    for ch in num:
        if ch.isdigit():
            w = words[int(ch)]
            if words is EN_D and ch == "0" and R.random() < 0.4:
                w = "oh"
            out.append(w)
    return " ".join(out)


def _d5(j: int, k: int) -> int:
    """Dihedral group D5 product (elements 0-4 rotations, 5-9 reflections)."""
    if j < 5 and k < 5:
        return (j + k) % 5
    if j < 5:
        return 5 + (j + k - 5) % 5
    if k < 5:
        return 5 + (j - 5 - k) % 5
    return (j - k) % 5


_PERM = [list(range(10)), [1, 5, 7, 6, 2, 8, 3, 0, 9, 4]]
for _i in range(2, 8):
    _PERM.append([_PERM[1][_PERM[_i - 1][x]] for x in range(10)])


def aadhaar_number() -> str:
    base = rnd_digits(11, "23456789")
    for check in range(10):
        c = 0
        for i, ch in enumerate(reversed(base + str(check))):
            c = _d5(c, _PERM[i % 8][int(ch)])
        if c == 0:
            return base + str(check)
    raise AssertionError


def luhn_complete(prefix: str, length: int) -> str:
    body = prefix + rnd_digits(length - len(prefix) - 1, "0123456789")
    for check in "0123456789":
        s = body + check
        total = sum(int(c) if i % 2 == 0 else (2 * int(c) // 10 + 2 * int(c) % 10) for i, c in enumerate(reversed(s)))
        if total % 10 == 0:
            return s
    raise AssertionError


def nhs_number() -> str:
    while True:
        base = rnd_digits(9, "456789")
        r = 11 - sum(int(c) * w for c, w in zip(base, range(10, 1, -1), strict=True)) % 11
        if r == 11:
            r = 0
        if r < 10:
            return base + str(r)


def cn_id_number() -> str:
    area = R.choice(["330106", "510107", "320106", "440106", "420111"])
    body = area + f"{R.randint(1965, 2001)}{R.randint(1, 12):02d}{R.randint(1, 28):02d}" + rnd_digits(3, "0123456789")
    w = [2 ** (17 - i) % 11 for i in range(17)]
    return body + "10X98765432"[sum(int(c) * x for c, x in zip(body, w, strict=True)) % 11]


def gb_iban() -> str:
    bban = "NWBK" + rnd_digits(14, "0123456789")
    n = int("".join(str(int(c, 36)) for c in bban + "GB00"))
    raw = f"GB{98 - n % 97:02d}{bban}"
    return " ".join(raw[i : i + 4] for i in range(0, len(raw), 4))


def pan_number() -> str:
    up = "ABCDEFGHJKLMNPRSTUVWXYZ"
    return "".join(R.choice(up) for _ in range(3)) + "P" + R.choice(up) + rnd_digits(4, "0123456789") + R.choice(up)


def nino_number() -> str:
    return R.choice(["JG", "KE", "PR", "SN", "TW"]) + rnd_digits(6, "0123456789") + R.choice("ABCD")


# ---------------------------------------------------------------- rendering
class U:
    """One utterance under construction: parts of (text, gold type or None)."""

    def __init__(self, locale: str, asr: bool) -> None:
        self.locale, self.asr, self.parts = locale, asr, []

    def t(self, s: str) -> U:
        if self.asr and self.locale != "zh-CN":
            s = re.sub(r"[,.?!;](?=\s|$)", "", s.lower())  # punctuation goes, "4.2.0.118" and "1,499" stay
        self.parts.append((s, None))
        return self

    def pii(self, typ: str, written: str, spoken: str | None = None) -> U:
        v = spoken if (self.asr and spoken is not None) else written
        if self.asr and self.locale != "zh-CN" and typ in ("person_name", "address"):
            v = v.lower().replace(",", "")
        self.parts.append((v, typ))
        return self

    def done(self, uid: str) -> dict:
        text, spans = "", []
        for s, typ in self.parts:
            if typ:
                spans.append({"start": len(text), "end": len(text) + len(s), "type": typ})
            text += s
        text = text.replace("  ", " ")  # parts are built so that this never shifts a span (checked below)
        for sp in spans:
            assert text[sp["start"] : sp["end"]].strip(), (uid, text)
        return {"id": uid, "locale": self.locale, "text": text, "spans": spans, "asr": self.asr}


def in_name(full: bool = True) -> str:
    return f"{R.choice(IN_FIRST)} {R.choice(IN_LAST)}" if full else R.choice(IN_FIRST)


def west_name(full: bool = True) -> str:
    return f"{R.choice(WEST_FIRST)} {R.choice(WEST_LAST)}" if full else R.choice(WEST_FIRST)


def order_id() -> str:
    return R.choice(
        [
            f"{rnd_digits(3)}-{rnd_digits(7, '0123456789')}-{rnd_digits(7, '0123456789')}",
            f"OD{rnd_digits(12)}",
            f"{rnd_digits(4)}-{rnd_digits(4)}-{rnd_digits(2)}",
            f"TK-{rnd_digits(6)}",
        ]
    )


def version() -> str:
    return f"{R.randint(2, 9)}.{R.randint(0, 9)}.{R.randint(0, 9)}.{R.randint(10, 250)}"


def amount_en() -> str:
    return R.choice(
        [f"${R.randint(12, 900)}.{R.randint(0, 99):02d}", f"£{R.randint(5, 400)}", f"{R.randint(2, 90)} dollars"]
    )


# ---------------------------------------------------------------- per-locale generators
def en_common(u: U, west: bool, region: str) -> None:
    """Shared English shapes (names, email, card, ip, distractors); region picks phone/ids."""
    k = R.randrange(22)
    nm = west_name if west else in_name
    if k == 0:
        u.t("yeah it's ").pii("person_name", nm()).t(", I called yesterday about the router.")
    elif k == 1:
        u.t("Hi, ").pii("person_name", nm(False)).t(", thanks for holding.")
    elif k == 2:
        u.pii("person_name", nm()).t(" here, the account holder.")
    elif k == 3:
        u.t("I already told ").pii("person_name", nm(False)).t(" from billing about it.")
    elif k == 4:
        u.t("Could you put me through to Mr ").pii("person_name", R.choice(WEST_LAST if west else IN_LAST)).t(
            " please?"
        )
    elif k == 5:
        u.t("The account is under ").pii("person_name", nm()).t(", my wife.")
    elif k == 6:
        e = f"{R.choice(WEST_FIRST if west else IN_FIRST).lower()}.{R.choice(WEST_LAST if west else IN_LAST).lower()}{R.randint(1, 99)}@{R.choice(['outlook.com', 'yahoo.co.uk', 'protonmail.com', 'rediffmail.com'])}"
        spoken = e.replace(".", " dot ").replace("@", " at ")
        u.t("send it to ").pii("email", e, spoken).t(" please")
    elif k == 7:
        c = luhn_complete(R.choice(["4", "51", "37"]), 15 if R.random() < 0.2 else 16)
        grouped = " ".join(c[i : i + 4] for i in range(0, len(c), 4))
        u.t("the card number is ").pii("payment_card", grouped, say(c)).t(" expiry next year")
    elif k == 8:
        ip = f"{R.choice([10, 172, 192])}.{R.randint(0, 255)}.{R.randint(0, 255)}.{R.randint(2, 254)}"
        u.t("my home IP shows as ").pii("ip_address", ip).t(" in the logs")
    elif k == 9:
        u.t("the router firmware is ").t(version()).t(" and it keeps rebooting")
    elif k == 10:
        u.t("order ").t(order_id()).t(" still says processing")
    elif k == 11:
        u.t("I will check with my manager and may call back tomorrow.")
    elif k == 12:
        u.t("the bill came to ").t(amount_en()).t(", can you mark it as disputed?")
    elif k == 13:
        u.t("there's a grace period of fourteen days, I hope that helps.")
    elif k == 14:
        u.t("I want the rose gold one, model ").t(f"X{R.randint(100, 999)}-{R.randint(10, 99)}").t(".")
    elif k == 15:
        u.t("ticket number ").t(f"{rnd_digits(10)}").t(" was closed without a fix")
    elif k == 16:
        u.t("Thank you ").pii("person_name", nm(False)).t(", that's all for today.")
    elif k == 17:
        u.t("so I spoke with ").pii("person_name", nm()).t(" on Tuesday and nothing happened")
    elif k == 18:
        u.t("it's under my son's name, ").pii("person_name", nm()).t(".")
    elif k == 19:
        u.t("booking reference ").t(f"{rnd_digits(3)}-{rnd_digits(7, '0123456789')}").t(" for two adults")
    elif k == 20:
        u.t("please ask ").pii("person_name", nm(False)).t(" to call me back")
    else:
        u.t("my daughter ").pii("person_name", nm(False)).t(" set it up for me")


def gen_en_us(u: U) -> None:
    k = R.randrange(14)
    if k < 6:
        return en_common(u, True, "US")
    if k == 6:
        a, b, c = rnd_digits(3, "2345678"), rnd_digits(3, "2345678"), rnd_digits(4, "0123456789")
        u.t("you can reach me on ").pii("phone", f"({a}) {b}-{c}", say(a + b + c)).t(" after five")
    elif k == 7:
        s = f"{R.randint(101, 665)}-{R.randint(10, 99)}-{R.randint(1000, 9999)}"
        u.t("last four won't work, the full social is ").pii("us_ssn", s).t(".")
    elif k == 8:
        z = rnd_digits(5, "123456789")
        u.t("and the zip is ").pii("us_zip", z, say(z)).t(", same as billing")
    elif k == 9:
        city, st, z = R.choice(CITIES_US)
        addr = f"{R.randint(10, 9999)} {R.choice(STREETS_US)}, {city}, {st} {z}"
        u.t("ship it to ").pii("address", addr).t(" please")
    elif k == 10:
        u.t("my confirmation code is ").t(f"{rnd_digits(3)}-{rnd_digits(3)}-{rnd_digits(4)}").t(" for the order")
    elif k == 11:
        u.t("it was ").t(amount_en()).t(" on March 3rd at 4:15 pm")
    elif k == 12:
        u.t("yes this is ").pii("person_name", west_name()).t(" speaking")
    else:
        u.t("May I get your account number? Will do, one moment.")


def gen_en_gb(u: U) -> None:
    k = R.randrange(14)
    if k < 6:
        return en_common(u, True, "GB")
    if k == 6:
        n = "07" + rnd_digits(9, "0123456789")
        u.t("best number is ").pii("phone", f"{n[:5]} {n[5:]}", say(n)).t(", ta")
    elif k == 7:
        u.t("my NI number's ").pii("uk_nino", nino_number()).t(" I think")
    elif k == 8:
        n = nhs_number()
        u.t("NHS number ").pii("uk_nhs", f"{n[:3]} {n[3:6]} {n[6:]}", say(n)).t(".")
    elif k == 9:
        u.t("postcode is ").pii("uk_postcode", R.choice(POST_GB)).t(".")
    elif k == 10:
        addr = f"{R.randint(2, 180)} {R.choice(STREETS_GB)}, {R.choice(['Leeds', 'Bristol', 'Nottingham'])} {R.choice(POST_GB)}"
        u.t("it's ").pii("address", addr).t(", flat at the back")
    elif k == 11:
        u.t("pay into ").pii("iban", gb_iban()).t(" please")
    elif k == 12:
        u.pii("person_name", "Grace").t(" said the bill was ").t(f"£{R.randint(20, 300)}").t(" and I hope that's right")
    else:
        u.t("lovely, ").pii("person_name", west_name(False)).t(", I'll pass that on")


def gen_en_in(u: U) -> None:
    k = R.randrange(16)
    if k < 6:
        return en_common(u, False, "IN")
    if k == 6:
        n = R.choice("6789") + rnd_digits(9, "0123456789")
        u.t("my mobile is ").pii("phone", f"{n[:5]} {n[5:]}", say(n)).t(" only")
    elif k == 7:
        a = aadhaar_number()
        u.t("aadhaar card number ").pii("in_aadhaar", f"{a[:4]} {a[4:8]} {a[8:]}", say(a)).t(", please verify")
    elif k == 8:
        u.t("my PAN is ").pii("in_pan", pan_number()).t(" for the invoice")
    elif k == 9:
        city, pin = R.choice(CITIES_IN)
        u.t("pin code is ").pii("in_pin", pin, say(pin)).t(", ").t(city)
    elif k == 10:
        city, pin = R.choice(CITIES_IN)
        addr = f"flat {R.randint(101, 904)}, {R.choice(['Sai Residency', 'Green Park Apartments', 'Lotus Towers'])}, {R.choice(COLONIES)}, {city} {pin}"
        u.t("deliver at ").pii("address", addr).t(" only")
    elif k == 11:
        u.t("PNR ").t(rnd_digits(10, "2468")).t(" is showing waitlisted")
    elif k == 12:
        u.t("the UTR number is ").t(rnd_digits(12, "34")).t(" for the refund")
    elif k == 13:
        u.t("send to ").pii("in_upi", f"{R.choice(IN_FIRST).lower()}{R.randint(10, 99)}@okicici").t(" via UPI")
    elif k == 14:
        u.t("it's ").pii(
            "address",
            f"house no {R.randint(2, 300)} sector {R.randint(4, 60)} {R.choice(['noida', 'gurgaon', 'faridabad'])}",
        ).t(" is mine")
    else:
        u.pii("person_name", R.choice(IN_LAST)).t(" ji already approved the refund of Rs 1,499 on 12th.")


def gen_hi_latn(u: U) -> None:
    k = R.randrange(18)
    if k == 0:
        u.t("haan ji, ").pii("person_name", in_name()).t(" bol raha hoon")
    elif k == 1:
        u.pii("person_name", R.choice(IN_LAST)).t(" ji ne bola tha ki refund aa jayega")
    elif k == 2:
        u.t("mere bhai ").pii("person_name", in_name(False)).t(" ka account hai ye")
    elif k == 3:
        n = R.choice("6789") + rnd_digits(9, "0123456789")
        u.t("mera number note kijiye ").pii("phone", n, say(n, HI_D)).t(" pe call karna")
    elif k == 4:
        a = aadhaar_number()
        u.t("aadhaar ").pii("in_aadhaar", a, say(a, HI_D)).t(" hai mera")
    elif k == 5:
        city, pin = R.choice(CITIES_IN)
        u.t("pincode ").pii("in_pin", pin).t(" hai, ").t(city.lower()).t(" mein")
    elif k == 6:
        u.t("mera PNR ").t(rnd_digits(10, "6789")).t(" hai, ticket confirm nahi hua")
    elif k == 7:
        u.t("UTR ").t(rnd_digits(12, "2345")).t(" wala payment abhi tak nahi aaya")
    elif k == 8:
        u.t("das din ho gaye, order ").t(order_id()).t(" ka status batao")
    elif k == 9:
        u.t("ek pal rukiye, main check karti hoon")
    elif k == 10:
        u.t("upi id ").pii("in_upi", f"{R.choice(IN_FIRST).lower()}.{R.choice(IN_LAST).lower()}@ybl").t(" pe bhej do")
    elif k == 11:
        u.t("shrimati ").pii("person_name", in_name()).t(" ke naam pe connection hai")
    elif k == 12:
        u.t("makaan number ").pii(
            "address", f"{R.randint(5, 400)}, gali number {R.randint(1, 12)}, {R.choice(COLONIES)}"
        ).t(" pe bhejna")
    elif k == 13:
        u.t("app ka version ").t(version()).t(" hai, update nahi ho raha")
    elif k == 14:
        u.t("theek hai ").pii("person_name", in_name(False)).t(", main dekh leta hoon")
    elif k == 15:
        u.t("PAN card ").pii("in_pan", pan_number()).t(" hai")
    elif k == 16:
        u.t("complaint number ").t(f"{rnd_digits(4)}-{rnd_digits(6)}").t(" hai mera")
    else:
        u.t("bill kal tak aa jayega, aap fikar mat kijiye")


def gen_hi_deva(u: U) -> None:
    k = R.randrange(16)
    if k == 0:
        u.t("जी, मैं ").pii("person_name", R.choice(DEVA_FULL)).t(" बोल रहा हूँ")
    elif k == 1:
        u.t("श्रीमती ").pii("person_name", R.choice(DEVA_FULL)).t(" का खाता है")
    elif k == 2:
        u.pii("person_name", R.choice(DEVA_LAST)).t(" जी ने शिकायत दर्ज की थी")
    elif k == 3:
        n = R.choice("6789") + rnd_digits(9, "0123456789")
        u.t("मेरा मोबाइल नंबर ").pii("phone", n, say(n, DEVA_D)).t(" है")
    elif k == 4:
        a = aadhaar_number()
        u.t("आधार नंबर ").pii("in_aadhaar", f"{a[:4]} {a[4:8]} {a[8:]}").t(" है")
    elif k == 5:
        city, pin = R.choice(CITIES_IN)
        u.t("पिन कोड ").pii("in_pin", pin).t(" है")
    elif k == 6:
        u.t("मेरा पीएनआर नंबर ").t(rnd_digits(10, "6789")).t(" है")
    elif k == 7:
        u.t("यूटीआर ").t(rnd_digits(12, "23")).t(" वाला भुगतान नहीं मिला")
    elif k == 8:
        u.t("ऑर्डर ").t(order_id()).t(" अभी तक नहीं आया")
    elif k == 9:
        u.t("मकान नंबर ").pii(
            "address",
            f"{R.randint(3, 250)}, गली नंबर {R.randint(1, 9)}, {R.choice(['लक्ष्मी नगर', 'शास्त्री नगर', 'राजेंद्र नगर'])}",
        ).t(" पर भेज दीजिए")
    elif k == 10:
        u.t("ठीक है जी, मैं दस मिनट में देखता हूँ")
    elif k == 11:
        u.t("टिकट नंबर ").t(rnd_digits(8)).t(" बंद कर दिया गया")
    elif k == 12:
        u.t("सॉफ्टवेयर वर्जन ").t(version()).t(" है")
    elif k == 13:
        u.t("ईमेल ").pii("email", f"{R.choice(IN_FIRST).lower()}{R.randint(1, 99)}@gmail.com").t(" पर भेजिए")
    elif k == 14:
        u.t("नमस्ते ").pii("person_name", R.choice(DEVA_FULL)).t(" जी, कैसे मदद करूँ")
    else:
        u.t("हाँ जी, बिल पहले ही भर दिया है")


def gen_zh(u: U) -> None:
    k = R.randrange(18)
    if k == 0:
        u.t("您好，").pii("person_name", R.choice(ZH_SURNAME)).t("先生，您的工单已经处理了")
    elif k == 1:
        u.t("收件人写").pii("person_name", R.choice(ZH_HAN_FULL)).t("就行")
    elif k == 2:
        u.t("对，我是").pii("person_name", R.choice(ZH_HAN_FULL)).t("，上周打过电话")
    elif k == 3:
        n = "1" + R.choice("3589") + rnd_digits(9, "0123456789")
        u.t("手机号").pii("phone", n, "".join(ZH_D[int(c)] for c in n)).t("，有事打这个")
    elif k == 4:
        u.t("身份证号是").pii("cn_resident_id", cn_id_number()).t("。")
    elif k == 5:
        u.t("邮编").pii("cn_postcode", R.choice(ZH_POST)).t("，别写错了")
    elif k == 6:
        u.t("寄到").pii("address", R.choice(ZH_ADDR)).t("，谢谢")
    elif k == 7:
        u.t("订单号").t(rnd_digits(16)).t("一直没发货")
    elif k == 8:
        u.t("固件版本").t(version()).t("，升级以后就连不上了")
    elif k == 9:
        u.t("我马上去查一下，您别着急，很高兴为您服务")
    elif k == 10:
        u.t("型号是").t(f"MX-{R.randint(100, 999)}").t("，黄色的那款")
    elif k == 11:
        u.t("我姓").pii("person_name", R.choice(ZH_SURNAME)).t("，耳东陈的陈不是")
    elif k == 12:
        u.t("my English name is ").pii("person_name", " ".join(R.choice(ZH_PINYIN))).t(", the account is in pinyin")
    elif k == 13:
        u.t("麻烦转给").pii("person_name", R.choice(ZH_HAN_FULL)).t("经理")
    elif k == 14:
        u.t("快递单号").t(f"SF{rnd_digits(12)}").t("，显示已签收")
    elif k == 15:
        u.pii("person_name", R.choice(ZH_SURNAME)).t("女士，您的退款两百元已经到账")
    elif k == 16:
        u.t("邮箱是").pii("email", f"{R.choice(ZH_PINYIN)[1].lower()}{R.randint(10, 99)}@163.com").t("。")
    else:
        u.t("航班号").t(f"CA{R.randint(1000, 1999)}").t("，票号").t(rnd_digits(13)).t("，改签一下")


GENERATORS = {
    "en-US": gen_en_us,
    "en-GB": gen_en_gb,
    "en-IN": gen_en_in,
    "hi-Latn-IN": gen_hi_latn,
    "hi-IN": gen_hi_deva,
    "zh-CN": gen_zh,
}
PER_LOCALE = 110


# ---------------------------------------------------------------- the test split: templates written after the
# dev split above had been used to tune the recognizers, and scored without further tuning.
def gen_west_b(u: U, loc: str) -> None:
    k = R.randrange(20)
    if k == 0:
        u.t("ok so the name on the card is ").pii("person_name", west_name()).t(".")
    elif k == 1:
        u.pii("person_name", west_name()).t(", account ending ").t(str(R.randint(1000, 9999))).t(".")
    elif k == 2:
        u.t("she's with ").pii("person_name", west_name(False)).t(" at the front desk")
    elif k == 3:
        u.pii("person_name", west_name(False)).t(" was really helpful last time.")
    elif k == 4:
        u.t("I'm calling on behalf of my father, ").pii("person_name", west_name()).t(".")
    elif k == 5:
        u.t("is ").pii("person_name", west_name(False)).t(" there?")
    elif k == 6:
        u.t("my landlord ").pii("person_name", west_name()).t(" has the router")
    elif k == 7:
        u.t("yes I will, can I pay the bill in May?")
    elif k == 8:
        u.t("there's a mark on the screen and the jack is loose")
    elif k == 9:
        u.t("prices rose by about ten percent, I hope that's temporary")
    elif k == 10:
        u.t("case number ").t(rnd_digits(8, "0")).t(", serial SN-").t(rnd_digits(5)).t("-B")
    elif k == 11:
        u.t("version ").t(version()).t(" of the app, extension ").t(str(R.randint(100, 999)))
    elif k == 12:
        e = f"{R.choice(WEST_FIRST)[0].lower()}_{R.choice(WEST_LAST).lower()}@hotmail.com"
        u.t("my email is ").pii(
            "email", e, e.replace("_", " underscore ").replace(".", " dot ").replace("@", " at ")
        ).t(".")
    elif k == 13 and loc == "en-US":
        n = rnd_digits(3, "2345678") + rnd_digits(3, "2345678") + rnd_digits(4, "0123456789")
        u.t("it's ").pii("phone", " ".join(n), say(n)).t(", that's my cell")
    elif k == 13:
        n = "07" + rnd_digits(9, "0123456789")
        u.t("mobile's ").pii("phone", f"{n[:4]} {n[4:7]} {n[7:]}", say(n)).t(".")
    elif k == 14 and loc == "en-US":
        city, st, z = R.choice(CITIES_US)
        u.t("I'm at ").pii(
            "address", f"{R.randint(5, 990)} {R.choice(STREETS_US)}, apartment {R.randint(1, 9)}B, {city}, {st} {z}"
        ).t(".")
    elif k == 14:
        u.t("send it to ").pii(
            "address",
            f"{R.randint(2, 120)} {R.choice(STREETS_GB)}, {R.choice(['Cardiff', 'Edinburgh', 'Manchester'])} {R.choice(POST_GB)}",
        ).t(".")
    elif k == 15 and loc == "en-US":
        z = rnd_digits(5, "0123456789")
        u.t("zip code's ").pii("us_zip", z, say(z)).t(".")
    elif k == 15:
        u.t("the postcode's ").pii("uk_postcode", R.choice(POST_GB)).t(", yeah")
    elif k == 16:
        u.t("the total is ").t(f"{R.randint(1, 9)},{R.randint(100, 999)}.{R.randint(10, 99)}").t(
            " and it was billed on the 3rd"
        )
    elif k == 17:
        u.t("hello ").pii("person_name", f"{R.choice(IN_FIRST)} {R.choice(IN_LAST)}").t(" speaking, how can I help")
    elif k == 18:
        u.t("yeah, ").pii("person_name", west_name(False)).t(".")
    else:
        u.t("my colleague ").pii("person_name", west_name()).t(" will email you")


def gen_in_b(u: U) -> None:
    k = R.randrange(14)
    if k == 0:
        u.t("Mr. ").pii("person_name", R.choice(IN_LAST)).t(" had raised the complaint")
    elif k == 1:
        u.t("please confirm, ").pii("person_name", in_name()).t(", right?")
    elif k == 2:
        u.t("myself ").pii("person_name", in_name()).t(" from ").t(R.choice(CITIES_IN)[0])
    elif k == 3:
        u.t("beneficiary name ").pii("person_name", in_name()).t(", account verified")
    elif k == 4:
        pin = R.choice(CITIES_IN)[1]
        u.t("my PIN code is ").pii("in_pin", f"{pin[:3]} {pin[3:]}", say(pin)).t(".")
    elif k == 5:
        n = "0" + R.choice(["80", "22", "44"]) + rnd_digits(8, "2345")
        u.t("alternate number is ").pii("phone", f"{n[:3]} {n[3:7]} {n[7:]}", say(n)).t(" office")
    elif k == 6:
        u.t("PNR ").t(f"{rnd_digits(4)} {rnd_digits(3)} {rnd_digits(3)}").t(", booking id IN-").t(rnd_digits(5)).t(
            "-22"
        )
    elif k == 7:
        u.t("IFSC code HDFC000").t(rnd_digits(4)).t(" and the branch is fine")
    elif k == 8:
        u.t("ok ").pii("person_name", in_name(False)).t(", I have noted it")
    elif k == 9:
        a = aadhaar_number()
        u.t("my aadhar is ").pii("in_aadhaar", a, say(a)).t(".")
    elif k == 10:
        u.t("my wife ").pii("person_name", in_name()).t(" will collect it")
    elif k == 11:
        u.t("the refund of Rs ").t(str(R.randint(200, 9000))).t(" came on ").t(
            f"{R.randint(1, 28)}/{R.randint(1, 12)}/2026"
        )
    elif k == 12:
        city, pin = R.choice(CITIES_IN)
        u.t("address is ").pii("address", f"{R.randint(2, 99)}, {R.choice(COLONIES)}, {city} {pin}").t(".")
    else:
        u.t("I'll call ").pii("person_name", in_name(False)).t(" tomorrow")


def gen_hi_latn_b(u: U) -> None:
    k = R.randrange(12)
    if k == 0:
        u.pii("person_name", in_name(False)).t(" bhaiya ne payment kiya tha")
    elif k == 1:
        u.t("aapka naam? ").pii("person_name", in_name()).t(".")
    elif k == 2:
        u.t("main ").pii("person_name", in_name(False)).t(" hoon, order ke baare mein")
    elif k == 3:
        e = f"{R.choice(IN_FIRST).lower()}{R.randint(10, 99)}@gmail.com"
        u.t("mera email ").pii("email", e, e.replace(".", " dot ").replace("@", " at ")).t(" hai")
    elif k == 4:
        u.t("pin ").pii("in_pin", R.choice(CITIES_IN)[1]).t(" hai")
    elif k == 5:
        u.t("kal tak ho jayega, das hazaar rupaye ka refund hai")
    elif k == 6:
        u.t("order number ").t(f"{rnd_digits(4)}-{rnd_digits(4)}-{rnd_digits(2)}").t(" hai")
    elif k == 7:
        n = R.choice("6789") + rnd_digits(9, "0123456789")
        u.t("mobile ").pii("phone", n, say(n, HI_D)).t(" hai")
    elif k == 8:
        u.t("ghar ka pata ").pii(
            "address",
            f"flat {R.randint(101, 999)}, {R.choice(['Shanti Apartments', 'Krishna Heights'])}, {R.choice(COLONIES)}",
        ).t(" hai")
    elif k == 9:
        u.pii("person_name", R.choice(IN_LAST)).t(" sahab se baat karni hai")
    elif k == 10:
        u.t("ek pal, main transfer karta hoon")
    else:
        u.t("dhanyavaad ").pii("person_name", in_name(False)).t(" ji")


def gen_hi_deva_b(u: U) -> None:
    k = R.randrange(10)
    if k == 0:
        u.t("मेरा नाम ").pii("person_name", R.choice(DEVA_FULL)).t(" है")
    elif k == 1:
        u.pii("person_name", R.choice(DEVA_FULL).split()[0]).t(" जी से बात कराइए")
    elif k == 2:
        u.t("श्री ").pii("person_name", R.choice(DEVA_FULL)).t(" के नाम पर बिल है")
    elif k == 3:
        u.t("दस दिन हो गए, बिल 499 रुपये का है")
    elif k == 4:
        u.t("वर्जन ").t(version()).t(" में दिक्कत है")
    elif k == 5:
        u.t("पिनकोड ").pii("in_pin", R.choice(CITIES_IN)[1]).t(" है")
    elif k == 6:
        n = R.choice("6789") + rnd_digits(9, "0123456789")
        u.t("फोन ").pii("phone", n).t(" पर कॉल करें")
    elif k == 7:
        u.t("फ्लैट नंबर ").pii("address", f"{R.randint(101, 950)}, {R.choice(['शांति नगर', 'गांधी नगर'])}").t(" में रहता हूँ")
    elif k == 8:
        u.t("बुकिंग नंबर ").t(rnd_digits(10, "6789")).t(" है")
    else:
        u.t("धन्यवाद ").pii("person_name", R.choice(DEVA_FULL)).t(" जी")


def gen_zh_b(u: U) -> None:
    k = R.randrange(12)
    if k == 0:
        u.t("这边是").pii("person_name", R.choice(ZH_HAN_FULL)).t("，想查一下物流")
    elif k == 1:
        u.pii("person_name", R.choice(ZH_HAN_FULL)).t("的快递到了吗")
    elif k == 2:
        u.t("找一下").pii("person_name", R.choice(ZH_SURNAME)).t("经理")
    elif k == 3:
        u.pii("person_name", R.choice(ZH_SURNAME)).t("小姐您好，请问有什么可以帮您")
    elif k == 4:
        u.t("我叫").pii("person_name", R.choice(ZH_HAN_FULL)).t("，手机尾号").t(str(R.randint(1000, 9999)))
    elif k == 5:
        u.t("住址是").pii("address", R.choice(ZH_ADDR)).t("。")
    elif k == 6:
        u.t("马上到，黄金会员可以优先处理")
    elif k == 7:
        u.t("高铁车次G").t(str(R.randint(100, 999))).t("，票号").t(rnd_digits(12)).t("退票")
    elif k == 8:
        u.t("邮政编码是").pii("cn_postcode", R.choice(ZH_POST)).t("。")
    elif k == 9:
        n = "1" + R.choice("3589") + rnd_digits(9, "0123456789")
        u.t("电话").pii("phone", f"{n[:3]} {n[3:7]} {n[7:]}").t("，白天都在")
    elif k == 10:
        u.t("版本号").t(version()).t("，序列号").t(f"SN{rnd_digits(10)}")
    else:
        u.t("张贴的通知说王者荣耀活动延期了")


GENERATORS_B = {
    "en-US": lambda u: gen_west_b(u, "en-US"),
    "en-GB": lambda u: gen_west_b(u, "en-GB"),
    "en-IN": gen_in_b,
    "hi-Latn-IN": gen_hi_latn_b,
    "hi-IN": gen_hi_deva_b,
    "zh-CN": gen_zh_b,
}
PER_LOCALE_B = 60


def build() -> list[dict]:
    rows = []
    for loc, gen in GENERATORS.items():
        for i in range(PER_LOCALE):
            u = U(loc, asr=R.random() < 0.5)
            gen(u)
            rows.append(dict(u.done(f"{loc}-h{i:03d}"), split="dev"))
    for loc, gen in GENERATORS_B.items():
        for i in range(PER_LOCALE_B):
            u = U(loc, asr=R.random() < 0.5)
            gen(u)
            rows.append(dict(u.done(f"{loc}-t{i:03d}"), split="test"))
    return rows


if __name__ == "__main__":
    rows = build()
    with open(OUT, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    n_spans = sum(len(r["spans"]) for r in rows)
    print(f"wrote {len(rows)} utterances, {n_spans} gold spans, {sum(not r['spans'] for r in rows)} distractor-only")
