"""Placeholders spoken as surrogates: <PHONE_1> is heard as a realistic but fake phone number.

The record's text keeps its placeholders; only the audio says a value, drawn for the placeholder's
type and the record's locale from ranges reserved for fiction or testing where such ranges exist
(Ofcom's drama numbers, 555-01xx, TEST-NET addresses, example.com, QQ national insurance numbers,
NHS 999 numbers, test card numbers), else from fixed lists and invalid-by-construction patterns. A type
a pack file declares (national_ids, postcodes) is spoken as the `surrogate` its declaration gives.
The same placeholder gets the same surrogate within a conversation (seeded by conversation id and
placeholder), so "<PER_1> ... <PER_1>" is one person. No value is real, so the surrogate map is not
PII; it is still kept in the private work area (docs/synth.md).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass

from ..locales.registry import PACKS
from ..pii.placeholders import PLACEHOLDER_RE as PLACEHOLDER  # numbered and unnumbered, defined once

FIRST = {
    "en-GB": (
        "Oliver",
        "Amelia",
        "Harry",
        "Isla",
        "George",
        "Ava",
        "Noah",
        "Mia",
        "Jack",
        "Freya",
        "Arthur",
        "Poppy",
        "Leo",
        "Evie",
        "Oscar",
        "Grace",
    ),
    "en-US": (
        "Liam",
        "Olivia",
        "Ethan",
        "Emma",
        "Mason",
        "Sophia",
        "Logan",
        "Harper",
        "Lucas",
        "Ella",
        "Carter",
        "Avery",
        "Wyatt",
        "Chloe",
        "Owen",
        "Riley",
    ),
    "en-IN": (
        "Aarav",
        "Ananya",
        "Vihaan",
        "Diya",
        "Arjun",
        "Ishita",
        "Kabir",
        "Meera",
        "Rohan",
        "Saanvi",
        "Aditya",
        "Kavya",
        "Ishaan",
        "Tara",
        "Nikhil",
        "Pooja",
    ),
    "zh-CN": ("伟", "芳", "娜", "敏", "静", "磊", "洋", "艳", "勇", "军", "杰", "娟"),
}
LAST = {
    "en-GB": ("Hughes", "Patel", "Walsh", "Clarke", "Lloyd", "Bennett", "Fletcher", "Marsh", "Pearson", "Rowe"),
    "en-US": ("Bishop", "Carver", "Delgado", "Ellison", "Foster", "Garrison", "Holt", "Irwin", "Keller", "Lowry"),
    "en-IN": ("Sharma", "Iyer", "Reddy", "Nair", "Kapoor", "Mehta", "Bose", "Joshi", "Kulkarni", "Menon"),
    "zh-CN": ("王", "李", "张", "刘", "陈", "杨", "赵", "黄"),
}
STREETS = {
    "en-GB": ("Mill Lane", "Station Road", "Church Street", "Orchard Close", "Victoria Road", "Park Avenue"),
    "en-US": ("Maple Street", "Oak Avenue", "Cedar Lane", "Elm Street", "Lakeview Drive", "Pine Road"),
    "en-IN": ("MG Road", "Nehru Nagar", "Gandhi Marg", "Lake View Road", "Shanti Path", "Park Street"),
    "zh-CN": ("人民路", "解放路", "中山路", "建设路"),
}
TOWNS = {
    "en-GB": ("Ashford", "Kendal", "Ludlow", "Thirsk", "Wells"),
    "en-US": ("Springfield", "Fairview", "Riverton"),
    "en-IN": ("Pune", "Mysuru", "Indore", "Nashik"),
    "zh-CN": ("杭州", "成都", "苏州"),
}
ORGS = ("Northwind Traders", "Contoso", "Fabrikam", "Tailspin Toys", "Wide World Importers", "Litware")
UPPER = "ABCDEFGHJKLMNPRSTUVWXYZ"


def _pack(locale: str) -> str:
    if locale in FIRST:
        return locale
    return "en-IN" if locale.endswith("-IN") else "zh-CN" if locale.startswith("zh") else "en-GB"


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(n))


def _phone(rng: random.Random, loc: str) -> str:
    if loc == "en-GB":
        return f"07700 900{rng.randrange(1000):03d}"  # Ofcom: reserved for drama
    if loc == "en-US":
        return f"{rng.choice(('202', '312', '415'))}-555-01{rng.randrange(100):02d}"  # 555-0100..0199: fictional
    if loc == "en-IN":
        return f"98765 0{_digits(rng, 4)}"  # no reserved range in India: a fixed fake prefix (docs/synth.md)
    return f"138 0000 {_digits(rng, 4)}"


def _name(rng: random.Random, loc: str) -> str:
    first, last = rng.choice(FIRST[loc]), rng.choice(LAST[loc])
    return f"{last}{first}" if loc == "zh-CN" else f"{first} {last}"


def _address(rng: random.Random, loc: str) -> str:
    if loc == "zh-CN":
        return f"{rng.choice(TOWNS[loc])}{rng.choice(STREETS[loc])}{rng.randrange(1, 300)}号"
    return f"{rng.randrange(2, 180)} {rng.choice(STREETS[loc])}, {rng.choice(TOWNS[loc])}"


def _code(rng: random.Random, letters: int, digits: int, sep: str = "-") -> str:
    return "".join(rng.choice(UPPER) for _ in range(letters)) + sep + _digits(rng, digits)


GENERATORS: dict[str, Callable[[random.Random, str], str]] = {
    "PHONE": _phone,
    "PER": _name,
    "PERSON": _name,
    "EMAIL": lambda r, loc: f"{r.choice(FIRST['en-GB']).lower()}.{r.choice(LAST['en-GB']).lower()}@example.com",
    "ADDR": _address,
    "ADDRESS": _address,
    "POSTCODE": lambda r, loc: f"ZZ99 {r.randrange(10)}{r.choice(UPPER)}{r.choice(UPPER)}",  # NHS pseudo-postcode
    "CARD": lambda r, loc: r.choice(("4111 1111 1111 1111", "5555 5555 5555 4444", "4000 0566 5566 5556")),
    "IBAN": lambda r, loc: "GB82 WEST 1234 5698 7654 32",  # the standard documentation example
    "IP": lambda r, loc: f"192.0.2.{r.randrange(1, 255)}",  # TEST-NET-1
    "SSN": lambda r, loc: f"987-65-432{r.randrange(10)}",  # reserved for advertising
    "NINO": lambda r, loc: f"QQ {_digits(r, 2)} {_digits(r, 2)} {_digits(r, 2)} {r.choice('ABCD')}",  # QQ: never issued
    "NHS": lambda r, loc: f"999 {_digits(r, 3)} {_digits(r, 4)}",  # 999: test numbers
    "AADHAAR": lambda r, loc: f"1{_digits(r, 3)} {_digits(r, 4)} {_digits(r, 4)}",  # never starts with 1
    "PAN": lambda r, loc: "".join(r.choice(UPPER) for _ in range(3)) + "P" + r.choice(UPPER) + _digits(r, 4) + "Z",
    "UPI": lambda r, loc: f"{r.choice(FIRST['en-IN']).lower()}{_digits(r, 2)}@examplebank",
    "CN_ID": lambda r, loc: f"999999 {1960 + r.randrange(40)}0101 {_digits(r, 4)}",  # region 999999: none
    "ORG": lambda r, loc: r.choice(ORGS),
    "ID": lambda r, loc: _code(r, 2, 5),
    "URL": lambda r, loc: f"example.com/{_code(r, 1, 4, '')}",
    "DATE": lambda r, loc: f"{r.randrange(1, 28)} {r.choice(('March', 'June', 'October'))}",
    "SECRET": lambda r, loc: _code(r, 3, 3),
}


def declared_surrogate(kind: str, locale: str) -> str | None:
    """The fake value a pack file declares for placeholders of `kind` (its national_ids or postcodes entry's
    `surrogate`): the record's own pack first, then any registered pack; None when none declares one."""
    own = PACKS.get(locale)
    for pack in (own, *PACKS.values()):
        if pack is not None and pack.rules is not None and kind in pack.rules.surrogates:
            return pack.rules.surrogates[kind]
    return None


def _spoken(kind: str, value: str) -> str:
    """How a value is said: numbers and codes digit by digit and letter by letter, as people read them out."""
    if kind in ("PER", "PERSON", "ADDR", "ADDRESS", "ORG", "DATE"):
        return value
    if kind == "EMAIL":
        return value.replace("@", " at ").replace(".", " dot ")
    if kind == "URL":
        return value.replace(".", " dot ").replace("/", " slash ")
    out = []
    for ch in value:
        if ch.isdigit() or ch.isupper():
            out.append(ch)
        elif ch in " -":
            out.append(",")
        elif ch == "@":
            out.append("at")
        elif ch == ".":
            out.append("dot")
        else:
            out.append(ch)
    return " ".join(out).replace(" , ", ", ").replace(", ,", ",")


@dataclass(frozen=True)
class Surrogate:
    placeholder: str
    kind: str
    value: str  # the fake value as written
    spoken: str  # what the engine is given


class Surrogates:
    """One conversation's placeholder -> surrogate map, filled as turns are spoken."""

    def __init__(self, conv_id: str, locale: str, seed: int = 0) -> None:
        self.conv_id, self.locale, self.seed = conv_id, _pack(locale), seed
        self.record_locale = locale
        self.map: dict[str, Surrogate] = {}

    def get(self, placeholder: str, kind: str) -> Surrogate:
        sur = self.map.get(placeholder)
        if sur is None:
            h = hashlib.sha256(f"{self.seed}\x1f{self.conv_id}\x1f{placeholder}".encode()).digest()
            rng = random.Random(int.from_bytes(h[:8], "big"))
            gen = GENERATORS.get(kind)
            declared = None if gen is not None else declared_surrogate(kind, self.record_locale)
            value = gen(rng, self.locale) if gen is not None else declared or _code(rng, 2, 4)
            sur = self.map[placeholder] = Surrogate(placeholder, kind, value, _spoken(kind, value))
        return sur

    def speak(self, text: str) -> tuple[str, list[tuple[int, int, int, int, Surrogate]]]:
        """The text to synthesize and, per placeholder, (text start, text end, spoken start, spoken end, surrogate)."""
        parts: list[str] = []
        spans: list[tuple[int, int, int, int, Surrogate]] = []
        pos = out = 0
        for m in PLACEHOLDER.finditer(text):
            parts.append(text[pos : m.start()])
            out += m.start() - pos
            sur = self.get(m.group(0), m.group(1))
            parts.append(sur.spoken)
            spans.append((m.start(), m.end(), out, out + len(sur.spoken), sur))
            out += len(sur.spoken)
            pos = m.end()
        parts.append(text[pos:])
        return "".join(parts), spans


def to_text_offset(spoken_pos: int, spans: list[tuple[int, int, int, int, Surrogate]]) -> int:
    """A character offset in the spoken text -> the offset in the record's text (inside a surrogate: its
    placeholder's start)."""
    shift = 0
    for t0, t1, s0, s1, _ in spans:
        if spoken_pos < s0:
            break
        if spoken_pos < s1:
            return t0
        shift = t1 - s1
    return spoken_pos + shift
