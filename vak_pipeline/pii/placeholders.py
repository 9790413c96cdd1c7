"""The numbered placeholder that replaces a PII value (`<PHONE_1>`, `<PERSON_2>`, `<CN_ID_1>`), defined once.

The redaction stage writes them, the recognizers never re-detect them, and the recipes drop or keep
words and turns that carry them; all three read this module so they agree on what a placeholder is.
"""

from __future__ import annotations

import re

# a placeholder this pipeline writes: an upper-case type (letters, digits, '_') then '_' and a number
PLACEHOLDER_RE = re.compile(r"<[A-Z][A-Z0-9_]*_\d+>")
# placeholders written before the redaction stage (aidb pseudonym tokens, an earlier redaction), with
# the type and number as groups so the stage continues their numbering; <SECRET> is aidb's unnumbered one
UPSTREAM_PLACEHOLDER_RE = re.compile(r"<([A-Z][A-Z_]*?)_([1-9][0-9]*)>|<SECRET>")


def format_placeholder(prefix: str, n: int) -> str:
    """The placeholder of the n-th distinct value of a type (`prefix` as in recognizers.PLACEHOLDER_PREFIX)."""
    return f"<{prefix}_{n}>"
