"""Person names: self-introduction cues ("my name is", "mera naam ... hai", "我叫"), names the upload
descriptor lists, and an optional NER engine (off by default; used only if one is installed)."""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterator

from .base import Match, RegexGate, latin_words

log = logging.getLogger(__name__)

# Words that end (or cannot be) a name after a cue; lowercase ASR text makes capitalisation unreliable.
STOP = frozenset("""
a an the and or but so to of for on in at by with from here there this that it is am are was were be been
my your our his her their me you we they he she i im i'm its it's not no yes ok okay please thanks thank sir madam
maam ma'am calling call speaking trying looking going having getting just also actually really very sorry
fine good great happy sure well um uh hmm hi hello hey namaste ji haan nahi hai hain hoon hu hun aur se ka ki ke
mera meri mere naam bol raha rahi rahe main mein kya kal aaj number phone email address customer id account
order regarding about calling because since will would can could should may might do does did have has had
your's from there calling again still back now today tomorrow new old one two three four five six seven eight
nine ten zero oh here's what when where who why how which agent support team service care company bank
""".split())
_TOK = r"[A-Za-z][A-Za-z'\-]*"
_DEVA_TOK = r"[\u0900-\u097F]+"
_L = r"(?<![\w\u0900-\u097F])"
_R = r"(?![\w\u0900-\u097F])"

# (cue regex, require capitalised tokens, required follower regex or None)
_CUES: tuple[tuple[re.Pattern[str], bool, re.Pattern[str] | None], ...] = (
    (re.compile(r"\bmy\s+name(?:\s+is|'s)\s+", re.IGNORECASE), False, None),
    (re.compile(r"\bname\s+is\s+", re.IGNORECASE), True, None),
    (re.compile(r"\bmera\s+naam\s+", re.IGNORECASE), False, re.compile(r"\s+(?:hai|he|h)\b", re.IGNORECASE)),
    (re.compile(r"\bthis\s+is\s+", re.IGNORECASE), False,
     re.compile(r"\s+(?:from|here|speaking|calling)\b", re.IGNORECASE)),
    (re.compile(r"\b(?:i\s+am|i'm)\s+", re.IGNORECASE), True, None),
    (re.compile(r"\bspeaking\s+(?:with|to)\s+", re.IGNORECASE), False, None),
    (re.compile(r"\b(?:mr|mrs|ms|miss|dr|shri|smt|shrimati)\.?\s+", re.IGNORECASE), True, None),
    (re.compile(r"\b(?:main|se)\s+", re.IGNORECASE), False, re.compile(r"\s+bol\s+rah[aie]\b", re.IGNORECASE)),
)
_CUE_GATES = tuple(RegexGate(cue) for cue, _, _ in _CUES)
_TOKEN_RE = re.compile(rf"\s*({_TOK})")
_DEVA_NAME_RE = re.compile(
    rf"(?:मेरा\s+नाम\s+({_DEVA_TOK}(?:\s+{_DEVA_TOK})?)\s+है|मैं\s+({_DEVA_TOK}(?:\s+{_DEVA_TOK})?)\s+बोल\s+रह)")
_DEVA_STOP = frozenset("है हूँ हूं मैं मेरा मेरी आप का की के से और नाम".split())
_ZH_NAME_RE = re.compile(r"(?:我叫|我的名字是|我的名字叫|我名叫|我是)([\u4e00-\u9fff]{2,3}?)"
                         r"(?=[，。,.！!？?\s]|$|我|的|手机|电话|号码|住|在|今|想|要|身份)")
_ZH_STOP_CHARS = set("我你他她的是了在有个来去想要这那不没")
_LATIN_LETTER = re.compile("[A-Za-z\u0130\u0131\u017f\u212a]")
_GATE_WORDS = frozenset("name naam speaking mr mrs ms miss dr shri smt shrimati bol".split())
_ANY_NAME_PREFILTER = re.compile(
    r"\b(?:name|naam|this\s+is|i\s+am|i'm|speaking|mr|mrs|ms|miss|dr|shri|smt|shrimati|bol\s+rah)|नाम|बोल|我叫|名字|我是",
    re.IGNORECASE)
_ANY_GATE, _DEVA_GATE, _ZH_GATE = RegexGate(_ANY_NAME_PREFILTER), RegexGate(_DEVA_NAME_RE), RegexGate(_ZH_NAME_RE)


def _take_name(text: str, pos: int, capitalised: bool) -> tuple[int, int] | None:
    start = end = None
    n = 0
    while n < 3:
        m = _TOKEN_RE.match(text, pos)
        if not m:
            break
        tok = m.group(1)
        if tok.lower() in STOP or (capitalised and not tok[0].isupper()) or len(tok) < 2:
            break
        if start is None:
            start = m.start(1)
        end = m.end(1)
        pos = m.end()
        n += 1
    return (start, end) if start is not None and end is not None else None


def name_norm(s: str) -> str:
    return " ".join(s.lower().split())


def find_cued_names(text: str, words: frozenset[str] | None = None) -> Iterator[Match]:
    """`words`: latin_words(text), when the caller has it."""
    ascii_text = text.isascii()
    if ascii_text:  # a set lookup over the words, cheaper than the regex for most turns
        w = latin_words(text) if words is None else words
        if w.isdisjoint(_GATE_WORDS) and not ("this" in w and "is" in w) and not ("i" in w and ("am" in w or "m" in w)):
            return
    else:
        pos = _ANY_GATE.start_pos(text)
        if pos < 0 or not _ANY_NAME_PREFILTER.search(text, pos):
            return
    # the Latin cues need a Latin letter (or one of the letters re.IGNORECASE takes for one: İ ı ſ K); on
    # ASCII text, each its own literal prefix ("my", "name", "mera" ...)
    low = text.lower() if ascii_text else ""
    for (cue, capitalised, follower), gate in zip(
        _CUES if ascii_text or _LATIN_LETTER.search(text) else (), _CUE_GATES, strict=False
    ):
        if ascii_text and not gate.in_lower(low):
            continue
        for m in cue.finditer(text):
            span = _take_name(text, m.end(), capitalised)
            if span is None:
                continue
            s, e = span
            if follower is not None and not follower.match(text, e):
                continue
            yield Match("person_name", s, e, 0.85, "name_cue", name_norm(text[s:e]))
    if ascii_text:
        return  # the Devanagari and Chinese cues below need their script
    for m in _DEVA_NAME_RE.finditer(text) if _DEVA_GATE.might_match(text) else ():
        g = 1 if m.group(1) else 2
        val = m.group(g)
        if any(w in _DEVA_STOP for w in val.split()):
            continue
        yield Match("person_name", m.start(g), m.end(g), 0.85, "name_cue", name_norm(val))
    for m in _ZH_NAME_RE.finditer(text) if _ZH_GATE.might_match(text) else ():
        val = m.group(1)
        if any(c in _ZH_STOP_CHARS for c in val):
            continue
        yield Match("person_name", m.start(1), m.end(1), 0.8, "name_cue", val)


# Parts of names that are also ordinary words: matched only when capitalised as in the descriptor.
_AMBIGUOUS = STOP | frozenset("will grace rose may mark bill sunny joy hope faith april june summer rich dawn "
                              "victor rocky lucky happy prince king bob pat sam".split())


@functools.lru_cache(maxsize=256)
def _names_regexes(names: tuple[str, ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """One case-insensitive and one case-sensitive alternation over full names and their parts."""
    loose: set[str] = set()
    strict: set[str] = set()
    for name in names:
        name = " ".join(name.split())
        if not name:
            continue
        parts = [name] + (name.split(" ") if " " in name else [])
        for p in parts:
            if len(p) < 2 or (len(p) < 3 and p.isascii()):
                continue
            (strict if p.lower() in _AMBIGUOUS else loose).add(p)

    def build(items: set[str], flags: int) -> re.Pattern[str] | None:
        if not items:
            return None
        alts = []
        for p in sorted(items, key=len, reverse=True):
            body = r"\s+".join(re.escape(w) for w in p.split(" "))
            han = any("\u4e00" <= c <= "\u9fff" for c in p)
            alts.append(body if han else f"{_L}{body}{_R}")
        return re.compile("|".join(alts), flags)

    return build(loose, re.IGNORECASE), build(strict, 0)


def find_given_names(text: str, names: tuple[str, ...]) -> Iterator[Match]:
    if not names:
        return
    for rx in _names_regexes(names):
        if rx is None:
            continue
        for m in rx.finditer(text):
            yield Match("person_name", m.start(), m.end(), 0.9, "descriptor_names", name_norm(m.group()))


@functools.lru_cache(maxsize=1)
def _ner_model():  # pragma: no cover - depends on an optional installed model
    try:
        import spacy  # lazy: heavy and optional
    except ImportError:
        return None
    for model in ("en_core_web_trf", "en_core_web_lg", "en_core_web_md", "en_core_web_sm", "xx_ent_wiki_sm"):
        try:
            return spacy.load(model, disable=["parser", "lemmatizer", "tagger"])
        except (OSError, ImportError):
            continue
    log.warning("ner=True but no spaCy NER model is installed; person names rely on cues and descriptor names")
    return None


def find_ner_names(text: str) -> Iterator[Match]:
    """Optional NER (flag `ner`): PERSON/PER entities from an installed spaCy model; nothing if none is."""
    nlp = _ner_model()
    if nlp is None:
        return
    for ent in nlp(text).ents:  # pragma: no cover - needs a model
        if ent.label_ in ("PERSON", "PER"):
            yield Match("person_name", ent.start_char, ent.end_char, 0.6, "ner", name_norm(ent.text))


# The agent persona a system prompt defines ("You are Priya from SunCare Solar support") is part of the
# product, not a person's data: the format document's own example keeps "Priya" in a redacted record.
_PERSONA_RE = re.compile(
    rf"\b(?:you\s+are|you're|your\s+name\s+is|aap)\s+({_TOK}(?:\s+{_TOK})?)(?=\s*(?:,|\.|from|at|of|with|ho|hain|$))",
    re.IGNORECASE)


@functools.lru_cache(maxsize=1024)
def persona_names(system_prompt: str | None) -> frozenset[str]:
    """Lower-cased name tokens of the agent persona the system prompt defines (empty if none)."""
    if not system_prompt:
        return frozenset()
    out: set[str] = set()
    for m in _PERSONA_RE.finditer(system_prompt):
        toks = [t for t in m.group(1).split() if t.lower() not in STOP and t[0].isupper()]
        out.update(t.lower() for t in toks)
    return frozenset(out)


def is_persona(value: str, persona: frozenset[str]) -> bool:
    toks = value.lower().split()
    return bool(persona) and bool(toks) and all(t in persona for t in toks)
