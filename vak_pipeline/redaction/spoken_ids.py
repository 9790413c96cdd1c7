"""The safety net for spoken identifiers no recognizer could type: an e-mail-like "... at <something> dot
com" and a spelled-out run of letters and digits ("T W, 6 4 9 2 1", "j o h n"), as ASR writes them.

tiny.en garbles what the typed recognizers rely on ("priya at jee mail dot com", a provider no list has),
so the redaction stage also redacts these shapes, in every turn text, by default: the placeholder goes in
the text, the words' time is masked in the audio, and the redaction log names the recognizer
(`unsure_email`, `spelled_run`). Digit runs are the `unsure_number` net (pii.recognizers.asked), taken
after a question; these two shapes are taken anywhere, since neither is ordinary speech.

A third shape is a *personal* reference: a speaker's own reference, case, claim, policy, letter or
membership ("the reference on my letter is 9k, 24723", "my case number is 4471 B"), a code of letters and
digits (four digits or more) after "my"/"our" and the cue. Such a reference identifies a person's case,
so it is personal data and is redacted (`personal_reference`). A business's own reference read out
without "my"/"our" ("your appointment ..., reference order 890807168970", "reference ticket TK-83099")
stays: it names an order or a ticket, not who is calling, and the tuned set labels it so. Customer, account,
order and booking numbers are not cues even after "my": the canonical format keeps them as business data
(its example's `customer_id` "SC-4471" stays in the text and the tool calls, where the model learns to use it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..pii.recognizers import Match, resolve_overlaps

EMAIL_LIKE = "email"  # typed as an e-mail: its placeholder is <EMAIL_n>
SPELLED = "spelled_code"  # a code spelled letter by letter: <SPELLED_CODE_n>
NUMBER = "unsure_number"  # digits of no known type, as the asked-number net types them: <NUMBER_n>
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
# "my"/"our", a cue within a few words, a verb or "number", then a code: tokens of letters and digits with four
# digits or more in all, each token holding a digit (but a leading one of one or two letters: "TW 64921")
_CUE = r"(?:reference|ref|case|claim|policy|letter|membership|application)"  # not customer/account: business ids
_CODE_TOKEN = r"(?:[A-Za-z]{0,3}\d[A-Za-z0-9]{0,11})"
_PERSONAL_REF = re.compile(
    rf"\b(?:my|our)\s+(?:[a-z]+\s+){{0,3}}?{_CUE}\b[^.?!\d]{{0,30}}?"
    rf"(?:\b(?:(?:number|no\.?)\s+)?(?:is|was|reads|says)\b|\b(?:number|no\.?)(?!\w)|:)\s*"
    rf"(?P<code>(?:(?-i:[A-Z]{{1,2}})[\s,.\-/]{{1,3}})?{_CODE_TOKEN}(?:[\s,.\-/]{{1,3}}{_CODE_TOKEN}){{0,4}})",
    re.IGNORECASE,
)
_SCORE = 0.55  # above the verbatim sweep's repeats (0.5), so the log names this net; below typed recognizers
_OURS = ("unsure_email", "spelled_run", "personal_reference")


def find_spoken_ids(text: str) -> Iterator[Match]:
    """E-mail-like and spelled runs in a turn's text (see the module docstring)."""
    low = text.lower()
    if " at " in low and " dot " in low:
        for m in _EMAIL_LIKE.finditer(text):
            yield Match(EMAIL_LIKE, m.start(), m.end(), _SCORE, "unsure_email", " ".join(m.group().lower().split()))
    if "." in low:
        for m in _EMAIL_WRITTEN.finditer(text):
            yield Match(EMAIL_LIKE, m.start(), m.end(), _SCORE, "unsure_email", " ".join(m.group().lower().split()))
    if "my " in low or "our " in low:
        for m in _PERSONAL_REF.finditer(text):
            code = m.group("code").rstrip(" ,.-/")
            if sum(c.isdigit() for c in code) >= 4:
                start = m.start("code")
                kind = NUMBER if not any(c.isalpha() for c in code) else SPELLED  # digits alone: a number
                yield Match(kind, start, start + len(code), _SCORE, "personal_reference",
                            "".join(c for c in code if c.isalnum()).lower())
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
