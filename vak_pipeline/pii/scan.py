"""What PII is still in a text, by the recognizers a locale pack enables (pii.recognizers).

The validator calls this over every record, so it must stay cheap: regexes compile at import, and each
recognizer has a prefilter (no digits -> no number recognizers; no digit run -> no libphonenumber).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ..locales.base import LocalePack


class PiiFinding(BaseModel):
    """A PII match. Carries the type and character range only; callers never log the value."""

    model_config = ConfigDict(frozen=True)
    type: str
    start: int
    end: int
    score: float = 1.0
    recognizer: str = ""


def scan_pii(pack: LocalePack, text: str, names: tuple[str, ...] = (),
             persona: frozenset[str] = frozenset()) -> list[PiiFinding]:
    """PII still present in `text`: type and character range per finding (never the value)."""
    from .recognizers import find_pii

    return [PiiFinding(type=m.type, start=m.start, end=m.end, score=m.score, recognizer=m.recognizer)
            for m in find_pii(pack, text, tuple(names), persona=persona)]
