"""The registered locale packs. A record's `locale` must name one of these.

Every pack is a YAML file (locales/packfile.py): the built-in ones in locales/data/, a user's in
`data/locales/` (relative to the working directory) or in the directories named by the
`VAK_LOCALE_DIRS` setting (os.pathsep-separated). A user pack with a built-in id replaces it. A broken
pack file stops the import with its file, line and key: a silently missing pack would refuse every
record of its language later, far from the cause.
"""

from __future__ import annotations

import os
from pathlib import Path

from .base import LocalePack
from .packfile import BUILTIN_DIR, PackFileError, PackRules, load_pack_file

__all__ = [
    "BUILTIN_PACKS",
    "PACKS",
    "PackFileError",
    "UnknownLocale",
    "declared_languages",
    "get_pack",
    "load_pack_dir",
    "pack_from_doc",
    "user_pack_dirs",
]


def pack_from_doc(doc: dict, rules: PackRules, source: str) -> LocalePack:
    nc = doc.get("name_countries") or {}
    lid = doc.get("lid") or {}
    words = () if doc.get("shared_number_words") else tuple(
        sorted((w.lower(), d) for per_lang in (doc.get("number_words") or {}).values() for w, d in per_lang.items())
    )  # a shared pack's words are the built-in table itself (recognizers/spoken_digits.py)
    return LocalePack(
        doc["id"],
        tuple(doc["languages"]),
        doc["default_lang"],
        siblings=tuple(doc.get("siblings") or ()),
        phone_regions=tuple(doc["phone_regions"]),
        romanized_hindi=bool(doc.get("romanized_hindi", False)),
        pii_types=tuple(doc["pii_types"]),
        default_for=tuple(doc.get("default_for") or ()),
        lid_detector=lid.get("detector", "script"),
        lid_languages=tuple(lid.get("languages") or ()),
        lid_function_words=_function_words(lid.get("function_words") or {}),
        name_countries=(tuple(nc.get("primary") or ()), tuple(nc.get("secondary") or ())),
        number_words=words,
        source=source,
        rules=rules,
    )


def _function_words(by_lang: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    """Each language's closed-class words, less those two languages share ("on", "a"): they tell nothing."""
    sets = {lang: frozenset(w.lower() for w in words) for lang, words in by_lang.items()}
    return {lang: words - frozenset().union(*(o for other, o in sets.items() if other != lang))
            for lang, words in sets.items()}


def load_pack_dir(directory: Path, source: str | None = None) -> dict[str, LocalePack]:
    """Every `*.yaml` pack in `directory`, validated; PackFileError names the first broken file."""
    out: dict[str, LocalePack] = {}
    for path in sorted(directory.glob("*.yaml")):
        doc, rules = load_pack_file(path, source or str(path))
        out[doc["id"]] = pack_from_doc(doc, rules, source or str(path))
    return out


def user_pack_dirs() -> list[Path]:
    """`data/locales/` under the working directory, then each directory in VAK_LOCALE_DIRS."""
    dirs = [Path("data") / "locales"]
    dirs += [Path(d) for d in os.environ.get("VAK_LOCALE_DIRS", "").split(os.pathsep) if d]
    return [d for d in dirs if d.is_dir()]


# The packs shipped in locales/data, whatever a user pack replaces: the built-in (Python) recognizers
# read the original packs' shared tables (business, phone, postcode and name words, number words) from
# these, so a user's en-US.yaml changes what en-US records scan for, not the tables every pack uses.
BUILTIN_PACKS: dict[str, LocalePack] = load_pack_dir(BUILTIN_DIR, "built-in")


def _load_all() -> dict[str, LocalePack]:
    packs = dict(BUILTIN_PACKS)
    for d in user_pack_dirs():
        for path in sorted(d.glob("*.yaml")):
            doc, rules = load_pack_file(path, str(path))
            packs[doc["id"]] = pack_from_doc(doc, rules, str(path.resolve()))
    for p in packs.values():
        for sib in p.siblings:
            if sib not in packs:
                raise PackFileError(
                    f"{p.source}: siblings: pack {sib!r} is not registered; fix: add its pack "
                    "file or remove it from siblings"
                )
    return packs


PACKS: dict[str, LocalePack] = _load_all()


def register_pack_dir(directory: Path) -> list[str]:
    """Load the packs of `directory` into PACKS (a run's own pack directory); returns their ids."""
    loaded = load_pack_dir(directory)
    PACKS.update(loaded)
    return sorted(loaded)


def packs_fingerprint() -> str:
    """Hash of every registered pack's file (built-in and user): what the recognizers were told is PII.
    Part of the redaction cache key, so editing or adding a pack file re-redacts once."""
    import hashlib

    h = hashlib.sha256()
    for pid in sorted(PACKS):
        src = PACKS[pid].source
        path = BUILTIN_DIR / f"{pid}.yaml" if src == "built-in" else Path(src)
        h.update(pid.encode() + b"\0")
        h.update(path.read_bytes() if path.is_file() else src.encode())
    return h.hexdigest()[:16]


class UnknownLocale(KeyError):
    pass


def get_pack(locale: str) -> LocalePack:
    try:
        return PACKS[locale]
    except KeyError:
        raise UnknownLocale(f"unknown locale {locale!r}; registered packs: {', '.join(sorted(PACKS))}") from None


def declared_languages(locale: str) -> set[str]:
    """Languages the pack or one of its sibling packs declares (the rule for turns[].lang)."""
    pack = get_pack(locale)
    langs = set(pack.languages)
    for sib in pack.siblings:
        langs.update(PACKS[sib].languages)
    return langs
