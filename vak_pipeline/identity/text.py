"""Text identity: an exact key over normalised turns and MinHash signatures of each side's word shingles.

Normalisation drops what re-exports change without changing the conversation: case, punctuation,
whitespace, digits' values (ids, timestamps, order numbers) and placeholder numbering. The sides (the
customer's turns, everyone else's) are hashed apart so that two chats of one template, whose agent side is
the same, differ on the customer's side.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

NUM_PERM = 128
SHINGLE = 3
SEED = 1  # fixed: signatures are stored and compared across runs
SCHEME = "affine32"  # named, not datasketch's default of the day (it changed in 2.0): stored signatures stay comparable
BANDS, ROWS = 32, 4  # LSH candidates from 128 permutations: a pair at Jaccard 0.7 meets in a band with p > 0.999

_PLACEHOLDER = re.compile(r"<([A-Z][A-Z_]*?)(?:_\d+)?>")
_WORD = re.compile(r"\w+", re.UNICODE)
_DIGITS = re.compile(r"\d+")


def normalise(text: str) -> list[str]:
    """The words of `text` as re-exports leave them: placeholders by type, digits as 0, lower case."""
    text = _PLACEHOLDER.sub(lambda m: f" ph{m.group(1).lower()} ", unicodedata.normalize("NFKC", text))
    return [_DIGITS.sub("0", w) for w in _WORD.findall(text.casefold())]


@dataclass
class TextPrint:
    exact: str
    user: np.ndarray  # uint64 MinHash signature of the customer's side (empty side: all zeros)
    other: np.ndarray
    words: int

    @property
    def combined(self) -> np.ndarray:
        return np.minimum(self.user, self.other) if self.user.any() and self.other.any() else self.user | self.other


@functools.cache
def _permutations() -> tuple[np.ndarray, np.ndarray]:
    """The seeded permutations, made once per process (datasketch would draw them for every signature)."""
    from datasketch import MinHash

    return MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME).permutations


def _minhash(words: list[str]) -> np.ndarray:
    from datasketch import MinHash

    if not words:
        return np.zeros(NUM_PERM, dtype=np.uint64)
    grams = {" ".join(words[i:i + SHINGLE]).encode() for i in range(max(1, len(words) - SHINGLE + 1))}
    m = MinHash(num_perm=NUM_PERM, seed=SEED, permutations=_permutations(), scheme=SCHEME)
    m.update_batch(sorted(grams))
    return np.asarray(m.hashvalues, dtype=np.uint64)


def text_print(turns: Iterable[tuple[str, str]]) -> TextPrint:
    """The identity of a conversation's text from its (role, text) turns."""
    user: list[str] = []
    other: list[str] = []
    lines: list[str] = []
    for role, text in turns:
        words = normalise(text or "")
        if not words:
            continue
        (user if role == "user" else other).extend(words)
        lines.append(f"{'user' if role == 'user' else 'other'}:{' '.join(words)}")
    exact = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return TextPrint(exact, _minhash(user), _minhash(other), len(user) + len(other))


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Estimated Jaccard similarity of two signatures; two empty sides are the same side."""
    a_empty, b_empty = not a.any(), not b.any()
    if a_empty or b_empty:
        return 1.0 if a_empty and b_empty else 0.0
    return float(np.mean(a == b))


def band_keys(sig: np.ndarray) -> list[int]:
    """One 63-bit key per LSH band of a signature (band number mixed in)."""
    out = []
    for b in range(BANDS):
        h = hashlib.blake2b(sig[b * ROWS:(b + 1) * ROWS].tobytes(), digest_size=8, person=b"vakband").digest()
        out.append((int.from_bytes(h, "big") >> 1) ^ b)
    return out
