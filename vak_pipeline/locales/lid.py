"""Per-turn language detection (placeholder until the speech issue lands: returns the fallback)."""

from __future__ import annotations

from .base import LocalePack


def detect_lang(pack: LocalePack, text: str, fallback: str | None = None) -> str:
    return fallback or pack.default_lang
