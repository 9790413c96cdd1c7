"""The safety net for spoken identifiers no recognizer could type: an e-mail-like "... at <something> dot
com" and a spelled-out run of letters and digits ("T W, 6 4 9 2 1", "j o h n"), as ASR writes them.

tiny.en garbles what the typed recognizers rely on ("priya at jee mail dot com", a provider no list has),
so the redaction stage also redacts these shapes, in every turn text, by default: the placeholder goes in
the text, the words' time is masked in the audio, and the redaction log names the recognizer
(`unsure_email`, `spelled_run`). Digit runs are the `unsure_number` net (pii.recognizers.asked), taken
after a question; these two shapes are taken anywhere, since neither is ordinary speech.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..pii.recognizers import Match

EMAIL_LIKE = "email"  # typed as an e-mail: its placeholder is <EMAIL_n>
SPELLED = "spelled_code"  # a code spelled letter by letter: <SPELLED_CODE_n>
_TLD = r"(?:com|net|org|edu|gov|info|biz|co(?:\s+dot\s+(?:uk|in))?|in|uk|io|us|me)"
_STOP = r"(?:is|it'?s|its|was|email|e-?mail|address|mail|to|my|me|the|send|it|and|use|that'?s|yes|yeah|sure|so|" \
        r"um|uh|oh|at|on|or|be|id)"
# a local part (words joined by "dot"/"underscore"/"dash", no stop word), "at", a domain of one to three
# words, "dot", a top-level domain
_EMAIL_LIKE = re.compile(
    rf"(?<![\w'])(?:(?!{_STOP}\b)[a-z0-9][\w'-]*(?:\s+(?:dot|underscore|dash)\s+[a-z0-9][\w'-]*)*\s+)?"
    rf"at\s+(?!{_STOP}\b)[a-z0-9][\w-]*(?:\s+(?!dot\b)[a-z0-9][\w-]*){{0,2}}\s+dot\s+{_TLD}(?![\w-])",
    re.IGNORECASE,
)
# four or more single letters or digits in a row, apart from one another ("T W, 6 4 9 2 1")
_SPELLED = re.compile(r"(?<![\w'])[A-Za-z0-9](?:[\s,.\-]{1,3}[A-Za-z0-9](?![\w'])){3,}")
_ORDINARY_LETTERS = frozenset("aAiI")  # "a" and "I" are words; a run needs two other characters


def find_spoken_ids(text: str) -> Iterator[Match]:
    """E-mail-like and spelled runs in a turn's text (see the module docstring)."""
    low = text.lower()
    if " at " in low and " dot " in low:
        for m in _EMAIL_LIKE.finditer(text):
            yield Match(EMAIL_LIKE, m.start(), m.end(), 0.3, "unsure_email", " ".join(m.group().lower().split()))
    for m in _SPELLED.finditer(text):
        chars = [c for c in m.group() if c.isalnum()]
        if sum(c not in _ORDINARY_LETTERS for c in chars) < 2 or not any(c.isalpha() for c in chars):
            continue  # digits alone are the unsure_number net's (after a question only)
        yield Match(SPELLED, m.start(), m.end(), 0.3, "spelled_run", "".join(chars).lower())
