"""Locale packs: languages, detect_lang, PII recognizers."""

from .base import LocalePack
from .registry import PACKS, UnknownLocale, declared_languages, get_pack

__all__ = ["PACKS", "LocalePack", "UnknownLocale", "declared_languages", "get_pack"]
