"""Text identity: an exact key over normalised turns and MinHash signatures of each side's word shingles.

Normalisation drops what re-exports change without changing the conversation: case, punctuation,
whitespace, digits' values (ids, timestamps, order numbers) and placeholder numbering. The sides (the
customer's turns, everyone else's) are hashed apart so that two chats of one template, whose agent side is
the same, differ on the customer's side.

Cost: the shingles are hashed in numpy (CRC-32 per word, three word hashes mixed per shingle), and both
sides' signatures come out of one numpy pass over datasketch's seeded permutations (the values datasketch's
MinHash gives the same shingles), so no Python call is made per shingle; band keys are mixed in numpy too.
"""

from __future__ import annotations

import functools
import hashlib
import re
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
    if not text.isascii():  # NFKC leaves ASCII as it is
        text = unicodedata.normalize("NFKC", text)
    if "<" in text:
        text = _PLACEHOLDER.sub(r" ph\1 ", text)  # the type's case goes with the rest
    return _WORD.findall(_DIGITS.sub("0", text.casefold()))  # a digit run is inside a word: same words


@dataclass
class TextPrint:
    exact: str
    user: np.ndarray  # uint64 MinHash signature of the customer's side (empty side: all zeros)
    other: np.ndarray
    words: int


@functools.cache
def _permutations() -> tuple[np.ndarray, np.ndarray]:
    """datasketch's seeded affine32 permutations (a, b) as (1, NUM_PERM) rows, drawn once per process."""
    from datasketch import MinHash

    a, b = MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME).permutations
    return np.asarray(a, dtype=np.uint32)[None, :], np.asarray(b, dtype=np.uint32)[None, :]


_MIX = (np.uint32(0x9E3779B1), np.uint32(0x85EBCA77))
_FMIX = (np.uint32(16), np.uint32(0x85EBCA6B), np.uint32(13), np.uint32(0xC2B2AE35))


def _shingles(words: list[str]) -> np.ndarray:
    """The distinct 32-bit hashes of a side's word 3-shingles (a side shorter than that: one shingle)."""
    h = np.array([zlib.crc32(w.encode()) for w in words], dtype=np.uint32)
    if len(h) < SHINGLE:
        h = np.concatenate([h, np.zeros(SHINGLE - len(h), dtype=np.uint32)])
    n = len(h) - SHINGLE + 1
    g = h[:n] * _MIX[0]  # arrays wrap around silently (mod 2**32), as meant
    for k in range(1, SHINGLE):
        g = (g ^ h[k:k + n]) * _MIX[1]
    return np.unique(g)


def _signatures(sides: list[list[str]]) -> list[np.ndarray]:
    """The MinHash signature (uint64) of each side's shingles, all sides in one numpy pass; an empty side is
    all zeros.

    The values are datasketch's `MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME)` after
    `update_batch(shingles)` with an identity `hashfunc`: its affine32 scheme pre-mixes each input with the
    MurmurHash3 finaliser, then takes min over h * a + b (mod 2**32) per permutation (a test holds the two
    equal). Doing it here saves datasketch's per-value Python call and a second pass per side."""
    out = [np.zeros(NUM_PERM, dtype=np.uint64) for _ in sides]
    hashed = [(i, _shingles(w)) for i, w in enumerate(sides) if w]
    if not hashed:
        return out
    h = np.concatenate([g for _, g in hashed])
    s1, m1, s2, m2 = _FMIX
    h ^= h >> s1
    h *= m1
    h ^= h >> s2
    h *= m2
    h ^= h >> s1
    a, b = _permutations()
    starts = np.cumsum([0] + [len(g) for _, g in hashed[:-1]])
    mins = np.minimum.reduceat(h[:, None] * a + b, starts, axis=0).astype(np.uint64)
    for (i, _), row in zip(hashed, mins, strict=True):
        out[i] = row
    return out


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
    sig_user, sig_other = _signatures([user, other])
    return TextPrint(exact, sig_user, sig_other, len(user) + len(other))


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
_BAND_START = np.arange(1, BANDS + 1, dtype=np.uint64) * _BAND_MIX
_SHIFT = np.uint64(31)


def band_keys(user: np.ndarray, other: np.ndarray) -> list[int]:
    """One 63-bit key per LSH band of a conversation's two side signatures (band number mixed in)."""
    u = np.asarray(user, dtype=np.uint64)[:BANDS * ROWS].reshape(BANDS, ROWS)
    o = np.asarray(other, dtype=np.uint64)[:BANDS * ROWS].reshape(BANDS, ROWS)
    k = _BAND_START
    for col in (*u.T, *o.T):  # arrays wrap around silently (mod 2**64), as meant
        k = (k ^ col) * _BAND_MIX
        k ^= k >> _SHIFT
    return (k >> np.uint64(1)).tolist()
