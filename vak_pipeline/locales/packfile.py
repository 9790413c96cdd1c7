"""Locale pack files: one YAML file per pack, checked against a JSON Schema when it is loaded.

Why data and not Python: a delivery in a new language (Dutch tickets, German chats) should need a
file, not a release. The file says which languages a pack speaks, which PII types apply, the cue words
per type and language, number words for spoken digits, postcode and address patterns, and national ids
by the name of their python-stdnum validator (`stdnum.nl.bsn`). The schema is `pack.schema.json`
next to the built-in packs; docs/locale-packs.md describes every field.

Errors name the file, the line and the key (`de-XX.yaml:12: national_ids[0].validator: ...`): the YAML
is composed into nodes, whose marks keep line numbers, before it is turned into Python values.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
BUILTIN_DIR = Path(__file__).parent / "data"
SCHEMA_PATH = BUILTIN_DIR / "pack.schema.json"


class PackFileError(ValueError):
    """A pack file that cannot be used; the message names file, line, key and the fix."""


@dataclass(frozen=True)
class PatternRule:
    """A postcode or address form: a regex (group 1 is the value when present) and its cue words."""

    type: str
    placeholder: str
    pattern: re.Pattern[str]
    cues: re.Pattern[str] | None
    cue_required: bool


@dataclass(frozen=True)
class IdRule(PatternRule):
    """A national id: a candidate shape like any pattern rule, plus the python-stdnum module that decides."""

    validator: str

    def is_valid(self, value: str) -> bool:
        return bool(_stdnum(self.validator).is_valid(value))


@dataclass(frozen=True)
class IntroRule:
    """A self-introduction: a name between `before` words ("my name is", "ich bin") and `after` words
    ("am Apparat", "bol raha"); either side may be empty. For the pack-file rules (packs without
    shared_cues) the words are compiled here; the built-in recognizer compiles the shared ones itself."""

    lang: str
    before: tuple[str, ...]
    after: tuple[str, ...]
    capitalised: bool
    full_name: bool  # two or more words, or one of the pack's name lists (pack-file rules)
    before_re: re.Pattern[str] | None = None  # ends where the name starts
    after_re: re.Pattern[str] | None = None  # anchored: must match at the end of the name
    after_find: re.Pattern[str] | None = None  # without before words: where the after words are


# cue kinds the built-in recognizers read from the packs with shared_cues (the others: business, own rules)
SHARED_CUE_KINDS = (
    "person_name", "phone", "address", "postcode", "personal", "business_links", "business_determiners",
    "us_ssn", "uk_nino", "uk_nhs", "in_aadhaar", "in_pan",
)
# question_words types: the value types a question can ask for (pii/recognizers/asked.py has their lengths)
QUESTION_TYPES = ("payment_card", "in_pin", "us_zip", "cn_postcode")
# email_words roles: the words of a spoken email address (pii/recognizers/email.py)
EMAIL_ROLES = ("dot", "underscore", "dash", "at", "providers", "tlds", "glued_tlds", "not_local")
# address_words roles (docs/locale-packs.md): the words of the built-in address forms
ADDRESS_ROLES = (
    "street", "not_street", "unit", "unit_number", "sector", "sector_more", "sector_house", "sector_number",
    "locality", "cue_links", "house_cue", "postcode_before", "postcode_links", "regions", "province", "city",
    "district", "number_mark", "building", "letter_building", "estate", "estate_building", "lead_owners", "lead_home",
    "lead",
)
# name_context roles (docs/locale-packs.md): the words around a name, and which words are never one
NAME_ROLES = (
    "titles", "before", "strong_before", "after", "strong_after", "name_words", "stop", "common_words",
    "fillers", "not_before", "ambiguous", "particles", "surnames", "prefixes", "persona_before", "persona_after",
    "spelling", "verbs_before", "name_end", "place_before", "relations", "organisation", "introduces",
    "closings", "joins", "calendar", "determiners",
)


@dataclass(frozen=True)
class PackRules:
    """The compiled, data-driven part of a pack (empty for the built-in packs' Python recognizers)."""

    ids: tuple[IdRule, ...] = ()
    postcodes: tuple[PatternRule, ...] = ()
    addresses: tuple[PatternRule, ...] = ()
    name_cues: re.Pattern[str] | None = None
    phone_cues: re.Pattern[str] | None = None
    personal_cues: re.Pattern[str] | None = None  # a pack's own `personal` cues (phone cues and id cues count too)
    business_cues: re.Pattern[str] | None = None
    placeholders: dict[str, str] = field(default_factory=dict)
    surrogates: dict[str, str] = field(default_factory=dict)  # placeholder -> the fake value synth speaks
    file: str = ""  # the pack file, and the line of each `pii_types` entry, for errors the recognizers raise
    type_lines: tuple[tuple[str, int], ...] = ()
    shared_business: tuple[str, ...] = ()  # words for the built-in recognizers' table (shared_business_cues)
    # the built-in spoken-digit table (shared_number_words): number words, repeat words, digit characters
    shared_number_words: tuple[tuple[str, str], ...] = ()
    shared_repeat_words: tuple[tuple[str, int], ...] = ()
    shared_digit_chars: tuple[tuple[str, str], ...] = ()
    shared_misheard_digits: tuple[tuple[str, str], ...] = ()  # "to" -> 2 between digits after a phone cue
    shared_plus_words: tuple[str, ...] = ()  # "plus" before a country code
    # with shared_cues: the file's cue lists by kind (SHARED_CUE_KINDS), all languages in file order, for the
    # built-in (Python) recognizers of the original packs; empty for other packs
    shared_cue_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # with shared_cues: name_context words by role (NAME_ROLES)
    shared_name_context: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # with shared_cues: address_words by role (ADDRESS_ROLES), regex alternatives, all languages in file order
    shared_address_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # with shared_cues: version_words, regex alternatives, all languages in file order
    shared_version_words: tuple[str, ...] = ()
    # with shared_cues: question_words by type (QUESTION_TYPES), regex alternatives, all languages in file order
    shared_question_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # with shared_cues: email_words by role (EMAIL_ROLES), all languages in file order
    shared_email_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # name_intros: the pack-file rules' (no shared_cues), or the built-in recognizer's (shared_cues)
    intros: tuple[IntroRule, ...] = ()
    shared_intros: tuple[IntroRule, ...] = ()
    # name_context of a pack without shared_cues: its words that end a name and its particles (van, de)
    name_stop: frozenset[str] = frozenset()
    name_particles: frozenset[str] = frozenset()
    # ... its titles skipped between a cue and the name ("Herr Dr. Krebs"), its closings before a signature
    # line ("Mit freundlichen Grüßen"), and its street words (a name beside one is a street: "rue Victor Hugo")
    name_titles: frozenset[str] = frozenset()
    name_closings: tuple[str, ...] = ()
    street_words: frozenset[str] = frozenset()


@functools.cache
def _stdnum(name: str) -> Any:
    if not name.startswith("stdnum."):
        raise ImportError(name)
    mod = importlib.import_module(name)
    if not callable(getattr(mod, "is_valid", None)):
        raise ImportError(name)
    return mod


@functools.lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _line_of(node: yaml.Node, path: tuple[Any, ...]) -> int:
    """1-based line of the node at `path` (keys and list indexes), or of the deepest node found."""
    for key in path:
        if isinstance(node, yaml.MappingNode):
            nxt = None
            for k, v in node.value:
                if k.value == key:
                    nxt = v
                    break
            if nxt is None:
                break
            node = nxt
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            break
    return node.start_mark.line + 1


def _non_text_key(node: yaml.Node) -> yaml.Node | None:
    """The first mapping key YAML reads as something other than text (null, yes, 1), which no field takes."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if k.tag != "tag:yaml.org,2002:str":
                return k
            found = _non_text_key(v)
            if found is not None:
                return found
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            found = _non_text_key(v)
            if found is not None:
                return found
    return None


def _key(path: tuple[Any, ...]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def _cue_alts(words: list[str]) -> str:
    """Cue words/phrases as regex alternatives, longest first; spaces match any whitespace."""
    return "|".join(sorted({r"\s+".join(re.escape(w) for w in word.split()) for word in words}, key=len, reverse=True))


def _cue_re(words: list[str]) -> re.Pattern[str] | None:
    """Cue words/phrases as one case-insensitive regex."""
    if not words:
        return None
    return re.compile(r"(?<![\w])(?:" + _cue_alts(words) + r")(?![\w])", re.IGNORECASE)


def _after_re(words: list[str]) -> re.Pattern[str] | None:
    """Words that must follow a name at once ("am Apparat", "à l'appareil"), anchored where the name ends."""
    if not words:
        return None
    return re.compile(r"\s+(?:" + _cue_alts(words) + r")(?![\w])", re.IGNORECASE)


def cue_alternation(words: list[str] | tuple[str, ...], other_gap: str = r"\s?") -> str:
    """One regex alternative for cue words in any script: Latin words between word boundaries (so "ref"
    is not found in "refund"), Devanagari and Han cues without (they attach to what follows: "订单号");
    a space inside a Latin cue matches any whitespace ("account id"), inside another script optional
    whitespace ("पी एन आर" = "पीएनआर") unless `other_gap` says otherwise."""

    def one(w: str, gap: str) -> str:
        return gap.join(re.escape(part) for part in w.split())

    latin_words = {w for w in words if w.isascii()}
    # longest first; equal lengths in a fixed order (not the set's, which changes with the hash seed)
    latin = _latin_trie(latin_words) or "|".join(sorted({one(w, r"\s+") for w in latin_words}, key=_longest_first))
    other = sorted({one(w, other_gap) for w in words if not w.isascii()}, key=_longest_first)
    alts = ([r"\b(?:" + latin + r")\b"] if latin_words else []) + other
    out = "(?:" + "|".join(alts) + ")" if alts else "(?!)"
    return out


def _longest_first(alt: str) -> tuple[int, str]:
    return -len(alt), alt


def _latin_trie(words: set[str]) -> str | None:
    r"""The Latin cue words as a trie-shaped alternation ("c(?:ase|laim|ust(?:omer)?)"), a space inside a cue
    matching any whitespace; None where the shape could change a match.

    sre tries a flat alternation's words one by one at every position of the text (8.6 us for the business
    cues on a 32-character window); nested by character it tries one branch per character. The matches are
    the same: siblings are distinct characters or one \s+, which no two of can match the same character
    (words differing only in case would, under IGNORECASE: then None), so the depth-first search finds, at
    each position, the longest word followed by the closing \b, as the flat alternation, sorted longest
    first, does."""
    if not words or len({w.lower() for w in words}) != len(words):
        return None
    seqs = sorted({_tokens(w) for w in words})
    return trie_of(seqs)


def _tokens(word: str) -> tuple[str, ...]:
    out: list[str] = []
    for k, part in enumerate(word.split()):
        if k:
            out.append(r"\s+")
        out.extend(re.escape(c) for c in part)
    return tuple(out)


def trie_of(seqs: list[tuple[str, ...]]) -> str:
    """One regex for sorted token sequences (escaped characters, or \\s+), common prefixes factored out."""
    ends_here = () in seqs
    groups: dict[str, list[tuple[str, ...]]] = {}
    for sq in seqs:
        if sq:
            groups.setdefault(sq[0], []).append(sq[1:])
    alts = [tok + trie_of(rest) for tok, rest in groups.items()]
    if not alts:
        return ""
    if len(alts) == 1 and not ends_here:
        return alts[0]
    return "(?:" + "|".join(alts) + ")" + ("?" if ends_here else "")


def _cues_of(doc: dict[str, Any], kind: str) -> list[str]:
    return [w for per_lang in (doc.get("cues") or {}).values() for w in per_lang.get(kind, [])]


def _per_lang_items(doc: dict[str, Any], key: str) -> tuple[tuple[str, Any], ...]:
    """(word, value) of every language under `key`, in file order."""
    return tuple((w, v) for per_lang in (doc.get(key) or {}).values() for w, v in per_lang.items())


def load_pack_file(path: Path, source: str) -> tuple[dict[str, Any], PackRules]:
    """The validated document of one pack file and its compiled rules; PackFileError on any mistake."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackFileError(
            f"{path}: cannot read the pack file ({exc.__class__.__name__}); fix: save it as UTF-8 text"
        ) from None
    try:
        node = yaml.compose(text, Loader=_LOADER)
        doc = yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader (libyaml's when present)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise PackFileError(
            f"{path}:{line}: not valid YAML ({getattr(exc, 'problem', exc)}); fix: check the "
            "indentation and quoting on that line"
        ) from None
    if node is None or not isinstance(doc, dict):
        raise PackFileError(
            f"{path}:1: a pack file is a YAML mapping (id, languages, ...); fix: see docs/locale-packs.md"
        )
    bad_key = _non_text_key(node)
    if bad_key is not None:
        raise PackFileError(
            f"{path}:{bad_key.start_mark.line + 1}: key {bad_key.value!r} is read as "
            f'{bad_key.tag.rsplit(":", 1)[-1]}, not text; fix: quote it ("{bad_key.value}")'
        )
    errors = sorted(jsonschema.Draft202012Validator(schema()).iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        path_t = tuple(e.absolute_path)
        raise PackFileError(
            f"{path}:{_line_of(node, path_t)}: {_key(path_t)}: {e.message}; fix: see the field in docs/locale-packs.md"
        )

    def bad(where: tuple[Any, ...], msg: str) -> PackFileError:
        return PackFileError(f"{path}:{_line_of(node, where)}: {_key(where)}: {msg}")

    stem = path.name.split(".")[0]
    if doc["id"] != stem:
        raise bad(
            ("id",), f"id {doc['id']!r} differs from the file name {path.name!r}; fix: name the file {doc['id']}.yaml"
        )
    if doc["default_lang"] not in doc["languages"]:
        raise bad(
            ("default_lang",),
            f"{doc['default_lang']!r} is not in languages; fix: add it to languages or pick one of them",
        )
    for k, rule in enumerate(doc.get("national_ids") or []):
        try:
            _stdnum(rule["validator"])
        except ImportError:
            raise bad(
                ("national_ids", k, "validator"),
                f"{rule['validator']!r} is not a python-stdnum validator "
                "module; fix: name one such as stdnum.nl.bsn (python -m pydoc stdnum lists them)",
            ) from None
    # A type the file does not declare must be one of the built-in (Python) recognizers; that list lives with
    # the recognizers (pii/recognizers: RECOGNIZERS, check_pack), so only where each enabled type sits is kept.
    declared = {r["type"] for r in doc.get("national_ids") or []} | {r["type"] for r in doc.get("postcodes") or []}
    type_lines = tuple((t, _line_of(node, ("pii_types", k))) for k, t in enumerate(doc["pii_types"]))
    for t in sorted(declared - set(doc["pii_types"])):
        raise bad(("pii_types",), f"{t!r} is declared but not enabled; fix: add it to pii_types")
    placeholders: dict[str, str] = {}
    surrogates: dict[str, str] = {}

    def compile_rx(where: tuple[Any, ...], rx: str) -> re.Pattern[str]:
        try:
            return re.compile(rx)
        except re.error as exc:
            raise bad(
                where, f"not a valid regular expression ({exc}); fix: escape backslashes in YAML with single quotes"
            ) from None

    for lang, by_role in (doc.get("address_words") or {}).items():
        for role, items in by_role.items():
            for k, item in enumerate(items):
                compile_rx(("address_words", lang, role, k), item)
    for lang, items in (doc.get("version_words") or {}).items():
        for k, item in enumerate(items):
            compile_rx(("version_words", lang, k), item)
    for lang, by_type in (doc.get("question_words") or {}).items():
        for ptype, items in by_type.items():
            for k, item in enumerate(items):
                compile_rx(("question_words", lang, ptype, k), item)
    for lang, by_role in (doc.get("email_words") or {}).items():
        for role in ("at", "glued_tlds"):
            for k, item in enumerate(by_role.get(role, [])):
                compile_rx(("email_words", lang, role, k), item)
    postcode_alt = "|".join(f"(?:{p['pattern']})" for p in doc.get("postcodes") or [])
    street = "|".join(
        re.escape(w) for w in sorted((doc.get("address") or {}).get("street_words", []), key=len, reverse=True)
    )
    def typed_rule(section: str, k: int, r: dict[str, Any], body: str, cues: list[str]) -> dict[str, Any]:
        """The fields every typed rule of a section shares; registers its placeholder."""
        placeholders[r["type"]] = r["placeholder"]
        if r.get("surrogate"):
            surrogates.setdefault(r["placeholder"], r["surrogate"])
        return {
            "type": r["type"],
            "placeholder": r["placeholder"],
            "pattern": compile_rx((section, k, "pattern"), body),
            "cues": _cue_re(cues),
            "cue_required": bool(r.get("cue_required", False)),
        }

    ids = [
        IdRule(
            validator=r["validator"],
            **typed_rule("national_ids", k, r, rf"(?<![\w.])(?:{r['pattern']})(?![\w])", r.get("cues") or []),
        )
        for k, r in enumerate(doc.get("national_ids") or [])
    ]
    posts = [
        PatternRule(**typed_rule("postcodes", k, r, rf"(?<![\w])({r['pattern']})(?![\w])", _cues_of(doc, "postcode")))
        for k, r in enumerate(doc.get("postcodes") or [])
    ]
    addrs = []
    cues = _cues_of(doc, "address")
    for k, rx in enumerate((doc.get("address") or {}).get("patterns", [])):
        full = (
            rx.replace("{street}", f"(?i:{street or 'street'})")
            .replace("{postcode}", f"(?:{postcode_alt or '$^'})")
            .replace("{cue}", rf"(?<![\w])(?i:{_cue_alts(cues)})(?![\w])" if cues else "(?!)")
        )
        addrs.append(
            PatternRule(
                "address",
                "ADDRESS",
                compile_rx(("address", "patterns", k), full),
                _cue_re(_cues_of(doc, "address")),
                False,
            )
        )
    shared = bool(doc.get("shared_business_cues", False))
    own = not doc.get("shared_cues", False)  # shared: the built-in recognizers read them (cue_words)
    context = doc.get("name_context") or {}
    for lang, lang_rules in (doc.get("name_intros") or {}).items():
        for k, r in enumerate(lang_rules):
            if not own and not r.get("before"):
                raise bad(
                    ("name_intros", lang, k),
                    "the built-in name recognizer (shared_cues) needs before words; fix: add before, or "
                    "declare the rule in a pack without shared_cues",
                )
    intros = tuple(
        IntroRule(
            lang,
            tuple(r.get("before") or ()),
            tuple(r.get("after") or ()),
            bool(r.get("capitalised", own)),
            bool(r.get("full_name", False)),
            _cue_re(r.get("before") or []) if own else None,
            _after_re(r.get("after") or []) if own else None,
            _cue_re(r.get("after") or []) if own and not r.get("before") else None,
        )
        for lang, rules in (doc.get("name_intros") or {}).items()
        for r in rules
    )
    numbers = doc.get("shared_number_words", False)
    rules = PackRules(
        ids=tuple(ids),
        postcodes=tuple(posts),
        addresses=tuple(addrs),
        name_cues=_cue_re(_cues_of(doc, "person_name")) if own else None,
        phone_cues=_cue_re(_cues_of(doc, "phone")) if own else None,
        personal_cues=_cue_re(_cues_of(doc, "personal")) if own else None,
        business_cues=None if shared else _cue_re(_cues_of(doc, "business")),
        placeholders=placeholders,
        surrogates=surrogates,
        file=str(path),
        type_lines=type_lines,
        shared_business=tuple(_cues_of(doc, "business")) if shared else (),
        shared_number_words=_per_lang_items(doc, "number_words") if numbers else (),
        shared_repeat_words=_per_lang_items(doc, "repeat_words") if numbers else (),
        shared_digit_chars=_per_lang_items(doc, "digit_characters") if numbers else (),
        shared_misheard_digits=_per_lang_items(doc, "misheard_digits") if numbers else (),
        shared_plus_words=tuple(w for ws in (doc.get("plus_words") or {}).values() for w in ws) if numbers else (),
        shared_cue_words={} if own else {kind: tuple(_cues_of(doc, kind)) for kind in SHARED_CUE_KINDS},
        shared_name_context={}
        if own
        else {role: tuple(w for per_lang in context.values() for w in per_lang.get(role, [])) for role in NAME_ROLES},
        shared_address_words={}
        if own
        else {
            role: tuple(w for per_lang in (doc.get("address_words") or {}).values() for w in per_lang.get(role, []))
            for role in ADDRESS_ROLES
        },
        shared_version_words=() if own else tuple(w for ws in (doc.get("version_words") or {}).values() for w in ws),
        shared_question_words={}
        if own
        else {
            t: tuple(w for per_lang in (doc.get("question_words") or {}).values() for w in per_lang.get(t, []))
            for t in QUESTION_TYPES
        },
        shared_email_words={}
        if own
        else {
            role: tuple(w for per_lang in (doc.get("email_words") or {}).values() for w in per_lang.get(role, []))
            for role in EMAIL_ROLES
        },
        intros=intros if own else (),
        shared_intros=() if own else intros,
        name_stop=frozenset(w.lower() for c in context.values() for w in c.get("stop", [])) if own else frozenset(),
        name_particles=frozenset(w for c in context.values() for w in c.get("particles", [])) if own else frozenset(),
        name_titles=frozenset(w.lower() for c in context.values() for w in c.get("titles", [])) if own else frozenset(),
        name_closings=tuple(w for c in context.values() for w in c.get("closings", [])) if own else (),
        street_words=frozenset(w.lower().rstrip(".") for w in (doc.get("address") or {}).get("street_words", []))
        if own
        else frozenset(),
    )
    return doc, rules
