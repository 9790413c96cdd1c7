"""A locale pack: the languages a conversation may use, how to detect them, and what PII looks like."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict


class PiiFinding(BaseModel):
    """A PII match. Carries the type and character range only; callers never log the value."""

    model_config = ConfigDict(frozen=True)
    type: str
    start: int
    end: int
    score: float = 1.0
    recognizer: str = ""


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

    def detect_lang(self, text: str, fallback: str | None = None) -> str:
        """Language tag of one turn, code-switch aware (see locales.lid)."""
        from .lid import detect_lang

        return detect_lang(self, text, fallback)

    def scan_pii(self, text: str, names: tuple[str, ...] = (),
                 persona: frozenset[str] = frozenset()) -> list[PiiFinding]:
        """PII still present in `text` (see locales.pii). `names`: known person names to catch;
        `persona`: the agent persona's name tokens, which are not PII."""
        from .pii import scan_pii

        return scan_pii(self, text, names, persona)
