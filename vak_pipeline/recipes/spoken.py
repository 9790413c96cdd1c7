"""One spoken form per turn: what an export's text says where a placeholder's audio was rendered or masked.

A placeholder (`<PHONE_1>`, `<SECRET>`, pii.placeholders) is never audible as itself. Synth speaks it as a
fake surrogate (work/<upload>/synth/<conv>.json holds the map); in a recording its span is masked
(silence or tone, masking.py). Every recipe writes its text targets through `SpokenForms`, defined here
once, so the text says what the audio says:

- a synthesized record's placeholder -> the surrogate's spoken form, as the engine was given it
  ("T W, 6 4 9 2 1"), in the turn text and in the alignment word that times it;
- any other placeholder -> `MASKED_TEXT` (nothing): the audio there is masked. A timed stream (moshi
  alignments) has a gap there, listed under "masked" in the conversation's alignment file.

`spoken_mismatch` is the check: an export's text against the words of the audio's alignment.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..layout import DataLayout
from ..pii import PLACEHOLDER_RE
from ..schema import Alignment, VakRecord
from ..storage import resolve_inside

MASKED_TEXT = ""  # the documented silence token: a masked placeholder is written as nothing
_PUNCT = ".,!?;:"
_STRAY = re.compile(r"\s+([.,!?;:])(?=\s|$)")
_NORM = re.compile(r"[^\w<>]+")


@dataclass(frozen=True)
class SpokenForms:
    """One record's placeholder -> audible text map (empty for a recording: every placeholder is masked)."""

    surrogates: dict[str, str] = field(default_factory=dict)
    synthesized: bool = False

    def unspoken(self, text: str) -> list[str]:
        """Placeholders of `text` a synthesized record spoke but whose surrogate is unknown here."""
        if not self.synthesized:
            return []
        return [m.group(0) for m in PLACEHOLDER_RE.finditer(text) if m.group(0) not in self.surrogates]

    def text(self, text: str, keep_masked: bool = False) -> str:
        """The text as heard: surrogates spoken, masked placeholders dropped (with the space or stray
        punctuation they leave: "Mrs. <PERSON_1>. How" -> "Mrs. How"), on one line."""
        dropped = False

        def sub(m: re.Match[str]) -> str:
            nonlocal dropped
            spoken = self.surrogates.get(m.group(0))
            if spoken is not None:
                return spoken
            if keep_masked:
                return m.group(0)
            dropped = True
            return MASKED_TEXT

        out = PLACEHOLDER_RE.sub(sub, text)
        if dropped:
            out = _STRAY.sub(lambda m: "" if m.start() and out[m.start() - 1] in _PUNCT else m.group(1), out)
        return " ".join(out.split())

    def word(self, word: str) -> list[str] | None:
        """An alignment word as heard: [word] when it holds no placeholder, the surrogate's words when it
        holds a spoken one, None when it is masked (the caller leaves a gap)."""
        found = [m.group(0) for m in PLACEHOLDER_RE.finditer(word)]
        if not found:
            return [word]
        if not any(p in self.surrogates for p in found):
            return None
        return self.text(word).split() or None


def spread(parts: list[str], start: float, end: float) -> list[tuple[str, float, float]]:
    """Words sharing one timed span, each given a share of it by its length (a surrogate's words)."""
    total = sum(len(p) for p in parts) or 1
    out, pos = [], start
    for k, p in enumerate(parts):
        nxt = end if k == len(parts) - 1 else pos + (end - start) * len(p) / total
        out.append((p, round(pos, 3), round(nxt, 3)))
        pos = nxt
    return out


def spoken_forms(layout: DataLayout, record: VakRecord) -> SpokenForms:
    """The record's spoken forms: from synth's sidecar when its audio was synthesized, else none (masked)."""
    if record.audio is None or record.audio.synthesis is None:
        return SpokenForms()
    for upload in layout.uploads():
        # inside the data root only (no link out of it, no '..' from a conversation id)
        path = resolve_inside(layout.root, str(layout.synth_sidecar(upload, record.id).relative_to(layout.root)))
        if path is None:
            continue
        try:
            side = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(side, dict) and side.get("conversation_id") == record.id:
            rows = side.get("surrogates") or []
            return SpokenForms({r["placeholder"]: r["spoken"] for r in rows
                                if isinstance(r, dict) and isinstance(r.get("spoken"), str)}, True)
    return SpokenForms(synthesized=True)


def normalized_words(text: str) -> list[str]:
    """Words compared by the check: lower case, punctuation dropped."""
    return [w for w in (_NORM.sub("", x).lower() for x in text.split()) if w]


def heard_words(alignment: Alignment, forms: SpokenForms, turn: int) -> list[str]:
    """The words the audio says in one turn, by its alignment (surrogates spoken, masked words gone)."""
    out: list[str] = []
    for w in alignment.words:
        if w.turn == turn:
            out += forms.word(w.word) or []
    return normalized_words(" ".join(out))


def spoken_mismatch(text: str, alignment: Alignment, forms: SpokenForms, turn: int) -> str | None:
    """None when an export's text for `turn` says the alignment's words; else what differs (no values:
    the counts and the first differing position only)."""
    said, heard = normalized_words(text), heard_words(alignment, forms, turn)
    if said == heard:
        return None
    k = next((i for i, (a, b) in enumerate(zip(said, heard, strict=False)) if a != b), min(len(said), len(heard)))
    return f"turn {turn}: the text has {len(said)} word(s), the audio {len(heard)}; they differ from word {k}"
