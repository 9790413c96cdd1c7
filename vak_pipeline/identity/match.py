"""What the index and its text batches share: a match, a queued text, how many candidates are compared."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .text import TextPrint

CANDIDATES = 50  # a text is compared with the items sharing most LSH bands with it, this many at most
TextItem = tuple[str, str, str, Callable[[], TextPrint]]  # conv id, upload, content key, how to print it


@dataclass(frozen=True)
class Match:
    """What the index knows of a conversation: its group (the sequence number of the group's first member)
    and how it joined that group (None when it is the group's first member)."""

    conv_id: str
    group: int
    how: str | None  # exact_audio | near_audio | exact_text | near_text
