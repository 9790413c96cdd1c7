"""IBANs: country code, two check digits, up to 30 alphanumerics; valid only if mod-97 == 1."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import Match
from .checksums import iban_ok

_IBAN_RE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])")


def find_ibans(text: str) -> Iterator[Match]:
    for m in _IBAN_RE.finditer(text):
        raw = m.group()
        # a greedy match may have swallowed a following word: shorten group by group until it checks out
        while raw:
            compact = raw.replace(" ", "")
            if 15 <= len(compact) <= 34 and iban_ok(compact):
                yield Match("iban", m.start(), m.start() + len(raw), 0.95, "mod97", compact)
                break
            cut = raw.rfind(" ")
            if cut <= 4:
                break
            raw = raw[:cut]
