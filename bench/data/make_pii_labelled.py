# ruff: noqa: E501  (template tables read better unwrapped)
"""Builds pii_labelled.jsonl: call-centre utterances in six locales with gold PII spans and business
distractors (amounts, dates, times, order/customer ids). Written from how people talk on support calls,
not from the recognizers; check digits are computed here with their own small implementations.

    python bench/data/make_pii_labelled.py   # rewrites bench/data/pii_labelled.jsonl (seeded, deterministic)
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).with_name("pii_labelled.jsonl")
rng = random.Random(20260917)

# ---------------------------------------------------------------- check-digit generators (independent)
_D = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
      [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
      [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
      [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
_P = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
      [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
      [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]
_INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_digit(base: str) -> str:
    c = 0
    for i, ch in enumerate(reversed(base)):
        c = _D[c][_P[(i + 1) % 8][int(ch)]]
    return str(_INV[c])


def luhn_digit(base: str) -> str:
    s = 0
    for i, ch in enumerate(reversed(base)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        s += d - 9 if d > 9 else d
    return str((10 - s % 10) % 10)


def digits(n: int, first: str = "123456789") -> str:
    return rng.choice(first) + "".join(rng.choice("0123456789") for _ in range(n - 1))


def aadhaar(grouped: bool = True) -> str:
    base = digits(11, "23456789")
    v = base + verhoeff_digit(base)
    return f"{v[:4]} {v[4:8]} {v[8:]}" if grouped else v


def card(kind: str = "visa") -> str:
    prefix = {"visa": "4", "mc": "5" + rng.choice("12345"), "amex": "3" + rng.choice("47"), "rupay": "60"}[kind]
    n = 15 if kind == "amex" else 16
    base = prefix + "".join(rng.choice("0123456789") for _ in range(n - 1 - len(prefix)))
    v = base + luhn_digit(base)
    if kind == "amex":
        return f"{v[:4]} {v[4:10]} {v[10:]}"
    return " ".join(v[i:i + 4] for i in range(0, 16, 4)) if rng.random() < 0.7 else v


def nhs() -> str:
    while True:
        base = digits(9, "3456789")
        total = sum((10 - i) * int(c) for i, c in enumerate(base))
        chk = 11 - total % 11
        chk = 0 if chk == 11 else chk
        if chk != 10:
            v = base + str(chk)
            return f"{v[:3]} {v[3:6]} {v[6:]}"


def iban(country: str, bban: str) -> str:
    s = bban + country + "00"
    num = "".join(str(int(c, 36)) for c in s)
    chk = 98 - int(num) % 97
    raw = f"{country}{chk:02d}{bban}"
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))


def cn_id() -> str:
    area = rng.choice(["110105", "310104", "440305", "510107", "330106"])
    y, m, d = rng.randint(1960, 2004), rng.randint(1, 12), rng.randint(1, 28)
    base = f"{area}{y}{m:02d}{d:02d}{rng.randint(0, 999):03d}"
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return base + "10X98765432"[sum(a * int(b) for a, b in zip(w, base, strict=True)) % 11]


def ssn() -> str:
    return f"{rng.randint(100, 665)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}"


def nino() -> str:
    return (rng.choice("ABCEGHJKLMNPRSTWXYZ") + rng.choice("ABCEGHJKLMNPRSTWXYZ") +
            f" {rng.randint(10, 99)} {rng.randint(10, 99)} {rng.randint(10, 99)} " + rng.choice("ABCD"))


def pan() -> str:
    L = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return "".join(rng.choice(L) for _ in range(3)) + "P" + rng.choice(L) + f"{rng.randint(1000, 9999)}" + rng.choice(L)


def ipv4() -> str:
    return rng.choice(["192.168.", "10.0.", "172.16.", "203.0."]) + f"{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def ipv6() -> str:
    return rng.choice(["2001:db8::", "fe80::", "2001:db8:85a3::"]) + f"{rng.randint(1, 0xffff):x}:{rng.randint(1, 0xffff):x}"


WORDS = "zero one two three four five six seven eight nine".split()
HI_WORDS = "shunya ek do teen chaar paanch chhe saat aath nau".split()
DEVA_WORDS = "शून्य एक दो तीन चार पांच छह सात आठ नौ".split()
ZH_DIG = "零一二三四五六七八九"


def spoken(num: str, words: list[str] = WORDS, sep: str = " ") -> str:
    return sep.join(words[int(c)] for c in num if c.isdigit())


def us_phone() -> tuple[str, str]:
    a = rng.choice(["212", "415", "646", "312", "617", "206", "303", "512"])
    b, c = f"{rng.randint(200, 999)}", f"{rng.randint(0, 9999):04d}"
    return rng.choice([f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a} {b} {c}", f"+1 {a} {b} {c}"]), a + b + c


def gb_phone() -> tuple[str, str]:
    mob = "07" + rng.choice("45789") + f"{rng.randint(10, 99)}"
    rest = f"{rng.randint(100000, 999999)}"
    return rng.choice([f"{mob} {rest}", f"+44 {mob[1:]} {rest}", f"020 7{rng.randint(100, 999)} {rng.randint(1000, 9999)}"]), mob + rest


def in_phone() -> tuple[str, str]:
    n = rng.choice("6789") + "".join(rng.choice("0123456789") for _ in range(9))
    return rng.choice([n, f"{n[:5]} {n[5:]}", f"+91 {n[:5]} {n[5:]}", f"+91-{n}"]), n


def cn_phone() -> str:
    return "1" + rng.choice(["38", "39", "58", "86", "88", "36", "51"]) + "".join(rng.choice("0123456789") for _ in range(8))


FIRST = {"en-US": ["John", "Emily", "Michael", "Sarah", "David", "Jessica", "Carlos", "Ashley"],
         "en-GB": ["Oliver", "Amelia", "Harry", "Charlotte", "George", "Isla", "Jack", "Sophie"],
         "en-IN": ["Rahul", "Priya", "Amit", "Neha", "Vikram", "Anjali", "Suresh", "Kavya"],
         "hi-Latn-IN": ["Rohit", "Pooja", "Arjun", "Sneha", "Manoj", "Deepika", "Sanjay", "Ritu"]}
LAST = {"en-US": ["Carter", "Johnson", "Miller", "Garcia", "Brooks", "Nguyen"],
        "en-GB": ["Smith", "Taylor", "Davies", "Evans", "Wilson", "Hughes"],
        "en-IN": ["Sharma", "Verma", "Iyer", "Reddy", "Nair", "Gupta"],
        "hi-Latn-IN": ["Yadav", "Singh", "Mishra", "Chauhan", "Joshi", "Patel"]}
DEVA_NAMES = ["प्रिया शर्मा", "राहुल वर्मा", "अमित कुमार", "सुनीता देवी", "विकास गुप्ता"]
ZH_NAMES = ["张伟", "王芳", "李娜", "刘洋", "陈静", "杨磊"]


def name(loc: str, full: bool = True) -> str:
    f = rng.choice(FIRST[loc])
    return f"{f} {rng.choice(LAST[loc])}" if full else f


def email(loc: str) -> str:
    f, last = rng.choice(FIRST.get(loc, FIRST["en-US"])).lower(), rng.choice(LAST.get(loc, LAST["en-US"])).lower()
    dom = rng.choice(["gmail.com", "yahoo.co.in", "outlook.com", "example.org", "company.co.uk", "163.com"])
    return rng.choice([f"{f}.{last}@{dom}", f"{f}{rng.randint(1, 99)}@{dom}", f"{f}_{last}@{dom}"])


def spoken_email(loc: str) -> str:
    f, last = rng.choice(FIRST.get(loc, FIRST["en-US"])).lower(), rng.choice(LAST.get(loc, LAST["en-US"])).lower()
    return f"{f} dot {last} at {rng.choice(['gmail', 'yahoo', 'outlook'])} dot com"


def amount(loc: str) -> str:
    return {"en-US": f"${rng.randint(5, 999)}.{rng.randint(0, 99):02d}", "en-GB": f"£{rng.randint(5, 500)}",
            "zh-CN": f"{rng.randint(10, 9999)}元"}.get(loc, f"₹{rng.randint(1, 99)},{rng.randint(100, 999)}")


def date() -> str:
    return rng.choice([f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", f"{rng.randint(1, 28)}/{rng.randint(1, 12)}/2026",
                       f"{rng.randint(1, 28)} September 2026"])


def time_() -> str:
    return rng.choice([f"{rng.randint(1, 12)}:{rng.choice(['00', '15', '30', '45'])} {rng.choice(['am', 'pm'])}",
                       f"{rng.randint(8, 20)}:{rng.choice(['00', '30'])}"])


def order_id() -> str:
    return rng.choice([f"order {digits(12)}", f"order number {digits(10, '6789')}", f"ORD-2026-{rng.randint(0, 99999):05d}",
                       f"SC-{rng.randint(1000, 9999)}", f"ticket TK-{rng.randint(10000, 99999)}",
                       f"customer ID {digits(8)}", f"invoice INV-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}",
                       f"tracking number {digits(16, '9')}"])


def addr(loc: str) -> str:
    if loc == "en-US":
        return f"{rng.randint(10, 9999)} {rng.choice(['Maple', 'Oak', 'Elm', 'Sunset', 'Lake Shore'])} " \
               f"{rng.choice(['Street', 'Avenue', 'Drive', 'Road'])}, {rng.choice(['Austin, TX', 'Denver, CO', 'Chicago, IL'])} " \
               f"{rng.randint(10000, 99999)}"
    if loc == "en-GB":
        return f"{rng.randint(1, 300)} {rng.choice(['High', 'Church', 'Station', 'Victoria', 'Baker'])} " \
               f"{rng.choice(['Street', 'Road', 'Lane'])}, {rng.choice(['Leeds LS1 4AP', 'London SW1A 2AA', 'Manchester M1 1AE'])}"
    return f"flat {rng.randint(1, 999)}, {rng.choice(['MG Road', 'Park Street', 'Linking Road', 'Brigade Road'])}, " \
           f"{rng.choice(['Bengaluru', 'Mumbai', 'Pune', 'Delhi'])} {rng.randint(110001, 560099)}"


# ---------------------------------------------------------------- templates: lists of str | (type, value)
def templates(loc: str) -> list:
    T = []
    n = name(loc) if loc in FIRST else None
    if loc == "en-US":
        ph, _ = us_phone()
        T += [["Hi, my name is ", ("person_name", n), " and I'm calling about ", order_id(), "."],
              ["You can reach me at ", ("phone", ph), " any time after ", time_(), "."],
              ["My social is ", ("us_ssn", ssn()), ", and the charge was ", amount(loc), " on ", date(), "."],
              ["Email me at ", ("email", email(loc)), " please, about ", order_id(), "."],
              ["sure it's ", ("email", spoken_email(loc)), ""],
              ["the card number is ", ("payment_card", card(rng.choice(["visa", "mc", "amex"]))), " expiring 09/28"],
              ["I live at ", ("address", addr(loc)), "."],
              ["my number is ", ("phone", spoken(us_phone()[1])), " thanks"],
              ["The router shows ", ("ip_address", ipv4()), " and sometimes ", ("ip_address", ipv6()), "."],
              ["This is ", ("person_name", n.split()[0]), " from Acme billing, your refund of ", amount(loc), " is on the way."],
              ["Your appointment is at ", time_(), " on ", date(), ", reference ", order_id(), "."],
              ["I paid ", amount(loc), " for ", order_id(), " and it still says pending since ", date(), "."],
              ["okay so ", order_id(), " was delivered at ", time_(), " yesterday"]]
    elif loc == "en-GB":
        ph, _ = gb_phone()
        T += [["Hello, my name is ", ("person_name", n), ", calling about ", order_id(), "."],
              ["Best number is ", ("phone", ph), ", ta."],
              ["My NHS number is ", ("uk_nhs", nhs()), " and my appointment is on ", date(), "."],
              ["National Insurance number ", ("uk_nino", nino()), ", yeah."],
              ["I live at ", ("address", addr(loc)), "."],
              ["postcode is ", ("uk_postcode", rng.choice(["SW1A 1AA", "EC1A 1BB", "M1 1AE", "B33 8TH", "CR2 6XH", "LS1 4AP"])), " love"],
              ["Could you send it to ", ("email", email(loc)), "?"],
              ["it's ", ("phone", "oh seven " + spoken(digits(9, "45789")[:1]) + " " + spoken(digits(8))), " if you need me"],
              ["The IBAN is ", ("iban", iban("GB", "WEST" + digits(14, "0123456789"))), ", amount ", amount(loc), "."],
              ["Paid with ", ("payment_card", card("mc")), " on ", date(), " for ", amount(loc), "."],
              ["You're speaking with ", ("person_name", n.split()[0]), ", how can I help?"],
              ["Delivery slot ", time_(), " on ", date(), ", ", order_id(), "."],
              ["It cost ", amount(loc), " and ", order_id(), " arrived at ", time_(), "."]]
    elif loc in ("en-IN", "hi-Latn-IN"):
        ph, raw = in_phone()
        if loc == "en-IN":
            T += [["Hi, my name is ", ("person_name", n), " and my registered mobile is ", ("phone", ph), "."],
                  ["My Aadhaar number is ", ("in_aadhaar", aadhaar()), ", please update it."],
                  ["PAN is ", ("in_pan", pan()), " for the invoice of ", amount(loc), "."],
                  ["You can pay on UPI ", ("in_upi", f"{n.split()[0].lower()}{rng.randint(1, 99)}@ok{rng.choice(['axis', 'hdfcbank', 'sbi'])}"), "."],
                  ["Deliver it to ", ("address", addr(loc)), "."],
                  ["the number is ", ("phone", spoken(raw)), " only"],
                  ["email id is ", ("email", email(loc)), ", ", order_id(), "."],
                  ["card ", ("payment_card", card(rng.choice(["visa", "rupay"]))), " was charged ", amount(loc), "."],
                  ["I am ", ("person_name", n.split()[0]), " calling regarding ", order_id(), "."],
                  ["The technician will come at ", time_(), " on ", date(), ", charge ", amount(loc), "."],
                  ["my ", order_id(), " of ", amount(loc), " is stuck since ", date(), "."],
                  ["it's ", ("email", spoken_email(loc)), " sir"],
                  ["server IP is ", ("ip_address", ipv4()), "."]]
        else:
            T += [["Namaste, mera naam ", ("person_name", n), " hai, mera number ", ("phone", ph), " hai."],
                  ["Mera Aadhaar ", ("in_aadhaar", aadhaar(rng.random() < 0.6)), " hai, update kar dijiye."],
                  ["PAN card ", ("in_pan", pan()), " hai, ", amount(loc), " ka refund chahiye."],
                  ["UPI id ", ("in_upi", f"{n.split()[0].lower()}@ok{rng.choice(['axis', 'icici', 'sbi'])}"), " pe bhej do."],
                  ["Address hai ", ("address", addr(loc)), ", wahan bhejna."],
                  ["number note kijiye ", ("phone", spoken(raw, HI_WORDS)), " bas"],
                  ["mera number ", ("phone", spoken(raw)), " hai"],
                  ["Haan, mera inverter kal se off hai, ", order_id(), ". Charge ", amount(loc), " hoga."],
                  ["Kal ", time_(), " ka slot book kar doon? ", date(), " ko aayega."],
                  ["email ", ("email", email(loc)), " pe bhej dijiye."],
                  ["SunCare Solar se ", ("person_name", n.split()[0]), " bol rahi hoon, ", order_id(), " check karti hoon."],
                  ["card ", ("payment_card", card("visa")), " se payment kiya tha ", amount(loc), "."],
                  ["Ek minute, ", order_id(), " dekh raha hoon, ", amount(loc), " pending hai."]]
    elif loc == "hi-IN":
        _, raw = in_phone()
        T += [["नमस्ते, मेरा नाम ", ("person_name", rng.choice(DEVA_NAMES)), " है।"],
              ["मेरा मोबाइल नंबर ", ("phone", raw), " है।"],
              ["मेरा आधार ", ("in_aadhaar", aadhaar()), " है।"],
              ["मेरा नंबर ", ("phone", spoken(raw, DEVA_WORDS)), " है"],
              ["ईमेल ", ("email", email("en-IN")), " पर भेज दीजिए।"],
              ["पैन ", ("in_pan", pan()), " है और रिफंड ", amount(loc), " का है।"],
              ["मेरा पता है ", ("address", addr("en-IN")), "।"],
              ["आपका ", order_id(), " ", date(), " को डिलीवर होगा, राशि ", amount(loc), "।"],
              ["टेक्नीशियन ", time_(), " बजे आएगा, ", order_id(), "।"],
              ["UPI ", ("in_upi", f"{rng.choice(FIRST['en-IN']).lower()}@ybl"), " पर भेजिए।"],
              ["कार्ड ", ("payment_card", card("rupay")), " से भुगतान किया।"],
              ["मैं ", ("person_name", rng.choice(DEVA_NAMES)), " बोल रही हूँ।"]]
    else:  # zh-CN
        mob = cn_phone()
        T += [["您好，我叫", ("person_name", rng.choice(ZH_NAMES)), "，想查一下订单。"],
              ["我的手机号是", ("phone", mob), "，谢谢。"],
              ["手机号", ("phone", "".join(ZH_DIG[int(c)] for c in cn_phone())), "，麻烦回电。"],
              ["我的身份证号是", ("cn_resident_id", cn_id()), "。"],
              ["我住在", ("address", rng.choice(["北京市朝阳区建国路", "上海市浦东新区世纪大道", "广州市天河区天河路", "成都市武侯区人民南路"]) + f"{rng.randint(1, 300)}号"), "。"],
              ["邮箱是", ("email", email("en-US")), "。"],
              ["订单号", digits(12), "，金额", amount(loc), "，", date(), "下单。"],
              ["师傅", time_(), "到，", amount(loc), "上门费。"],
              ["我是", ("person_name", rng.choice(ZH_NAMES)), "，", order_id(), "还没到。"],
              ["银行卡", ("payment_card", card("visa")), "扣了", amount(loc), "。"],
              ["客户号", digits(8), "，", date(), "的工单。"],
              ["服务器地址是", ("ip_address", ipv4()), "。"]]
    return T


def build() -> list[dict]:
    rows = []
    per_locale = 60
    for loc in ("en-US", "en-GB", "en-IN", "hi-Latn-IN", "hi-IN", "zh-CN"):
        k = 0
        while k < per_locale:
            for tpl in templates(loc):
                if k >= per_locale:
                    break
                text, spans = "", []
                for part in tpl:
                    if isinstance(part, tuple):
                        spans.append({"start": len(text), "end": len(text) + len(part[1]), "type": part[0]})
                        text += part[1]
                    else:
                        text += part
                rows.append({"id": f"{loc}-{k:03d}", "locale": loc, "text": text, "spans": spans})
                k += 1
    return rows


if __name__ == "__main__":
    rows = build()
    with open(OUT, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} utterances to {OUT}")
