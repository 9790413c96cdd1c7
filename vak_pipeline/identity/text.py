"""Text identity: an exact key over normalised turns and MinHash signatures of each side's word shingles.

Normalisation drops what re-exports change without changing the conversation: case, punctuation,
whitespace, digits' values (ids, timestamps, order numbers) and placeholder numbering. The sides (the
customer's turns, everyone else's) are hashed apart so that two chats of one template, whose agent side is
the same, differ on the customer's side.

Cost: the shingles are hashed in numpy (each distinct word once with CRC-32, three word hashes mixed per
shingle) and handed to datasketch as 32-bit values with an identity hash function (its affine32 scheme
mixes them again), so no Python call is made per shingle; band keys are mixed in numpy too.
"""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

NUM_PERM = 128
SHINGLE = 3
SEED = 1  # fixed: signatures are stored and compared across runs
SCHEME = "affine32"  # named, not datasketch's default of the day (it changed in 2.0): stored signatures stay comparable
# LSH candidates: a band is ROWS rows of the customer's side and ROWS of the other side, so a pair meets only
# where both sides agree (two chats of one template, same agent side, rarely do). At Jaccard 0.7 on each side
# a pair meets in some band with p > 0.98 (at 0.8, p > 0.9998).
BANDS, ROWS = 16, 2
# Bumped when a signature or band key changes for the same text (part of each text item's content key, so
# items indexed before are printed again, once, instead of being compared across schemes).
PRINT_VERSION = "2"

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


_local = threading.local()


def _sketch():
    """This thread's MinHash, made once (datasketch would draw the seeded permutations for every signature)."""
    m = getattr(_local, "minhash", None)
    if m is None:
        from datasketch import MinHash

        m = _local.minhash = MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME, hashfunc=_identity)
    return m


_MIX = (np.uint32(0x9E3779B1), np.uint32(0x85EBCA77))


def _shingles(words: list[str]) -> np.ndarray:
    """The distinct 32-bit hashes of a side's word 3-shingles (a side shorter than that: one shingle)."""
    h = np.array([zlib.crc32(w.encode()) for w in words], dtype=np.uint32)
    if len(h) < SHINGLE:
        h = np.concatenate([h, np.zeros(SHINGLE - len(h), dtype=np.uint32)])
    n = len(h) - SHINGLE + 1
    with np.errstate(over="ignore"):
        g = h[:n] * _MIX[0]
        for k in range(1, SHINGLE):
            g = (g ^ h[k:k + n]) * _MIX[1]
    return np.unique(g)


def _identity(value: int) -> int:
    return value


def _minhash(words: list[str]) -> np.ndarray:
    if not words:
        return np.zeros(NUM_PERM, dtype=np.uint64)
    m = _sketch()
    m.clear()
    m.update_batch(_shingles(words).tolist())
    return np.array(m.hashvalues, dtype=np.uint64)


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


def similarities(a: np.ndarray, others: np.ndarray) -> np.ndarray:
    """`similarity` of `a` with each row of `others`, at once."""
    a_empty, o_empty = not a.any(), ~others.any(axis=1)
    if a_empty:
        return o_empty.astype(np.float64)
    return np.where(o_empty, 0.0, np.count_nonzero(others == a, axis=1) / len(a))


_BAND_MIX = np.uint64(0xBF58476D1CE4E5B9)


def band_keys(user: np.ndarray, other: np.ndarray) -> list[int]:
    """One 63-bit key per LSH band of a conversation's two side signatures (band number mixed in)."""
    rows = np.concatenate([np.asarray(user, dtype=np.uint64)[:BANDS * ROWS].reshape(BANDS, ROWS),
                           np.asarray(other, dtype=np.uint64)[:BANDS * ROWS].reshape(BANDS, ROWS)], axis=1)
    with np.errstate(over="ignore"):
        k = np.arange(1, BANDS + 1, dtype=np.uint64) * _BAND_MIX
        for r in range(rows.shape[1]):
            k = (k ^ rows[:, r]) * _BAND_MIX
            k ^= k >> np.uint64(31)
    return (k >> np.uint64(1)).tolist()
