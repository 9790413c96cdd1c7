"""Per-turn language ID, code-switch aware (format doc: "turns[].lang ... via the locale pack's detect_lang").

Why not an off-the-shelf detector: none has a Romanized-Hindi label (they answer tl/sw/so for Hinglish),
and short turns ("okay", "haan") defeat them all (notes/pii-lid.md §B1). So, in order:

1. Script decides first, exactly and for free: Devanagari -> "hi", Han -> "zh" (whichever script holds
   more of the turn when several appear, counting a Han character as one unit and a word as one).
2. Latin script in a pack with `romanized_hindi` (en-IN, hi-Latn-IN, hi-IN): token votes from two small
   lexicons, frequent Romanized-Hindi function words/verbs (with spelling variants) against frequent
   English function words. Words that are also English ("to", "the", "main", "do", "par", "me", "hi",
   "is", "us", ...) count little for Hindi, so an English sentence is not read as Hindi (§B4). Content
   words ("refund", "order") are neutral: Hinglish borrows them freely, so the grammar words decide
   the matrix language.
3. Turns shorter than 3 words fall back to the conversation's language: "okay" in a Hinglish call is
   Hinglish speech. Script still wins for them ("हाँ" is Hindi whatever the call).

4. Packs whose file sets `lid: {detector: lingua, languages: [nl, en]}` (the European packs): after the
   script and short-turn steps, lingua (a well-kept detector that ships its models in the wheel) chooses
   among the pack's languages only, so a Dutch chat that switches to English is tagged turn by turn and
   never as a language the pack does not speak.

Returned tags are the pack's: "en" (or the pack's English tag), "hi-Latn", "hi", "zh", "nl", "de" ...
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .base import LocalePack

if TYPE_CHECKING:
    from ..schema.record import Language, VakRecord

MIN_TOKENS = 3

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)
_DEVANAGARI = re.compile(r"[\u0900-\u097F\uA8E0-\uA8FF]")
_HAN = re.compile(r"[\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF]")
_DEVA_WORD = re.compile(r"[\u0900-\u097F\uA8E0-\uA8FF]+")
_LATIN_WORD = re.compile(r"[A-Za-z\u00C0-\u024F]+(?:'[A-Za-z]+)?")

# Frequent Romanized-Hindi words: pronouns, postpositions, auxiliaries, common verbs/particles, with the
# spellings people actually type. Weight 1 = not an English word.
_HINDI = set("""
hai hain he hei ho hoga hogi honge hua hui hue hun hoon hu hoo tha thi thay the thhe
nahi nahin nahee nai nhi na mat
kya kyaa kyu kyun kyon kaise kaisa kaisi kab kahan kaha kidhar kaun kaunsa kaunse kitna kitni kitne
mera meri mere mujhe muje mujhko mere mai main mein me maine humne hum hamara hamari hamare humein hume
aap aapka aapki aapke aapko aapne ap apka apki apke apko apna apni apne tum tumhara tumhe tera teri tu
woh wo vo voh ye yeh yah is us unka unki unke uska uski uske iska iski iske inhe unhe usne isne usse isse
ka ki ke ko se par pe tak liye wala wali wale waala
kar karo karna karke karta karti karte kiya kiye ki kijiye karein karun karunga karungi kar
raha rahi rahe rha rhi gaya gayi gaye gya gyi jayega jaega jayegi jaegi jaata jata jati jaate jaana jana
aa aaya aayi aaye aaega aayega aayegi aana aata aati aate lag laga lagi lage lagega lagta lagti
de do dena diya diye dijiye dekh dekho dekhiye dekha dekhti dekhte dekhna bata batao bataiye batana bataya
sakte sakti sakta sake chahiye chahte chahti chahta chahein mil mila mili milega milegi milta
bol bolo bola boli bolte boliye bolna sun suno suniye samajh samjha samjhe
haan ha han ji jee theek thik thek accha achha acha achchha bilkul shukriya dhanyavaad dhanyawad namaste
abhi aaj kal parson pehle pahle baad phir fir bhi toh to hi sirf bas bahut bohot zyada jyada thoda thodi
kuch koi sab sabhi aur ya lekin par magar kyunki isliye agar jab tab tabhi jabki yahan wahan idhar udhar
ek do teen chaar paanch din mahina mahine saal ghar paisa paise log wapas waapas
yaar bhaiya bhai didi madam ji sahab arre arey achha haanji
""".split())

# Romanized-Hindi words that are also common English words: they count for little as Hindi evidence.
_HOMOGRAPHS = {"to", "the", "main", "do", "par", "me", "hi", "is", "us", "he", "ye", "na", "bus", "sun",
               "mat", "log", "tab", "jab", "aa", "ha", "han", "bas", "mil", "din", "de", "ya", "pe", "mai", "hum"}
_HOMOGRAPH_WEIGHT = 0.2

_ENGLISH = set("""
i i'm i've i'll i'd im you you're your yours we our us they them their he she his her it its it's
this that these those there here what which who whom whose when where why how
a an the is are was were be been being am do does did done doing have has had having
to of in on at for with from by about into over after before under between through during
and or but if so because than then also just only very too not no yes
can could will would shall should may might must please thank thanks sorry okay ok hello hi
my me mine get got want need like know think see let make take give tell call called calling
one two three four five six seven eight nine ten twenty first last next same other
all any some every each more most much many few still already again now today yesterday tomorrow
morning afternoon evening week month day time
sure right well good great fine done since ago back up out down off
""".split())


def _script_counts(text: str) -> tuple[int, int, int]:
    """(Devanagari words, Han characters, Latin words) of `text`."""
    return len(_DEVA_WORD.findall(text)), len(_HAN.findall(text)), len(_LATIN_WORD.findall(text))


def _pack_tag(pack: LocalePack, base: str) -> str:
    """The tag the pack uses for a base language ("en" -> "en", "zh" -> "zh" ...)."""
    if base in pack.languages:
        return base
    for lang in pack.languages:
        if lang.split("-")[0] == base and lang != "hi-Latn":
            return lang
    return base


def hindi_english_scores(text: str) -> tuple[float, float]:
    """Lexicon votes of a Latin-script text: (Romanized-Hindi evidence, English evidence)."""
    h = e = 0.0
    for tok in _LATIN_WORD.findall(text.lower()):
        if tok in _HINDI:
            h += _HOMOGRAPH_WEIGHT if tok in _HOMOGRAPHS else 1.0
        if tok in _ENGLISH:
            e += 1.0
    return h, e


def _base(tag: str | None) -> str | None:
    if not tag:
        return None
    return "hi-Latn" if tag.startswith("hi-Latn") else tag.split("-")[0]


@functools.lru_cache(maxsize=16)
def _lingua(codes: tuple[str, ...]):  # noqa: ANN202 - lingua's detector type, imported lazily
    """A lingua detector restricted to `codes` (ISO 639-1), built once per language set."""
    from lingua import IsoCode639_1, LanguageDetectorBuilder

    isos = [getattr(IsoCode639_1, c.upper()) for c in codes]
    return LanguageDetectorBuilder.from_iso_codes_639_1(*isos).build()


_WORDS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def matrix_language(pack: LocalePack, text: str) -> str | None:
    """The language whose closed-class words hold the turn ("Vous pouvez checker si mon refund est bien
    processed?" is French with English insertions): at least two of them, twice any other language's.
    None when the grammar words do not decide (lingua then reads the whole turn)."""
    if not pack.lid_function_words:
        return None
    words = [w.lower() for w in _WORDS.findall(text)]
    counts = sorted(((sum(w in fw for w in words), lang) for lang, fw in pack.lid_function_words.items()),
                    reverse=True)
    (top, lang), second = counts[0], (counts[1][0] if len(counts) > 1 else 0)
    return lang if top >= 2 and top >= 2 * second else None


def lingua_lang(pack: LocalePack, text: str) -> str | None:
    """The pack tag lingua picks among the pack's `lid_languages`, or None when it cannot tell."""
    codes = pack.lid_languages
    if len(codes) < 2:
        return _pack_tag(pack, codes[0]) if codes else None
    if (matrix := matrix_language(pack, text)) is not None:
        return _pack_tag(pack, matrix)
    found = _lingua(tuple(sorted(codes))).detect_language_of(text)
    return _pack_tag(pack, found.iso_code_639_1.name.lower()) if found is not None else None


def detect_lang(pack: LocalePack, text: str, fallback: str | None = None) -> str:
    """Language tag of one turn's text under `pack`; `fallback` is the conversation's language."""
    fallback = fallback or pack.default_lang
    text = text or ""
    deva, han, latin = _script_counts(text)
    if deva or han:
        # the script holding most of the turn wins; Latin words inside (borrowed nouns) do not flip it
        if deva >= han and deva * 2 >= latin:
            return _pack_tag(pack, "hi")
        if han > deva and han * 2 >= latin:
            return _pack_tag(pack, "zh")
    n_tokens = len(_WORD.findall(text))
    if n_tokens < MIN_TOKENS:
        return fallback
    if not latin:
        return fallback
    if pack.lid_detector == "lingua":
        return lingua_lang(pack, text) or fallback
    if not pack.romanized_hindi:
        return _pack_tag(pack, "en") if "en" in {_base(x) for x in pack.languages} else fallback
    h, e = hindi_english_scores(text)
    if h == e:
        fb = _base(fallback)
        return fallback if fb in ("en", "hi-Latn") else _pack_tag(pack, "en")
    return "hi-Latn" if h > e else _pack_tag(pack, "en")


def _primary_tag(pack: LocalePack, lang: str) -> str:
    """BCP-47 primary for a turn tag: English/Chinese take the pack's region (en-IN, zh-CN)."""
    base = lang.split("-")[0]
    if lang == "hi-Latn" or base == "hi":
        return lang
    if base in ("en", "zh") and pack.id.split("-")[0] == base and pack.id.count("-") == 1:
        return pack.id
    return lang


def language_summary(turn_langs: Iterable[str | None], pack: LocalePack) -> Language:
    """Language(primary = most common turn language as BCP-47, mix = sorted base languages present)."""
    from ..schema.record import Language

    counts = Counter(lang for lang in turn_langs if lang)
    if not counts:
        return Language(primary=_primary_tag(pack, pack.default_lang), mix=[pack.default_lang.split("-")[0]])
    primary = counts.most_common(1)[0][0]
    mix = sorted({lang.split("-")[0] for lang in counts})
    return Language(primary=_primary_tag(pack, primary), mix=mix)


def conversation_lang(pack: LocalePack, texts: Iterable[str]) -> str:
    """The language most long turns are in: the fallback for short ones."""
    return _vote(pack, _voting_tags(pack, texts))


def _voting_tags(pack: LocalePack, texts: Iterable[str]) -> list[str | None]:
    """Per text, its tag under the pack's default when it is long enough to vote, else None."""
    return [detect_lang(pack, text, pack.default_lang) if len(_WORD.findall(text or "")) >= MIN_TOKENS else None
            for text in texts]


def _vote(pack: LocalePack, tags: list[str | None]) -> str:
    votes = Counter(tag for tag in tags if tag is not None)
    return votes.most_common(1)[0][0] if votes else pack.default_lang


def tag_languages(record: VakRecord, overwrite: bool = False) -> VakRecord:
    """Set `lang` on every spoken turn (those without one, or all when `overwrite`) and `record.language`.

    Used for transcripts and for every text source, so a turn is tagged the same way wherever it came
    from. A record whose locale names no registered pack is returned unchanged (validation reports it).
    """
    from .registry import PACKS

    pack = PACKS.get(record.locale)
    if pack is None:
        return record
    spoken = [t for t in record.turns if t.is_spoken]
    voted = _voting_tags(pack, [t.text or "" for t in spoken])
    fallback = _vote(pack, voted)
    # a long turn's tag under the conversation's fallback is its vote when that fallback is the pack's default
    known = {id(t): tag for t, tag in zip(spoken, voted, strict=True)} if fallback == pack.default_lang else {}
    turns = []
    for t in record.turns:
        if t.is_spoken and t.text and (overwrite or not t.lang):
            lang = known.get(id(t)) or detect_lang(pack, t.text, fallback)
            t = t.model_copy(update={"lang": lang})
        turns.append(t)
    langs = [t.lang for t in turns if t.is_spoken]
    return record.model_copy(update={"turns": turns, "language": language_summary(langs, pack)})
