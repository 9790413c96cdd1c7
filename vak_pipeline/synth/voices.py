"""Which voice speaks for whom: a voice per speaker, chosen per locale, varied across conversations.

A voice is an espeak-ng accent (the language voice of the locale, e.g. en-GB-x-rp), a variant (+m3,
+f2), a pitch and a speaking rate; its id names all four, so two ids never sound alike. The voices of
a locale are dealt into `voice_groups` disjoint pools; a conversation draws one pool (by its agent's
speaker id when the text names one, else by its conversation id, seeded), takes the pool's agent
voice and one of its user voices. Pools never share a voice, so conversations that share a voice are
in one pool, and the speaker-disjoint split can still spread the pools over train/validation/test
(a voice drawn from one big shared pool would tie every conversation into one component).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from ..schema.record import VakRecord
from .settings import SynthSettings

# the locale's accents in espeak-ng's voice data (file names under espeak-ng-data/lang)
ACCENTS: dict[str, tuple[str, ...]] = {
    "en-GB": ("en", "en-GB-x-rp", "en-GB-x-gbclan"),
    "en-US": ("en-US",),
    "en-IN": ("en", "en-GB-x-rp"),  # espeak-ng has no Indian English voice
    "hi-Latn-IN": ("hi",),  # Roman Hindi: espeak reads Latin script with English rules (docs/synth.md)
    "hi-IN": ("hi",),
    "zh-CN": ("cmn",),
}
# a turn in another language than the speaker's accent: the speaker keeps its variant, pitch and rate
LANGUAGE_VOICES: dict[str, str] = {
    "en": "en",
    "en-GB": "en",
    "en-US": "en-US",
    "en-IN": "en",
    "hi": "hi",
    "hi-Latn": "hi",
    "zh": "cmn",
    "zh-CN": "cmn",
    "zh-Hans": "cmn",
}
# the variants tiny.en understands best (bench/bench_synth.py); f1 and f3 read worse, m5/m8 and the named
# variants (klatt, whisper, croak ...) are effects rather than voices
VARIANTS = ("m1", "m2", "m3", "m4", "m6", "m7", "f2", "f4", "f5")
PITCHES = (40, 50, 60)
RATE_OFFSETS = (-10, 0, 10)


@dataclass(frozen=True)
class Voice:
    id: str
    accent: str
    variant: str
    pitch: int
    rate: int
    model: str | None = None  # piper: the local .onnx file
    speaker: int | None = None  # piper: speaker id in a multi-speaker model

    def language_voice(self, lang: str | None) -> str:
        """The espeak language voice for a turn in `lang`: the speaker's accent when the language matches."""
        if not lang:
            return self.accent
        base = lang.split("-")[0]
        accent_base = LANGUAGE_VOICES.get(self.accent, self.accent).split("-")[0]
        if base == accent_base or (base == "zh" and self.accent == "cmn"):
            return self.accent
        return LANGUAGE_VOICES.get(lang, LANGUAGE_VOICES.get(base, self.accent))


def _h(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


def espeak_table(locale: str, settings: SynthSettings) -> list[Voice]:
    """Every voice of a locale, in a seeded order (the order the pools are dealt from)."""
    accents = ACCENTS.get(locale) or ACCENTS.get(locale.split("-")[0] + "-" + locale.split("-")[-1]) or ("en",)
    table = [
        Voice(f"espeak-ng:{a}+{v}:p{p}:r{settings.rate_wpm + r}", a, v, p, settings.rate_wpm + r)
        for a in accents
        for v in VARIANTS
        for p in PITCHES
        for r in RATE_OFFSETS
    ]
    random.Random(_h("voices", settings.seed, locale)).shuffle(table)
    return table


def assign_voices(record: VakRecord, settings: SynthSettings, table: list[Voice]) -> dict[str, Voice]:
    """The agent's and the user's voice for one conversation (see the module docstring)."""
    per_group = 1 + settings.users_per_group
    groups = max(1, min(settings.voice_groups, len(table) // per_group))
    known = record.meta.speakers or {}
    g = _h("group", settings.seed, known.get("agent") or record.id) % groups
    pool = table[g * per_group : (g + 1) * per_group]
    agent = pool[0]
    users = pool[1:] or pool
    user = users[_h("user", settings.seed, known.get("user") or record.id) % len(users)]
    return {"agent": agent, "user": user}
