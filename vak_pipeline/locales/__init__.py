"""Locale packs: languages, detect_lang, PII recognizers."""

from .base import LocalePack, PiiFinding
from .registry import PACKS, UnknownLocale, declared_languages, get_pack

__all__ = ["PACKS", "LocalePack", "PiiFinding", "UnknownLocale", "declared_languages", "get_pack"]
