"""What the PII tests share: per-type counts of a labelled set scored against `find_pii`, and name spans."""

from __future__ import annotations

from collections import Counter

from vak_pipeline.locales import get_pack
from vak_pipeline.pii.recognizers import find_pii


def counts(rows: list[dict]) -> dict[str, Counter]:
    """tp/fp/fn per PII type: a match counts once against an overlapping gold span of its type."""
    c: dict[str, Counter] = {}
    for r in rows:
        gold = [(s["type"], s["start"], s["end"]) for s in r["spans"]]
        used: set[int] = set()
        for m in find_pii(get_pack(r["locale"]), r["text"]):
            hit = next(
                (i for i, (t, a, b) in enumerate(gold) if i not in used and t == m.type and m.start < b and a < m.end),
                None,
            )
            c.setdefault(m.type, Counter())["fp" if hit is None else "tp"] += 1
            if hit is not None:
                used.add(hit)
        for i, (t, _, _) in enumerate(gold):
            if i not in used:
                c.setdefault(t, Counter())["fn"] += 1
    return c


def precision_recall(c: Counter) -> tuple[float, float]:
    return c["tp"] / max(c["tp"] + c["fp"], 1), c["tp"] / max(c["tp"] + c["fn"], 1)


def names(locale: str, text: str) -> list[tuple[int, int]]:
    """The person-name spans `find_pii` gives `text` in the pack of `locale`."""
    return [(m.start, m.end) for m in find_pii(get_pack(locale), text) if m.type == "person_name"]


def span(text: str, value: str) -> tuple[int, int]:
    s = text.index(value)
    return s, s + len(value)
