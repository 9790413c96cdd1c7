"""PII scanning hook of a locale pack: the recognizers the pack enables (redaction.recognizers).

The validator calls this over every record, so it must stay cheap: regexes compile at import, and each
recognizer has a prefilter (no digits -> no number recognizers; no digit run -> no libphonenumber).
"""

from __future__ import annotations

from .base import LocalePack, PiiFinding


def scan_pii(pack: LocalePack, text: str, names: tuple[str, ...] = (),
             persona: frozenset[str] = frozenset()) -> list[PiiFinding]:
    """PII still present in `text`: type and character range per finding (never the value)."""
    from ..redaction.recognizers import find_pii

    return [PiiFinding(type=m.type, start=m.start, end=m.end, score=m.score, recognizer=m.recognizer)
            for m in find_pii(pack, text, tuple(names), persona=persona)]
