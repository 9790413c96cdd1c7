"""The placeholder that stands for a PII value (`<PHONE_1>`, `<PER_2>`, aidb's bare `<SECRET>`), defined once.

The redaction stage writes numbered ones, importers bring numbered and unnumbered ones (aidb's `<PER_1>`
and `<SECRET>`, an upstream `<EMAIL>`), the recognizers never re-detect any of them, synth speaks each
as a surrogate and the recipes drop or replace the words and turns that carry one; all of them read
this module so they agree on what a placeholder is.
"""

from __future__ import annotations

import re

# any placeholder: an upper-case type (letters, digits, '_'), optionally '_' and a number, in angle brackets;
# group 1 is the type, group 2 the number (None for an unnumbered one such as <SECRET>)
PLACEHOLDER_RE = re.compile(r"<([A-Z][A-Z0-9_]*?)(?:_([1-9][0-9]*))?>")
# the same pattern, under the name the redaction stage reads placeholders written before it with (aidb
# pseudonym tokens, an earlier redaction): it continues their numbering from group 2
UPSTREAM_PLACEHOLDER_RE = PLACEHOLDER_RE


def format_placeholder(prefix: str, n: int) -> str:
    """The placeholder of the n-th distinct value of a type (`prefix` as in recognizers.PLACEHOLDER_PREFIX)."""
    return f"<{prefix}_{n}>"


def placeholder_type(placeholder: str) -> str | None:
    """The type of a placeholder (`<PHONE_1>` -> "PHONE", `<SECRET>` -> "SECRET"), None when it is not one."""
    m = PLACEHOLDER_RE.fullmatch(placeholder)
    return m.group(1) if m else None
