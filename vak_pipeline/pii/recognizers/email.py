"""Email addresses, written ("a.b@example.com") and spoken by ASR ("a dot b at example dot com").

Also UPI ids (name@bank handle, no dot in the handle), which share the shape but not the domain.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import Match, literal_alt, one_of, shared

_EMAIL_RE = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24}(?![A-Za-z0-9\-])")


def _words(role: str) -> tuple[str, ...]:
    """`email_words.<lang>.<role>` of the shipped packs (en-US; hi-Latn-IN's `not_local`), in file order."""
    return shared("email_words", role)


# The words of a spoken address: `email_words` in en-US (dot, underscore, dash, at, providers, tlds ...).
_SEP_WORDS = literal_alt(_words("dot") + _words("underscore") + _words("dash"))
_SPOKEN_DOT = one_of([re.escape(w) for w in _words("dot")])
_TLDS = literal_alt(_words("tlds"))
_SEP = rf"(?:\s+(?:{_SEP_WORDS})\s+|[._\-])"
_SPOKEN_RE = re.compile(
    rf"\b([a-z0-9]+(?:{_SEP}[a-z0-9]+){{0,3}})\s+{one_of(_words('at'))}\s+"
    rf"([a-z0-9]+(?:(?:\s+{_SPOKEN_DOT}\s+|\.)[a-z0-9]+)*(?:\s+{_SPOKEN_DOT}\s+|\.)(?:{_TLDS}))\b",
    re.IGNORECASE,
)
_PROVIDERS = f"(?:{literal_alt(_words('providers'))})"
# "dot com" spoken, or "at gmail.com" (ASR writes the domain but keeps the spoken "at")
_SPOKEN_PREFILTER = re.compile(r"\b" + _SPOKEN_DOT + r"\s+(?:" + _TLDS + r")\b|\bat\s+" + _PROVIDERS + r"\.",
                               re.IGNORECASE)
_GLUED_GATE = re.compile(r"at" + _PROVIDERS + r"\.", re.IGNORECASE)
# ASR glues "name at gmail dot com" into "name.calledwellatgmail.com": a run ending in "at<provider>.<tld>"
_GLUED_RE = re.compile(
    r"(?<![\w@.])([a-z0-9][a-z0-9._\-]*?)at(" + _PROVIDERS + r"\." + one_of(_words("glued_tlds")) + r")\b",
    re.IGNORECASE,
)
_WORD_SEP = {w.lower(): c for role, c in (("dot", "."), ("underscore", "_"), ("dash", "-")) for w in _words(role)}
_SEP_SUB = re.compile(r"\s+(" + _SEP_WORDS + r")\s+", re.IGNORECASE)
_UPI_RE = re.compile(r"(?<![A-Za-z0-9._\-])[A-Za-z0-9][A-Za-z0-9._\-]{1,255}@[A-Za-z][A-Za-z0-9]{1,63}"
                     r"(?![A-Za-z0-9@]|\.[A-Za-z])")
_NOT_WORD_LEFT = {w.lower() for w in _words("not_local")}


def _spoken_norm(s: str) -> str:
    return _SEP_SUB.sub(lambda m: _WORD_SEP[m.group(1).lower()], s).replace(" ", "").lower()


def find_emails(text: str) -> Iterator[Match]:
    """Written addresses, spoken ones ("dot com" or "at gmail.com" must be there) and ASR-glued ones."""
    if "@" in text:
        for m in _EMAIL_RE.finditer(text):
            yield Match("email", m.start(), m.end(), 0.95, "email", m.group().lower())
    if _SPOKEN_PREFILTER.search(text):
        for m in _SPOKEN_RE.finditer(text):
            local = m.group(1)
            if local.lower() in _NOT_WORD_LEFT:
                continue
            norm = _spoken_norm(local) + "@" + _spoken_norm(m.group(2))
            yield Match("email", m.start(), m.end(), 0.85, "spoken_email", norm)
    if _GLUED_GATE.search(text):
        for m in _GLUED_RE.finditer(text):
            yield Match("email", m.start(), m.end(), 0.7, "spoken_email", f"{m.group(1)}@{m.group(2)}".lower())


def find_upi(text: str) -> Iterator[Match]:
    if "@" not in text:
        return
    for m in _UPI_RE.finditer(text):
        yield Match("in_upi", m.start(), m.end(), 0.85, "upi", m.group().lower())
