"""Between the redacted text a reviewer saw and the private text it stands for: where each placeholder's value is."""

from __future__ import annotations

from ..pii.placeholders import PLACEHOLDER_RE


def value_spans(original: str, redacted: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """For each placeholder span (start, end) of `redacted`, the (start, end) of its value in `original`; None
    when the texts do not fit each other (the transcript changed) or two placeholders touch (ambiguous)."""
    out: list[tuple[int, int]] = []
    spans = sorted(spans)
    ro = oo = 0
    for k, (s, e) in enumerate(spans):
        lit = redacted[ro:s]
        if original[oo:oo + len(lit)] != lit:
            return None
        oo += len(lit)
        last = k + 1 == len(spans)
        after = redacted[e:spans[k + 1][0] if not last else len(redacted)]
        if last:
            j = len(original) - len(after) if original.endswith(after) else -1
        elif after:
            j = original.find(after, oo)
        else:
            return None
        if j < oo:
            return None
        out.append((oo, j))
        oo, ro = j, e
    return out if redacted[ro:] == original[oo:] else None


def placeholder_values(original: str, redacted: str, spans: list[tuple[int, int]]) -> dict[str, str] | None:
    """Placeholder (`<PHONE_1>`) -> the private value it replaced in this text; None when they do not fit."""
    found = value_spans(original, redacted, spans)
    if found is None:
        return None
    return {redacted[s:e]: original[a:b] for (s, e), (a, b) in zip(sorted(spans), found, strict=True)}


def restore_placeholders(text: str, values: dict[str, str]) -> tuple[str, int]:
    """`text` with each placeholder it kept put back to its value (redaction runs again over the result), and
    how many placeholders had no known value (they stay: still redacted)."""
    unknown = 0

    def sub(m) -> str:
        nonlocal unknown
        if m.group() in values:
            return values[m.group()]
        unknown += 1
        return m.group()

    return PLACEHOLDER_RE.sub(sub, text), unknown
