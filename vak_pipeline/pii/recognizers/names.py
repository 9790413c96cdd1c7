"""Person names: self-introduction cues ("my name is", "mera naam ... hai", "我叫"), names the upload
descriptor lists, and an optional NER engine (off by default; used only if one is installed)."""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable, Iterator

from ...locales.packfile import IntroRule
from .base import (
    DEVA_CHAR,
    DEVA_TOKEN,
    HAN_CHAR,
    SHARED_RULES,
    Keywords,
    Match,
    context_words,
    latin_words,
    one_of,
    phrase_words,
    take_name,
)
from .base import DEVA_STOP as _DEVA_STOP
from .base import phrase_alt as _alt

log = logging.getLogger(__name__)

_TOK = r"[A-Za-z][A-Za-z'\-]*"
_L = r"(?<![\w\u0900-\u097F])"
_R = r"(?![\w\u0900-\u097F])"
def _intros(script: str) -> list[IntroRule]:
    """The built-in packs' `name_intros` whose `before` words are in `script`, in file order."""
    rx = None if script == "latin" else DEVA_CHAR if script == "deva" else HAN_CHAR
    return [r for rules in SHARED_RULES for r in rules.shared_intros
            if r.before and (all(w.isascii() for w in r.before) if rx is None else rx.search(r.before[0]))]


# Words that end (or cannot be) a name after a cue; lowercase ASR text makes capitalisation unreliable.
# They are data: `name_context.<lang>.stop` (en-US, hi-Latn-IN; hi-IN and zh-CN for their scripts), and the
# words that end a brand (`organisation`: "Jio Fiber", "Sky support"), which are never part of a name either.
STOP = frozenset(context_words("stop") + context_words("organisation"))

# Self-introductions are data too (`name_intros` in en-US, hi-Latn-IN, hi-IN, zh-CN): a Latin-script
# rule is (cue regex, require capitalised tokens, required follower regex or None), a name of up to three
# words after the cue; its gates are the words of each cue ("this" and "is" in the text's words) and of each
# follower.
_LATIN_RULES = _intros("latin")
_CUES: tuple[tuple[re.Pattern[str], bool, re.Pattern[str] | None, Keywords, Keywords | None], ...] = tuple(
    (
        re.compile(rf"\b{_alt(r.before)}\s+", re.IGNORECASE),
        r.capitalised,
        re.compile(rf"\s+{_alt(r.after)}\b", re.IGNORECASE) if r.after else None,
        Keywords.of(phrase_words(r.before)),
        Keywords.of(phrase_words(r.after)) if r.after else None,
    )
    for r in _LATIN_RULES
)


_TOKEN_RE = re.compile(rf"\s*({_TOK})")
# Devanagari: a name of one to three words between the cue and its follower ("मेरा नाम ... है"), one group per rule
def _follower(words: tuple[str, ...]) -> str:
    """After a Devanagari name: a word after white space, a punctuation mark ("मैं प्रिया, ...") at once."""
    marks = tuple(w for w in words if not any(c.isalpha() for c in w))
    alts = ([rf"\s+{_alt(tuple(w for w in words if w not in marks))}"] if len(marks) < len(words) else []) + (
        [rf"\s*{_alt(marks)}"] if marks else [])
    return one_of(alts)


_DEVA_NAME_RE = re.compile(
    one_of([
        rf"{_alt(r.before)}\s+({DEVA_TOKEN}(?:\s+{DEVA_TOKEN}){{0,2}}){_follower(r.after)}" for r in _intros("deva")
    ])
    if _intros("deva")
    else "(?!)"
)
# Chinese: two or three characters after the cue, ended by punctuation, the end or a follower word
_ZH_NAME_RE = re.compile(
    one_of([
        rf"{_alt(r.before)}([\u4e00-\u9fff]{{2,3}}?)(?=[，。,.！!？?\s]|$|{'|'.join(map(re.escape, r.after))})"
        for r in _intros("han")
    ])
    if _intros("han")
    else "(?!)"
)
_ZH_STOP_CHARS = set(context_words("stop", "han"))


_HYPHEN_PART = re.compile(r"-([A-Z\u00c0-\u00d6\u00d8-\u00de][^\W\d_]+)")


def hyphen_joined(matches: Iterable[Match], text: str) -> Iterator[Match]:
    """A name that ends where a hyphen and a capitalised word follow goes on over them ("Barker" of
    "Barker-Jones", "Dubois" of "Dubois-Roy"): a double-barrelled surname is one name, not a name and a word."""
    for m in matches:
        e = m.end
        if m.type == "person_name":
            while (h := _HYPHEN_PART.match(text, e)) is not None:
                e = h.end()
        yield m if e == m.end else Match(m.type, m.start, e, m.score, m.recognizer, name_norm(text[m.start : e]))


def name_norm(s: str) -> str:
    return " ".join(s.lower().split())


def find_cued_names(text: str, words: frozenset[str] | None = None) -> Iterator[Match]:
    """Names after a self-introduction (`name_intros`), in Latin, Devanagari and Chinese script. `words`:
    latin_words(text), when the caller has it."""
    if words is None:
        words = latin_words(text)
    for cue, capitalised, follower, cue_words, follower_words in _CUES:
        if not cue_words.open(text, words) or (follower_words is not None and not follower_words.open(text, words)):
            continue
        for m in cue.finditer(text):
            span = take_name(text, m.end(), _TOKEN_RE, STOP, capitalised=capitalised, max_words=3)
            if span is None:
                continue
            s, e = span
            if follower is not None and not follower.match(text, e):
                continue
            yield Match("person_name", s, e, 0.85, "name_cue", name_norm(text[s:e]))
    if text.isascii():
        return  # the Devanagari and Chinese cues below need their script
    pos = 0  # a match whose words hold a stop word ("हेलो, मैं इला बोल ...") gives way to one starting later
    while (m := _DEVA_NAME_RE.search(text, pos)) is not None:
        g = next(k for k in range(1, (_DEVA_NAME_RE.groups or 1) + 1) if m.group(k))
        val = m.group(g)
        if any(w in _DEVA_STOP for w in val.split()):
            pos = m.start() + 1
            continue
        pos = m.end()
        yield Match("person_name", m.start(g), m.end(g), 0.85, "name_cue", name_norm(val))
    for m in _ZH_NAME_RE.finditer(text):
        g = next(k for k in range(1, (_ZH_NAME_RE.groups or 1) + 1) if m.group(k))
        val = m.group(g)
        if any(c in _ZH_STOP_CHARS for c in val):
            continue
        yield Match("person_name", m.start(g), m.end(g), 0.8, "name_cue", val)


# Parts of names that are also ordinary words: matched only when capitalised as in the descriptor.
# They are data: `name_context.en.ambiguous` (en-US), with the stop words.
_AMBIGUOUS = STOP | frozenset(context_words("ambiguous"))


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
# The words before and after the persona's name are data: `name_context.<lang>.persona_before/_after`.
_PERSONA_RE = re.compile(
    rf"\b(?:{'|'.join(_alt((w,)) for w in context_words('persona_before'))})\s+({_TOK}(?:\s+{_TOK})?)"
    rf"(?=\s*(?:{'|'.join(re.escape(w) for w in context_words('persona_after'))}|$))",
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
