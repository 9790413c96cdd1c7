"""A locale pack: the languages a conversation may use, how to detect them, and what PII looks like."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LocalePack:
    id: str
    languages: tuple[str, ...]
    default_lang: str
    siblings: tuple[str, ...] = ()
    phone_regions: tuple[str, ...] = ()
    romanized_hindi: bool = False  # Latin-script turns may be hi-Latn (en-IN, hi-Latn-IN)
    pii_types: tuple[str, ...] = field(default=())
    # from the pack file (locales/data/*.yaml, docs/locale-packs.md); the defaults are the original packs'
    default_for: tuple[str, ...] = ()
    lid_detector: str = "script"  # "lingua": lingua restricted to lid_languages, behind detect_lang
    lid_languages: tuple[str, ...] = ()
    lid_function_words: dict[str, frozenset[str]] = field(default_factory=dict, compare=False, hash=False)
    name_countries: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    number_words: tuple[tuple[str, str], ...] = ()  # () = the built-in English/Hindi/Chinese table
    source: str = "built-in"
    rules: Any = field(default=None, compare=False, hash=False, repr=False)  # packfile.PackRules


