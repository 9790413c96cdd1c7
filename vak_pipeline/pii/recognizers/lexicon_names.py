"""Person names without a cue phrase: a token scan against first/last-name lists (pii/name_table.py) with context.

One pass over the words of a text, a set lookup per word, no model call. A name is taken when the
words *and* their surroundings say so, because many names are ordinary words ("will", "may", "grace",
"bill", "mark"; Hinglish "das", "pal") and ASR text is often lower case:

- two or three adjacent name words (first + last) where at least one is not an ordinary word:
  "yeah it's rahul sharma", "grace patel"; two ordinary words ("mark green") need a cue or capitals;
- one name word with context: a title before ("mr", "shri", "smt", "dr"), an honorific after
  ("ji", "sahab", "sir", "madam"), a greeting or an introduction before ("thanks priya", "it's
  ankit", "speak to rohan"), "here"/"speaking"/"this side" after, or the name alone at a reply start;
- in cased text, a capitalised name word inside a sentence ("I spoke to Deepa yesterday");
- Devanagari: names from the list, or any word after श्री/श्रीमती/कुमारी, or a listed name before जी;
- Chinese: a common surname + a listed given name (王美玲), a surname + title (李先生, 张伟女士), or
  a surname after 姓/收件人/联系人, or 小/老 + surname as a whole reply (小王，...).

Which countries' lists a pack uses, and how deep, is the pack file's `name_countries`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...locales import lid

if TYPE_CHECKING:
    from ...locales.base import LocalePack
from ..name_table import NameLexicon, lexicon
from .base import DEVA_STOP as _DEVA_STOP
from .base import DEVA_TOKEN, LATIN_LETTER, Match, context_words, latin_words, literal_alt
from .base import ZH_SURNAMES as _ZH_SURNAMES
from .names import STOP

# A pack's (own countries, others whose top names also occur there) come from its pack file
# (`name_countries`); ranks are kept for each. A pack without them uses every list at the secondary depth.
DEFAULT_COUNTRIES: tuple[tuple[str, ...], tuple[str, ...]] = (("US", "GB", "IN", "CN"), ())
PRIMARY_RANK, SECONDARY_RANK = 5000, 1000

# The words around a name are `name_context.<lang>.<role>` of the built-in packs with `shared_cues: true`
# (en-US, hi-Latn-IN, hi-IN, zh-CN), in one script: "latin", "deva" (Devanagari) or "han" (base.context_words).
# The words that may open a reply before a name ("yeah", "haan"): `fillers` in en-US and hi-Latn-IN.
_FILLERS = frozenset(context_words("fillers"))
# "naam"/"name" and the labels of a form's name field ("Applicant:", "Caller name -"): after one a name may
# follow a question mark, a colon or a dash ("aapka naam? charulata iyer")
_NAME_WORDS = frozenset(context_words("name_words"))
_LABEL_MARKS = ("?", ":", "-")
# People named by their relation to the speaker ("my colleague", "our technician"): after one, behind a
# determiner (`not_before`: my, our, the), a word in no list is a name like after a strong cue.
_RELATIONS = frozenset(context_words("relations"))
# After a name-like word, one of these makes it a brand's ("Jio Fiber", "Sky support"): `organisation`.
_ORG = frozenset(context_words("organisation"))
# After a name that opens a reply, these introduce the speaker ("zoé here", "theodore speaking"): `introduces`.
_INTRODUCES = frozenset(context_words("introduces"))


# The words around a name are data (name_context in the pack files): titles, words just before one
# ("hi", "with", "this is", "naam hai") or after ("ji", "said"); the strong ones also take an unknown word.
_TITLES = frozenset(context_words("titles"))
_CUE_PREV = frozenset(w for w in context_words("before") if " " not in w)
_CUE_PREV2 = frozenset(w for w in context_words("before") if " " in w)
_CUE_NEXT = frozenset(w for w in context_words("after") if " " not in w)
_CUE_NEXT2 = frozenset(w for w in context_words("after") if " " in w)  # "this side"
# Cues strong enough that an unknown word (in no name list, no English or Hindi word) is taken as a name:
# "it's jocelyn okafor", "mr kowalczyk", "menon ji".
_STRONG_PREV = frozenset(w for w in context_words("strong_before") if " " not in w)
_STRONG_PREV2 = frozenset(w for w in context_words("strong_before") if " " in w)
_STRONG_NEXT = frozenset(w for w in context_words("strong_after") if " " not in w)
_STRONG_NEXT2 = frozenset(w for w in context_words("strong_after") if " " in w)  # "se baat", "ne bola"
_TRIGGERS = _TITLES | _STRONG_PREV | _STRONG_NEXT
# strong cues the word set cannot see (a space or an apostrophe inside): "speak to", "it's"
_QUICK_PHRASES_RE = re.compile(literal_alt(sorted(
    _STRONG_PREV2 | _STRONG_NEXT2 | {w for w in context_words("strong_before") if "'" in w})))  # (only searched for)
_CUE_WORDS = _CUE_PREV | _CUE_NEXT | _FILLERS
_CUE_SET = frozenset(w for w in _CUE_PREV | _CUE_NEXT if "'" not in w)
_NOT_PREV = frozenset(context_words("not_before"))  # "the will", "my bill"
_DETERMINERS = frozenset(context_words("determiners"))  # "the Reuben", "my Dell laptop": a thing, not a person
_PLACE_BEFORE = frozenset(context_words("place_before"))  # "in Sydney": a capitalised name word alone is a place
# the gates of a name field's label and of a relation: a name word before its mark, a determiner before a relation
# (only searched for: is one there)
_LABEL_RE = re.compile(rf"\b(?:{literal_alt(sorted(_NAME_WORDS))})\s*[:?\-]")
_RELATION_RE = re.compile(rf"\b(?:{literal_alt(sorted(_NOT_PREV))})\s+(?:{literal_alt(sorted(_RELATIONS))})\b")
# Letters whose lower case is not one ASCII-aligned character (İ -> i + a dot, K -> k): in a text with one,
# text.lower() and the tokens need not align, so a title is looked for token by token.
_LOWER_ODD = ("\u0130", "\u212a")

_WORD_RE = re.compile(rf"{LATIN_LETTER}+(?:'{LATIN_LETTER}+)*")
_END_RE = re.compile(r"\s*(?:[,.!?;:]|$)")

# Chinese: the most common single-character surnames (a fact list; names-dataset lists none of one
# character; compound ones come from the dataset), the cues a surname follows (姓, 收件人是), the words
# that make 小/老 + surname a name, and characters never in a name: `name_context.zh` in zh-CN.
_ZH_TITLES = context_words("titles", "han")
# "does the text at this position start with a title": one anchored match instead of a startswith per title
_ZH_TITLE_AT = re.compile(literal_alt(_ZH_TITLES))
_ZH_CUES = re.compile(f"(?:{literal_alt(context_words('strong_before', 'han'))})$")
_ZH_PREFIXES = frozenset(context_words("prefixes", "han"))
# after a verb or preposition (交给, 转告, 找, 和): surname + one or two characters is a name where one of
# these follows at once (or nothing), and the characters do not open an ordinary word (高兴, 马上)
_ZH_VERBS = re.compile(f"(?:{literal_alt(context_words('verbs_before', 'han'))})$")
_ZH_NAME_END = re.compile(literal_alt(context_words("name_end", "han")))
_ZH_WORDS = tuple(w for w in context_words("common_words", "han") if len(w) > 1)
_ZH_STOP = frozenset(context_words("stop", "han") + context_words("common_words", "han"))
_HAN = re.compile(r"[\u4e00-\u9fff]+")
_ZH_PUNCT = frozenset("，。！？、；：,.!?;: ")
_ZH_LIST_MARKS = frozenset("、")  # the enumeration comma between the names of a list: 李晶、刘红、张琳
_ZH_AND = frozenset("和跟与")  # between two names of a list: 杨强和王金凤

_DEVA_WORD = re.compile(DEVA_TOKEN)
_DEVA_TITLES = frozenset(context_words("titles", "deva"))
_DEVA_AFTER = frozenset(context_words("strong_after", "deva"))  # "सक्सेना जी": also after an unknown word
_DEVA_AFTER_ANY = frozenset(context_words("after", "deva"))  # after a listed name: also "बोल"
_DEVA_CUES = frozenset(context_words("before", "deva") + context_words("relations", "deva"))  # नमस्ते, बेटी
_DEVA_NAME_WORDS = frozenset(context_words("name_words", "deva"))  # a form's label before its mark: "नाम: ..."
_DEVA_JOINS = frozenset(context_words("joins", "deva"))  # "और": between the last two names of a list
_LATIN2 = re.compile(r"[A-Za-z]{2}")


# Never a name in lower case: the stop words, Romanized-Hindi and English ordinary words that are also
# names ("das", "pal", "order": `common_words` in hi-Latn-IN), lid's Hindi lexicon and the titles.
NON_NAME = STOP | frozenset(context_words("common_words")) | lid._HINDI | _TITLES
# Name words that are also ordinary words ("sunny", "grace"): in cased text a lower-case one is the word.
_AMBIGUOUS = frozenset(context_words("ambiguous"))
_PACK_SETS: dict[str, tuple[frozenset[str], ...]] = {}


FREQUENT_TOP = 500  # the most frequent words of a pack's languages are never a name in lower case ("le", "ist")
# the frequent words of a pack's non-English languages (the European packs' files name them in `lid.languages`):
# "le", "lang", "met" are words there, not names
LOCAL_TOP = 20000
_FREQUENT: dict[tuple[str, bool, int], frozenset[str]] = {}


def frequent_words(pack: LocalePack, english: bool = True, top: int = FREQUENT_TOP) -> frozenset[str]:
    """The `top` most frequent words (wordfreq) of each of the pack's `lid.languages` (English among them only
    with `english`); once per pack."""
    got = _FREQUENT.get((pack.id, english, top))
    if got is None:
        import wordfreq

        langs = [x for x in pack.lid_languages if english or x != "en"]
        got = _FREQUENT[(pack.id, english, top)] = frozenset(
            w for lang in langs for w in wordfreq.top_n_list(lang, top))
    return got


def _pack_sets(pack: LocalePack) -> tuple[frozenset[str], ...]:
    """(every name word, plain name words, last names, first names, English words, the words that are
    English or never a name but no name word) of a pack;
    computed once per pack and process."""
    got = _PACK_SETS.get(pack.id)
    if got is None:
        lex = lexicon()
        primary, secondary = pack.name_countries if pack.name_countries[0] else DEFAULT_COUNTRIES
        first, last = lex.tokens(primary, secondary, PRIMARY_RANK, SECONDARY_RANK)
        # (a listed name that is one of the most frequent words of the pack's own language is that word there:
        # "le", "del", "con" are names somewhere, never in French or Spanish text)
        names = frozenset(t for t in first | last if len(t) > 1) - frequent_words(pack, english=False)
        local = frozenset(w for w in frequent_words(pack, english=False, top=LOCAL_TOP) if w.isalpha())
        plain = frozenset(t for t in names if t not in lex.common and t not in NON_NAME and t not in local)
        english = (lex.english - names) | local | (_CALENDAR - names)  # "booked for Tuesday": a day, not a name
        ordinary = (english | NON_NAME) - names
        got = _PACK_SETS[pack.id] = (names, plain, frozenset(last), frozenset(first), english, ordinary)
    return got


def pack_names(pack: LocalePack) -> frozenset[str]:
    """Every first and last name word (lower case) of the pack's name lists (`name_countries`)."""
    return _pack_sets(pack)[0]


def given_names(pack: LocalePack) -> frozenset[str]:
    """Listed first names (lower case) of the pack."""
    return _pack_sets(pack)[3]


def surnames(pack: LocalePack) -> frozenset[str]:
    """Listed last names (lower case) of the pack, less the words never a name and the ambiguous ones
    ("smith" stays, "will" goes)."""
    return _pack_sets(pack)[2] - NON_NAME - _AMBIGUOUS


def name_like(pack: LocalePack, word: str) -> bool:
    """A lower-case word that may be a name in this pack: a listed name word, or a word that is neither
    English (nor the pack's languages') nor never a name."""
    names, _, _, _, english, _ = _pack_sets(pack)
    return word in names or (word not in english and word not in NON_NAME)


# A name of another country's lists is taken after an initial only below this English frequency: "karlsson"
# (Zipf 2.9), "vidal" (3.2) are names; "joke", "floor" (4.7, 4.9) are names somewhere too, and words here.
NAMED_MAX_ZIPF = 3.5


def named(pack: LocalePack, word: str) -> bool:
    """A lower-case word that is a name and no frequent word, for a place that already says name (after an
    initial): a listed or unknown word (as `name_like`), or a name of any country's lists that is no ordinary
    word of the identifier languages (the lexicon's `ident`) and rare in English; never a word that is never a
    name, common or ambiguous ("you", "way", "will" are names somewhere)."""
    lex = lexicon()
    if word in NON_NAME or word in lex.common or word in _AMBIGUOUS:
        return False
    if word not in _pack_sets(pack)[4]:  # (a listed name is never `english`)
        return True
    return word in lex.ident and english_zipf(word) < NAMED_MAX_ZIPF


def rare_word(word: str) -> bool:
    """A lower-case word rare in English and neither never a name nor common: after a capital
    initial and its dot, the capitalised word is a surname ("M. Butte", Zipf 3.1), not a sentence ("B. Then")."""
    return word not in NON_NAME and word not in lexicon().common and english_zipf(word) < NAMED_MAX_ZIPF


def english_zipf(word: str) -> float:
    """wordfreq's Zipf frequency of `word` in English (its table loads once; only candidates after an initial
    ask)."""
    import wordfreq

    return wordfreq.zipf_frequency(word, "en")


def find_lexicon_names(text: str, pack: LocalePack, words: frozenset[str] | None = None) -> Iterator[Match]:
    """Names found by the lists and their context (see module docstring). `words`: latin_words(text), when
    the caller has it."""
    if _LATIN2.search(text):
        found = list(_latin(text, pack, words))
        yield from found
        if found and not _JOINS.isdisjoint(words if words is not None else latin_words(text)):
            yield from _joined(text, pack, found)
    if not text.isascii():
        if _HAN.search(text):
            yield from _han(text)
        if _DEVA_WORD.search(text):
            yield from _deva(text)


# Words that join the names of a list ("Both Bill and Alannah", "me, Leon Bujko and Elmo Errigo"): `joins`.
_JOINS = frozenset(context_words("joins"))
_CALENDAR = frozenset(context_words("calendar"))  # months and days: "Deepa and April" is no pair of names
_PARTNER = r"[^\W\d_]+(?:\s[^\W\d_]+)?"  # one or two words of letters (their capitals are checked in _joined)
_JOIN_ALT = literal_alt(sorted(_JOINS))
_AFTER_JOIN = re.compile(rf"\s+(?:{_JOIN_ALT})\s+({_PARTNER})\b")  # "<name> and Elmo Errigo"
_PREV_WORD_RE = re.compile(r"([^\W\d_]+)\s+$")
_BEFORE_JOIN = re.compile(rf"(?<![^\W\d_])({_PARTNER})\s+(?:{_JOIN_ALT})\s+$")  # "Bill and <name>"


def _joined(text: str, pack: LocalePack, found: list[Match]) -> Iterator[Match]:
    """A capitalised word (or two) joined to a found name by a list's `joins` word is a name too, where one is a
    listed name word (an ambiguous one too: Bill, Lucky) or a word no English list holds (Borys, Errigo); not at a
    sentence's start, never a stop, brand or calendar word."""
    names, _, _, _, english, _ = _pack_sets(pack)

    def partner(value: str) -> bool:
        if not all(w.istitle() for w in value.split()):  # (not camel case: "DarkBlue")
            return False
        keys = value.lower().split()
        if any(k in STOP or k in _ORG or k in _CALENDAR for k in keys):
            return False
        return any(k in names or k not in english for k in keys)

    spans = {(m.start, m.end) for m in found}
    for m in found:
        after = _AFTER_JOIN.match(text, m.end)
        if after is not None and partner(after.group(1)) and (after.start(1), after.end(1)) not in spans:
            yield Match("person_name", after.start(1), after.end(1), 0.7, "name_lexicon", after.group(1).lower())
        before = _BEFORE_JOIN.search(text, max(0, m.start - 40), m.start)
        if before is None:
            continue
        a, b = before.span(1)
        for s in (a, text.find(" ", a, b) + 1 or b):  # two words, else the last one ("Both Bill and ...")
            place = _PREV_WORD_RE.search(text, 0, s)  # "from Rosarioberg and ...": a place's list
            if place is not None and place.group(1).lower() in _PLACE_BEFORE:
                continue
            if s < b and partner(text[s:b]) and not _sentence_start(text, s) and (s, b) not in spans:
                yield Match("person_name", s, b, 0.7, "name_lexicon", text[s:b].lower())
                break


def _sentence_start(text: str, s: int) -> bool:
    k = s - 1
    while k >= 0 and text[k] in " \t":
        k -= 1
    return k < 0 or text[k] in '.!?\n"“'


def _labelled(text: str, toks: list[tuple[int, int, str]], words: list[str], k: int) -> bool:
    """Token k and the next are capitalised words after a name field's label and its mark ("Name: ", "Caller -")."""
    mark = text[toks[k - 1][1] : toks[k][0]].strip()
    return (mark in _LABEL_MARKS and mark != "?" and words[k - 1] in _NAME_WORDS and toks[k][2].istitle()
            and toks[k + 1][2].istitle() and text[toks[k][1] : toks[k + 1][0]] == " "
            and words[k] not in NON_NAME and words[k + 1] not in NON_NAME)


def _latin(text: str, pack: LocalePack, wset: frozenset[str] | None = None) -> Iterator[Match]:
    names, plain_set, last, first, english, ordinary = _pack_sets(pack)
    if not names:
        return
    # the common case first, at C speed: no name word, no title or strong cue -> nothing to scan
    if wset is None:
        wset = latin_words(text)
    low = text.lower()
    cased = not text.islower() and not text.isupper()
    hit = names.intersection(wset)
    cue = (not _TRIGGERS.isdisjoint(wset) or _QUICK_PHRASES_RE.search(low) is not None
           or (not _NAME_WORDS.isdisjoint(wset) and _LABEL_RE.search(low) is not None)
           or (not _RELATIONS.isdisjoint(wset) and _RELATION_RE.search(low) is not None))
    # a weak cue that can still take an unknown word: one before a capitalised word ("my husband Áurea"), or a
    # filler and a word after ("yeah sylke said")
    soft = (cased and not _CUE_SET.isdisjoint(wset)) or (
        not _FILLERS.isdisjoint(wset) and not _CUE_NEXT.isdisjoint(wset)) or (
        not _INTRODUCES.isdisjoint(wset) and not _INTRODUCES.isdisjoint(low.split(None, 2)[1:2]))  # "zoé here"
    if not cue and not soft:
        if not hit or (not cased and hit.isdisjoint(plain_set) and (len(hit) < 2 or _CUE_WORDS.isdisjoint(wset))):
            return
        # lower case without any cue word: only a pair of name words or a name opening the reply can be taken
        if not cased and _CUE_SET.isdisjoint(wset) and len(hit - NON_NAME) < 2:
            if not any(w.strip(",.?!") in hit for w in low.split(None, 4)[:4]):
                return
    toks = [(m.start(), m.end(), m.group()) for m in _WORD_RE.finditer(text)]
    if not toks:
        return
    # for the cues ("it's" stays): each token in lower case. Not the tokens of text.lower(): İ and K lower to
    # ASCII letters ("i" + a combining dot, "k"), so those would be other tokens, and the lists would not align.
    words = [t.lower().replace("\u0307", "") for _, _, t in toks]  # "İsmail" is looked up as "ismail"
    # for the lists: "rahul's" -> "rahul" (read-only, like words: without an apostrophe they are the same)
    keys = [w[:-2] if w.endswith("'s") else w for w in words] if "'" in low else words
    n = len(toks)
    # Only these tokens can start a name: a listed name, a word no list knows, or a word after a title (and,
    # below, not a grammar word in lower case: "to Deepa" -> "Deepa"). The loop further down visits them alone.
    # A listed name is never `ordinary`, so "listed, or unknown" is one lookup for most words (English ones).
    maybe = [k for k in range(n) if keys[k] not in ordinary and (len(keys[k]) > 2 and "'" not in keys[k]
                                                                 or keys[k] in names)]
    # a title is a word of the text (titles are [a-z]+; a token's letters are a word of the lower case but
    # where İ or K touch it)
    if not _TITLES.isdisjoint(wset) or _LOWER_ODD[0] in text or _LOWER_ODD[1] in text:
        titled_at = {k for k in range(1, n) if words[k - 1] in _TITLES}  # (tokens hold no ".")
        if titled_at:
            maybe = sorted(titled_at.union(maybe))
    if cased and not _NAME_WORDS.isdisjoint(wset):  # a form's label before a full name in capitals, even one
        labelled = {k for k in range(1, n - 1) if _labelled(text, toks, words, k)}  # of words: "Caller: Collin Moss"
        if labelled:
            maybe = sorted(labelled.union(maybe))
    else:
        labelled = set()
    if not maybe:
        return
    if cased:
        # a capitalised word (not all capitals) that may be a name and does not open a sentence: "to Deepa"
        caps = [t[0].isupper() and not t.isupper() and (k in names or k not in english) and not _sentence_start(text, a)
                for (a, _, t), k in zip(toks, keys, strict=True)]
        # a start is a capitalised word or one that is no grammar word
        starts = [k for k in maybe if (keys[k] not in NON_NAME or caps[k])
                  and not (keys[k] in _AMBIGUOUS and toks[k][2].islower())]
    else:
        caps = [False] * len(toks)
        starts = [k for k in maybe if keys[k] not in NON_NAME]

    # an English cue word that is a frequent word of the pack's own language is that word there: German "im"
    # is no ASR "I'm" ("im Kundenkonto nachgesehen")
    own_words = frequent_words(pack, english=False)

    def gap(a: int, b: int) -> str:  # a line break ends a name and its cue ("Keer\nMobile: ..." is no brand)
        between = text[toks[a][1] : toks[b][0]]
        return "\n" if "\n" in between else between.strip()

    def cue_before(i: int) -> bool:
        if i < 1 or gap(i - 1, i) not in ("", ",", ".", "?", ":", "-"):
            return False
        p1 = words[i - 1]
        if gap(i - 1, i) in _LABEL_MARKS and p1 not in _NAME_WORDS:  # "aapka naam? charulata iyer"
            return False
        if (p1.rstrip(".") in _TITLES or p1 in _CUE_PREV) and p1 not in own_words:
            return True
        return i >= 2 and f"{words[i - 2]} {p1}" in _CUE_PREV2 or strong_before(i)  # a strong cue is a cue too

    def cue_after(j: int) -> bool:
        if j + 1 < n and gap(j, j + 1) in ("", ","):
            nxt = words[j + 1]
            return nxt in _CUE_NEXT or (j + 2 < n and f"{nxt} {words[j + 2]}" in _CUE_NEXT2)
        return False

    def unknown(k: int) -> bool:  # a word no list knows: neither a listed name nor English/Hindi
        w = keys[k]
        return len(w) > 2 and w not in names and w not in english and w not in NON_NAME and "'" not in w

    def strong_before(i: int) -> bool:
        if i < 1 or gap(i - 1, i) not in ("", ",", ".", "?", ":", "-"):
            return False
        p1 = words[i - 1].rstrip(".")
        if gap(i - 1, i) in _LABEL_MARKS:
            return p1 in _NAME_WORDS
        return (p1 in _STRONG_PREV and p1 not in own_words or (i >= 2 and f"{words[i - 2]} {p1}" in _STRONG_PREV2)
                or (i >= 3 and f"{words[i - 3]} {words[i - 2]} {p1}" in _STRONG_PREV2)  # "transfer me to"
                or related(i))

    def related(i: int) -> bool:  # "my colleague leandra", "our technician Mathilde"
        return (i >= 2 and words[i - 1] in _RELATIONS and words[i - 2] in _NOT_PREV
                and gap(i - 2, i - 1) == "" and gap(i - 1, i) in ("", ","))

    def brand(j: int) -> bool:  # "Jio Fiber", "Sky support": the words before an organisation word
        return j + 1 < n and gap(j, j + 1) == "" and keys[j + 1] in _ORG

    def full_after_word(i: int, j: int) -> bool:  # "pass this on to Linnéa Hansson", not "in Navi Mumbai"
        return (i >= 1 and j > i and caps[j] and toks[j][2].istitle() and gap(i - 1, i) == ""
                and words[i - 1] in _NOT_PREV and words[i - 1] not in _PLACE_BEFORE)

    def introduces(j: int) -> bool:  # "zoé here calling about my bill"
        return j + 1 < n and gap(j, j + 1) in ("", ",") and words[j + 1] in _INTRODUCES

    def reply_start(i: int, j: int) -> bool:
        """Only fillers before, and nothing (or punctuation) after: "yeah, rahul." / "priya here"."""
        return all(words[k] in _FILLERS for k in range(i)) and bool(_END_RE.match(text, toks[j][1]))

    i = 0
    for start in starts:
        if start < i:
            continue
        i = start
        k0 = keys[i]
        titled = (i >= 1 and words[i - 1].rstrip(".") in _TITLES and gap(i - 1, i) in ("", ".") and len(k0) > 1
                  or related(i) or i in labelled)
        if k0 not in names and not titled:
            if unknown(i):  # unknown words: only after a strong cue or before "ji" ("it's jocelyn okafor")
                j = (
                    i + 1
                    if i + 1 < n
                    and gap(i, i + 1) == ""
                    and (unknown(i + 1) or keys[i + 1] in names)
                    and keys[i + 1] not in NON_NAME
                    else i
                )
                nxt = words[j + 1] if j + 1 < n and gap(j, j + 1) in ("", ",") else ""
                nxt2 = f"{nxt} {words[j + 2]}" if nxt and j + 2 < n and gap(j + 1, j + 2) == "" else ""
                # an unknown word before a listed surname is a given name: "charulata mehrotra"
                pair = j > i and keys[j] in last and keys[j] in plain_set
                # (a weak cue takes only a plain capitalised word: not a brand written in camel case, "SunCare")
                if brand(j) or (j + 1 < n and gap(j, j + 1) == ":"):  # "Name of policyholder: ...": a label
                    i = j + 1
                    continue
                if (strong_before(i) or nxt in _STRONG_NEXT or nxt2 in _STRONG_NEXT2 or pair
                        or (caps[i] and toks[i][2].istitle() and (cue_before(i) or full_after_word(i, j)))
                        or (all(words[k] in _FILLERS for k in range(i)) and (i > 0 and cue_after(j) or introduces(j)))):
                    s, e = toks[i][0], toks[j][1]
                    yield Match("person_name", s, e, 0.65, "name_lexicon", " ".join(text[s:e].lower().split()))
                    i = j + 1
                    continue
            i += 1
            continue
        j = i  # extend over adjacent name words (at most three)
        first_is_name = k0 in plain_set or unknown(i)
        while (
            j + 1 < n
            and j - i < 2
            and gap(j, j + 1) == ""
            and (keys[j + 1] in names or caps[j + 1] or unknown(j + 1) or (j == i and i in labelled and first_is_name))
            and keys[j + 1] not in NON_NAME
        ):  # (after a label a name's second word may be English: "Name - Dipta Char", not "Signed: Branch Manager")
            j += 1
        plain = [keys[k] in plain_set for k in range(i, j + 1)]
        all_caps = all(caps[i : j + 1])
        prev_ok = all_caps or i == 0 or words[i - 1] not in _NOT_PREV or strong_before(i)  # "spoke to james"
        # (the cue, the costliest test, is looked at last and only where the answer depends on it)
        if not prev_ok or brand(j) or (j == i and i in labelled and not plain[0]):  # "Signed: Branch Manager"
            ok = False
        elif cased and caps[i] and not titled and i >= 1 and words[i - 1] in _DETERMINERS and gap(i - 1, i) == "":
            ok = False  # "the Caesar salad", "a Lincoln Navigator": a capitalised name word after "the" is a thing
        elif j > i:
            n_plain = sum(plain)
            if n_plain >= 2 or all_caps or titled:
                ok = True
            elif n_plain == 1:  # one plain name and one ordinary word: a cue, or the plain one at an edge
                ok = (keys[j] in last or keys[j] in plain_set or unknown(j)) and (
                    plain[0] or plain[-1] or cue_before(i) or cue_after(j) or reply_start(i, j))
            else:  # "mark green": only with a cue in lower-case text
                ok = not cased and (cue_before(i) or cue_after(j) or reply_start(i, j))
        elif titled or (plain[0] and caps[i] and len(k0) > 2 and k0 in first and k0 not in _AMBIGUOUS
                        and (i == 0 or words[i - 1] not in _PLACE_BEFORE)):  # "I spoke to Deepa": a
            ok = True  # capitalised first name ("in Sydney", "from Darwin": a place; "of April": a month)
        elif i >= 1 and words[i - 1] in _PLACE_BEFORE and gap(i - 1, i) == "":
            ok = strong_before(i)  # a lone name word after in/at/from is a place, a weak cue after it too
        else:
            # (a capitalised word that is never a name stays a word on a weak cue: "Could You Call"; Will may be one)
            ok = ((plain[0] or caps[i] and (k0 not in NON_NAME or k0 in _AMBIGUOUS))
                  and (cue_before(i) or cue_after(j) or reply_start(i, j)))
        if ok:
            s, e = toks[i][0], toks[j][1]
            if words[j].endswith("'s"):
                e -= 2
            yield Match("person_name", s, e, 0.8 if j > i else 0.7, "name_lexicon", " ".join(text[s:e].lower().split()))
            i = j + 1
        else:
            i += 1


@functools.lru_cache(maxsize=4)
def _compound_surnames(lex: NameLexicon) -> frozenset[str]:
    return frozenset(s for s, r in lex.han_family.items() if len(s) == 2 and r <= 2000)


def _han(text: str) -> Iterator[Match]:
    lex = lexicon()
    given = lex.han_given
    compound = _compound_surnames(lex)
    listed_to = -1  # where the last name found ended: a run after it and an enumeration comma is the next name
    for run in _HAN.finditer(text):
        s0, chunk = run.start(), run.group()
        if (s0 >= 1 and text[s0 - 1] in _ZH_LIST_MARKS and listed_to == s0 - 1 and 2 <= len(chunk) <= 3
                and chunk[0] in _ZH_SURNAMES and not any(c in _ZH_STOP for c in chunk)):
            yield Match("person_name", s0, s0 + len(chunk), 0.7, "name_lexicon", chunk)  # 李晶、刘红、张琳
            listed_to = s0 + len(chunk)
            continue
        k = last_end = 0
        while k < len(chunk):
            sur = 2 if chunk[k : k + 2] in compound else (1 if chunk[k] in _ZH_SURNAMES else 0)
            if not sur:
                span = _rare_surname_span(chunk, k, given)
                if span is not None:
                    yield Match("person_name", s0 + span[0], s0 + span[1], 0.7, "name_lexicon", chunk[span[0]:span[1]])
                    k = span[1]
                else:
                    k += 1
                continue
            span = _han_span(text[:s0] if k == 0 else "", chunk, k, sur, given)
            if span is None:
                k += 1
                continue
            a, b = span
            first = _coordinated(chunk, a, compound)
            if first is not None and first[0] >= last_end:
                fa, fb = first
                yield Match("person_name", s0 + fa, s0 + fb, 0.7, "name_lexicon", chunk[fa:fb])
            yield Match("person_name", s0 + a, s0 + b, 0.75, "name_lexicon", chunk[a:b])
            last_end = k = b
            listed_to = s0 + b


def _coordinated(chunk: str, a: int, compound: frozenset[str]) -> tuple[int, int] | None:
    """Before a name found after 和 or 跟 ("杨强和王金凤都是..."), a surname and one or two characters that open
    the clause (or follow a verb) are the first name of the pair; an ordinary word (高兴) is not."""
    if a < 3 or chunk[a - 1] not in _ZH_AND:
        return None
    for p in (a - 4, a - 3):  # surname + two characters, then surname + one
        if p < 0 or (p > 0 and not _ZH_VERBS.search(chunk[:p])):
            continue
        sur = 2 if chunk[p : p + 2] in compound else (1 if chunk[p] in _ZH_SURNAMES else 0)
        if (sur and p + sur < a - 1 and not any(c in _ZH_STOP for c in chunk[p : a - 1])
                and not any(chunk.startswith(w, p) for w in _ZH_WORDS)):
            return p, a - 1
    return None


def _rare_surname_span(chunk: str, k: int, given: dict[str, int]) -> tuple[int, int] | None:
    """After a verb (转给, 是), a character outside the surname list before a listed two-character given name that
    ends there is a surname too (转给冶淑华): a rarer surname, where the given name says name."""
    g = k + 1
    if (k == 0 or chunk[g : g + 2] not in given or chunk[k] in _ZH_STOP or not _ZH_VERBS.search(chunk[:k])
            or any(c in _ZH_STOP for c in chunk[g : g + 2]) or any(chunk.startswith(w, k) for w in _ZH_WORDS)):
        return None
    if g + 2 == len(chunk) or _ZH_NAME_END.match(chunk, g + 2):
        return k, g + 2
    return None


def _han_span(lead: str, chunk: str, k: int, sur: int, given: dict[str, int]) -> tuple[int, int] | None:
    """`lead`: the text before the run, where the surname opens it (a label before a colon: 姓名：杨帆)."""
    g = k + sur
    if (
        chunk[g : g + 2] in given
        and not any(c in _ZH_STOP for c in chunk[g : g + 2])
        and _ZH_TITLE_AT.match(chunk, g) is None
    ):
        return k, g + 2  # surname + a listed two-character given name: 王美玲
    for glen in (2, 1, 0):  # surname (+ given) + title: 李先生, 张伟女士
        if _ZH_TITLE_AT.match(chunk, g + glen) is not None and not any(c in _ZH_STOP for c in chunk[g : g + glen]):
            return k, g + glen
    before = chunk[:k] or lead.rstrip("：: ")
    if _ZH_CUES.search(before):
        for glen in (2, 1, 0):
            if not any(c in _ZH_STOP for c in chunk[g : g + glen]) and (glen == 0 or len(chunk) >= g + glen):
                nxt = chunk[g + glen : g + glen + 1]
                if not nxt or nxt in _ZH_STOP or nxt in _ZH_PUNCT or glen == 0:
                    return k, g + glen
    if _ZH_VERBS.search(before) and not any(chunk.startswith(w, k) for w in _ZH_WORDS):
        for glen in (2, 1):  # 交给了贺婉清, 你和张伟联系一下
            two = _ZH_NAME_END.match(chunk, g + 1)
            if glen == 2 and two is not None and len(two.group()) > 1:
                continue  # a two-character end right after one given character: 替韩梅下的 is 韩梅 + 下的
            part = chunk[g : g + glen]
            if len(part) == glen and not any(c in _ZH_STOP for c in part) and (
                g + glen == len(chunk) or _ZH_NAME_END.match(chunk, g + glen)
            ):
                return k, g + glen
    if k >= 1 and chunk[k - 1] in _ZH_PREFIXES and sur == 1 and len(chunk) == k + 1 and k == 1:
        return k - 1, k + 1  # "小王" as a whole reply or vocative
    return None


def _deva(text: str) -> Iterator[Match]:
    names = lexicon().deva
    toks = [(m.start(), m.end(), m.group()) for m in _DEVA_WORD.finditer(text)]
    i, n = 0, len(toks)
    last = -9  # the last token of the name found last: a list goes on after its comma or `joins` word
    while i < n:
        s, e, t = toks[i]
        if t in _DEVA_AFTER_ANY or t in _DEVA_CUES:  # an honorific or a relation is never the name: "मैनेजर साहब"
            i += 1
            continue
        prev = toks[i - 1][2] if i else ""
        labelled = prev in _DEVA_NAME_WORDS and text[toks[i - 1][1] : s].strip() in (":", "-")  # "नाम: ..."
        listed = (i == last + 1 and text[toks[last][1] : s].strip() == ",") or (
            i == last + 2 and prev in _DEVA_JOINS and not text[toks[last][1] : s].replace(prev, "").strip()
        )  # "सदस्य: तृष्णा चोपरा, धवल मेहता और ..."
        titled = (prev in _DEVA_TITLES or prev in _DEVA_CUES or labelled or listed) and t not in _DEVA_STOP
        if (i + 2 < n and f"{toks[i + 1][2]} {toks[i + 2][2]}" in _DEVA_AFTER and t not in _DEVA_STOP
                and t not in _DEVA_CUES):  # "लीना खान के नाम पर": a listed name's words before "के नाम"
            a = i - 1 if i and toks[i - 1][2] in names and toks[i - 1][2] not in _DEVA_STOP else i
            if a < i or t in names:
                yield Match("person_name", toks[a][0], e, 0.7, "name_lexicon", " ".join(x[2] for x in toks[a : i + 1]))
                i += 1
                continue
        if t not in _DEVA_STOP and i + 1 < n and toks[i + 1][2] in _DEVA_AFTER and t not in names:
            yield Match("person_name", s, e, 0.65, "name_lexicon", t)  # "सक्सेना जी": an unknown word before जी
            i += 1
            continue
        if t in names or titled:
            j = i
            stop = _DEVA_STOP

            def spaced(k: int) -> bool:  # a comma or a full stop ends a name: "सुनीता रावत, कमल ..."
                return not text[toks[k][1] : toks[k + 1][0]].strip()

            while j + 1 < n and j - i < 2 and spaced(j) and toks[j + 1][2] in names and toks[j + 1][2] not in stop:
                j += 1
            after = toks[j + 1][2] if j + 1 < n else ""
            if (titled and j == i and after not in _DEVA_AFTER and j + 1 < n and toks[j + 1][2] not in _DEVA_STOP
                    and spaced(j)):
                j += 1  # "श्रीमती सुनीता वर्मा": the word after a title's name is its surname unless a stop word
                after = toks[j + 1][2] if j + 1 < n else ""
            if titled or j > i or after in _DEVA_AFTER_ANY:
                yield Match("person_name", s, toks[j][1], 0.75, "name_lexicon", " ".join(x[2] for x in toks[i : j + 1]))
                i = last = j
                i += 1
                continue
        i += 1
