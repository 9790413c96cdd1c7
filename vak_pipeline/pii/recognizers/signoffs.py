"""Person names that sign a message off: a closing line ("Thanks,", "Best regards", "Dhanyawad,", "धन्यवाद,",
"谢谢！") and, on the next line, only a name that ends the text or its paragraph. Written chats and e-mails sign
that way; the name has no cue word of its own. The closings are data: `name_context.<lang>.closings`."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from ...locales.base import LocalePack
from .base import DEVA_STOP, Match, context_words, phrase_alt
from .base import ZH_SURNAMES as _ZH_SURNAMES
from .lexicon_names import name_like
from .names import STOP, name_norm

_CLOSINGS = context_words("closings") + context_words("closings", "deva") + context_words("closings", "han")


@functools.lru_cache(maxsize=64)
def _signoff_re(own: tuple[str, ...]) -> re.Pattern[str]:
    """The closing alone on its line (a mark after it), then the name's line, then a line break or the end; the
    closings of the packs with shared_cues and `own`, a pack file's (`Mit freundlichen Grüßen`, `Un saludo`)."""
    closings = sorted(set(_CLOSINGS) | set(own), key=len, reverse=True)
    return re.compile(
        rf"(?:^|\n)[ \t]*{phrase_alt(closings)}[ \t]*[,.!！，。]?[ \t]*\n[ \t]*([^\n]+?)[ \t]*(?=\n\s*\n|\s*$)",
        re.IGNORECASE,
    )


_LATIN_WORD = re.compile(
    r"[A-Z\u00c0-\u00d6\u00d8-\u00de\u0100-\u024f][a-z\u00df-\u00f6\u00f8-\u024f]+"
    r"(?:[-'][A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]+)?"
)
_PARTICLES = frozenset(context_words("particles"))
# words never in a signature's name: the stop and brand words ("The Support Team", "Acme Bank"), the closings
_NOT_NAME = STOP | frozenset(w for c in context_words("closings") for w in c.split())
_DEVA_WORD = re.compile(r"[\u0900-\u097F]+")
_DEVA_NOT_NAME = DEVA_STOP | frozenset(context_words("closings", "deva"))
_HAN_NAME = re.compile(r"[\u4e00-\u9fff]{2,3}")


def _latin_name(words: list[str], pack: LocalePack) -> bool:
    """One to four words, capitalised (a particle between them: "Víctor de la Fuente"), none a stop word, one a
    listed name or no English word (and a single word must be: "Regards,\nCopy" is no name)."""
    return (
        0 < len(words) <= 4
        and all(_LATIN_WORD.fullmatch(w) or (0 < k < len(words) - 1 and w in _PARTICLES) for k, w in enumerate(words))
        and not any(w.lower() in _NOT_NAME for w in words)
        and any(name_like(pack, w.lower()) for w in words if w not in _PARTICLES)
    )


def _signature(line: str, pack: LocalePack) -> bool:
    words = line.split()
    if _LATIN_WORD.match(line):
        return _latin_name(words, pack)
    if _DEVA_WORD.match(line):
        return (
            0 < len(words) <= 3
            and all(_DEVA_WORD.fullmatch(w) for w in words)
            and not any(w in _DEVA_NOT_NAME for w in words)
        )
    return _HAN_NAME.fullmatch(line) is not None and line[0] in _ZH_SURNAMES


def find_signoff_names(text: str, pack: LocalePack) -> Iterator[Match]:
    """The name on the line after a closing, where that line holds nothing else (see the module docstring)."""
    if "\n" not in text:
        return
    own = pack.rules.name_closings if pack.rules is not None else ()
    for m in _signoff_re(own).finditer(text):
        if _signature(m.group(1), pack):
            yield Match("person_name", m.start(1), m.end(1), 0.8, "name_signoff", name_norm(m.group(1)))
