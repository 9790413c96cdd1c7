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

from ..pii.recognizers import Match, resolve_overlaps

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
# ASR writes the domain but keeps the spoken "at" ("italy at inboxain.com"), or glues a provider-ish
# domain ("serenitymail.com")
_WRITTEN_TLD = r"\.(?:com|net|org|edu|gov|info|biz|io|in|us|me|co\.uk|co\.in)(?![\w-])"
_EMAIL_WRITTEN = re.compile(
    rf"(?<![\w'@.])(?:(?:(?!{_STOP}\b)[a-z0-9][\w'-]*\s+)?at\s+[a-z0-9][\w-]*|[a-z0-9][\w-]*mail){_WRITTEN_TLD}",
    re.IGNORECASE,
)
# four or more single letters or digits in a row, apart from one another ("T W, 6 4 9 2 1")
_SPELLED = re.compile(r"(?<![\w'])[A-Za-z0-9](?:[\s,.\-]{1,3}[A-Za-z0-9](?![\w'])){3,}")
_ORDINARY_LETTERS = frozenset("aAiI")  # "a" and "I" are words; a run needs two other characters
_SCORE = 0.55  # above the verbatim sweep's repeats (0.5), so the log names this net; below typed recognizers
_OURS = ("unsure_email", "spelled_run")


def find_spoken_ids(text: str) -> Iterator[Match]:
    """E-mail-like and spelled runs in a turn's text (see the module docstring)."""
    low = text.lower()
    if " at " in low and " dot " in low:
        for m in _EMAIL_LIKE.finditer(text):
            yield Match(EMAIL_LIKE, m.start(), m.end(), _SCORE, "unsure_email", " ".join(m.group().lower().split()))
    if "." in low:
        for m in _EMAIL_WRITTEN.finditer(text):
            yield Match(EMAIL_LIKE, m.start(), m.end(), _SCORE, "unsure_email", " ".join(m.group().lower().split()))
    for m in _SPELLED.finditer(text):
        chars = [c for c in m.group() if c.isalnum()]
        if sum(c not in _ORDINARY_LETTERS for c in chars) < 2 or not any(c.isalpha() for c in chars):
            continue  # digits alone are the unsure_number net's (after a question only)
        yield Match(SPELLED, m.start(), m.end(), _SCORE, "spelled_run", "".join(chars).lower())


def with_spoken_ids(matches: list[Match], text: str) -> list[Match]:
    """The typed matches plus the spoken ids of `text`: a run replaces the typed matches inside it (a
    name inside an e-mail-like run is part of the address), joins another run it overlaps ("j o h n" +
    "n at outlook dot com": one address) and gives way to a typed match reaching beyond it."""
    out = list(matches)
    for run in find_spoken_ids(text):
        hit = [m for m in out if m.start < run.end and run.start < m.end]
        if not all(run.start <= m.start and m.end <= run.end or m.recognizer in _OURS for m in hit):
            continue
        for m in hit:
            if m.recognizer in _OURS and not (run.start <= m.start and m.end <= run.end):
                longer = max(m, run, key=lambda x: x.end - x.start)
                run = Match(longer.type, min(m.start, run.start), max(m.end, run.end), _SCORE, longer.recognizer,
                            " ".join(text[min(m.start, run.start):max(m.end, run.end)].lower().split()))
        out = [m for m in out if m not in hit] + [run]
    return resolve_overlaps(out)
