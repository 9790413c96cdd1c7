"""Text identity: an exact key over normalised turns and MinHash signatures of each side's word shingles.

Normalisation drops what re-exports change without changing the conversation: case, punctuation,
whitespace, digits' values (ids, timestamps, order numbers) and placeholder numbering. The sides (the
customer's turns, everyone else's) are hashed apart so that two chats of one template, whose agent side is
the same, differ on the customer's side.

Cost: the shingles are hashed in numpy (CRC-32 per word, three word hashes mixed per shingle), and the
signatures of many conversations' sides come out of one numpy pass over datasketch's seeded permutations
(the values datasketch's MinHash gives the same shingles: `sign`), so no Python call is made per shingle;
band keys are mixed in numpy too, for a batch at once. A print's signatures are computed when first read,
so an exact copy of a text already signed is never signed itself (identity.batch).
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

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
# ASCII text in one table, what the regular expressions do to it at about a tenth of their cost a character:
# letters lower case, digits 0, "_" kept (a word character), everything else a space between words.
_ASCII = str.maketrans({chr(c): chr(c).lower() if chr(c).isalpha() else "0" if chr(c).isdigit() else
                        "_" if chr(c) == "_" else " " for c in range(128)})
_ZEROS = re.compile("00+")


# Many turns of ASCII text normalised at once, joined by a NUL: the table keeps it (a separator no turn holds)
_TURN = "\x00"
_ASCII_TURNS = {**_ASCII, ord(_TURN): _TURN}


def normalise(text: str) -> list[str]:
    """The words of `text` as re-exports leave them: placeholders by type, digits as 0, lower case."""
    if not text.isascii():
        return _normalise_unicode(text)
    return _normalise_ascii(text, _ASCII).split()


def _normalise_ascii(text: str, table: dict[int, str]) -> str:
    """ASCII `text` with its words as `normalise` gives them, between runs of spaces (`table`'s other
    characters, a turn separator, stay as they are)."""
    if "<" in text:
        text = _PLACEHOLDER.sub(r" ph\1 ", text)
    text = text.translate(table)
    return _ZEROS.sub("0", text) if "00" in text else text  # a digit run is one 0


def _turn_words(texts: list[str]) -> list[list[str]]:
    """`normalise` of each turn's text: ASCII turns in one pass over them all (a few calls a conversation
    instead of a few a turn)."""
    joined = _TURN.join(texts)
    if not joined.isascii() or joined.count(_TURN) != len(texts) - 1:  # some text not ASCII, or holding a NUL
        return [normalise(t) for t in texts]
    return [part.split() for part in _normalise_ascii(joined, _ASCII_TURNS).split(_TURN)]


def _normalise_unicode(text: str) -> list[str]:
    """`normalise` of any text: NFKC (it leaves ASCII as it is), then the regular expressions."""
    text = unicodedata.normalize("NFKC", text)
    if "<" in text:
        text = _PLACEHOLDER.sub(r" ph\1 ", text)  # the type's case goes with the rest
    return _WORD.findall(_DIGITS.sub("0", text.casefold()))  # a digit run is inside a word: same words


@dataclass
class TextPrint:
    """A conversation's exact key and normalised sides; the sides' MinHash signatures are computed when first
    read, or for many prints at once by `sign` (an exact copy of a print already signed never needs its own)."""

    exact: str
    sides: tuple[list[str], list[str]]  # the customer's words, everyone else's
    words: int
    signatures: tuple[np.ndarray, np.ndarray] | None = None  # uint32 (an empty side: all zeros)

    @property
    def user(self) -> np.ndarray:
        return self._signed()[0]

    @property
    def other(self) -> np.ndarray:
        return self._signed()[1]

    def _signed(self) -> tuple[np.ndarray, np.ndarray]:
        if self.signatures is None:
            sign([self])
        assert self.signatures is not None
        return self.signatures


@functools.cache
def _permutations() -> tuple[np.ndarray, np.ndarray]:
    """datasketch's seeded affine32 permutations (a, b) as (1, NUM_PERM) rows, drawn once per process."""
    from datasketch import MinHash

    a, b = MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME).permutations
    return np.asarray(a, dtype=np.uint32)[None, :], np.asarray(b, dtype=np.uint32)[None, :]


_MIX = (np.uint32(0x9E3779B1), np.uint32(0x85EBCA77))
_FMIX = (np.uint32(16), np.uint32(0x85EBCA6B), np.uint32(13), np.uint32(0xC2B2AE35))
_CHUNK = 1 << 15  # shingles per numpy pass: (_CHUNK, NUM_PERM) uint32 is 16 MiB


def _shingle_hashes(sides: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """The 32-bit hashes of every non-empty side's word 3-shingles (a side shorter than that: one shingle,
    padded with zeros), all sides concatenated, and how many each side has; repeats are kept (a minimum does
    not mind them)."""
    # padded with "" (no word is empty): its CRC-32 is 0, the padding; the word hashes go into numpy in one call
    sides = [w if len(w) >= SHINGLE else [*w, *[""] * (SHINGLE - len(w))] for w in sides]
    crc = {w: zlib.crc32(w.encode()) for w in set(chain.from_iterable(sides))}  # each distinct word once
    padded = np.fromiter(map(len, sides), dtype=np.int64, count=len(sides))
    h = np.fromiter(map(crc.__getitem__, chain.from_iterable(sides)), dtype=np.uint32, count=int(padded.sum()))
    n = len(h) - SHINGLE + 1
    g = h[:n] * _MIX[0]  # arrays wrap around silently (mod 2**32), as meant
    for k in range(1, SHINGLE):
        g = (g ^ h[k:k + n]) * _MIX[1]
    counts = padded - (SHINGLE - 1)
    if len(sides) > 1:  # drop the shingles that straddle two sides
        ends = np.cumsum(padded)[:-1]
        keep = np.ones(n, dtype=bool)
        for k in range(1, SHINGLE):
            keep[ends - k] = False
        g = g[keep]
    return g, counts


def _shingles(words: list[str]) -> np.ndarray:
    """The distinct 32-bit hashes of a side's word 3-shingles (a side shorter than that: one shingle)."""
    return np.unique(_shingle_hashes([words])[0])


def _signatures(sides: Sequence[Sequence[str]]) -> np.ndarray:
    """The MinHash signature (uint32) of each side's shingles, a row each, all sides in a few numpy passes; an
    empty side is all zeros.

    The values are datasketch's `MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME)` after
    `update_batch(shingles)` with an identity `hashfunc`: its affine32 scheme pre-mixes each input with the
    MurmurHash3 finaliser, then takes min over h * a + b (mod 2**32) per permutation (a test holds the two
    equal). Doing it here saves datasketch's per-value Python call and a pass per side."""
    out = np.zeros((len(sides), NUM_PERM), dtype=np.uint32)
    full = [i for i, w in enumerate(sides) if w]
    if not full:
        return out
    h, counts = _shingle_hashes([sides[i] for i in full])
    s1, m1, s2, m2 = _FMIX
    h ^= h >> s1
    h *= m1
    h ^= h >> s2
    h *= m2
    h ^= h >> s1
    a, b = _permutations()
    bounds = np.concatenate([[0], np.cumsum(counts)])
    rows = np.asarray(full)
    first = 0
    while first < len(full):  # sides in chunks of about _CHUNK shingles (a longer side: alone)
        last = max(first + 1, int(np.searchsorted(bounds, bounds[first] + _CHUNK, side="right")) - 1)
        last = min(last, len(full))
        lo, hi = bounds[first], bounds[last]
        # (NUM_PERM, shingles): each permutation's values lie in one row, so the minimum of a side is taken
        # over a contiguous run (reduceat along the last axis is about eight times faster than down columns)
        values = a.T * h[None, lo:hi]
        values += b.T
        out[rows[first:last]] = np.minimum.reduceat(values, bounds[first:last] - lo, axis=1).T
        first = last
    return out


def signature_blobs(sigs: np.ndarray) -> list[bytes]:
    """How each side's signature (a row of `sigs`) is stored: NUM_PERM little-endian uint32 (affine32 values
    all fit)."""
    data = np.ascontiguousarray(sigs, dtype="<u4").tobytes()
    width = NUM_PERM * 4
    return [data[at:at + width] for at in range(0, len(data), width)]


def signature_of(blob: bytes) -> np.ndarray:
    """A stored signature as uint32 values (an index written before IDENTITY_VERSION 4 stored uint64: the same
    values, read by length; its items are re-checked on open, as the version is in the settings key)."""
    if len(blob) == NUM_PERM * 4:
        return np.frombuffer(blob, dtype="<u4")
    return np.frombuffer(blob, dtype="<u8").astype(np.uint32)


def signatures_of(blobs: list[bytes]) -> np.ndarray:
    """`signature_of` of many stored signatures, a row each (those stored as this version stores them: in
    one read)."""
    if all(len(b) == NUM_PERM * 4 for b in blobs):
        return np.frombuffer(b"".join(blobs), dtype="<u4").reshape(len(blobs), NUM_PERM)
    return np.stack([signature_of(b) for b in blobs]).reshape(len(blobs), NUM_PERM)


def sign(prints: list[TextPrint]) -> np.ndarray:
    """The signatures of `prints`, (len(prints), 2, NUM_PERM): those not yet signed computed in one pass (their
    `signatures` are views of the rows returned)."""
    todo = [p for p in prints if p.signatures is None]
    distinct: dict[tuple[str, ...], int] = {}  # a side repeated in the batch (a scripted turn) is signed once
    at = [distinct.setdefault(tuple(side), len(distinct)) for p in todo for side in p.sides]
    sigs = _signatures(list(distinct))[at].reshape(len(todo), 2, NUM_PERM)
    for p, sig in zip(todo, sigs, strict=True):
        p.signatures = (sig[0], sig[1])
    if len(todo) == len(prints):
        return sigs
    return np.stack([np.stack([p.user, p.other]) for p in prints])


def text_print(turns: Iterable[tuple[str, str]]) -> TextPrint:
    """The identity of a conversation's text from its (role, text) turns (signatures when first read)."""
    turns = [(role, text) for role, text in turns if text]
    user: list[str] = []
    other: list[str] = []
    lines: list[str] = []
    for (role, _), words in zip(turns, _turn_words([text for _, text in turns]), strict=True):
        if not words:
            continue
        if role == "user":
            user += words
            lines.append("user:" + " ".join(words))
        else:
            other += words
            lines.append("other:" + " ".join(words))
    exact = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return TextPrint(exact, (user, other), len(user) + len(other))


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Estimated Jaccard similarity of two signatures; two empty sides are the same side."""
    a_empty, b_empty = not a.any(), not b.any()
    if a_empty or b_empty:
        return 1.0 if a_empty and b_empty else 0.0
    return float(np.mean(a == b))


def could_be_similar(a: np.ndarray, others: np.ndarray, threshold: float) -> np.ndarray:
    """For each pair, False where `similarities(a, others) >= threshold` cannot hold on every side, from the
    low bytes of their values (`signature_low_bytes`): equal values have equal low bytes, so this similarity
    is never below the real one (two empty sides, all zeros, pass as they are the same side), at a quarter of
    the memory to compare."""
    return (np.count_nonzero(others == a, axis=-1) / a.shape[-1] >= threshold).all(axis=-1)


def signature_low_bytes(sigs: np.ndarray) -> np.ndarray:
    """The low byte of each signature value, what `could_be_similar` compares."""
    return np.asarray(sigs).astype(np.uint8)


def similarities(a: np.ndarray, others: np.ndarray) -> np.ndarray:
    """`similarity` of `a` with each of `others`, at once: `a` is one signature or several stacked (a
    conversation's two sides, (2, NUM_PERM)), `others` a row of the same shape per item."""
    a_empty, o_empty = ~a.any(axis=-1), ~others.any(axis=-1)
    sim = np.where(o_empty, 0.0, np.count_nonzero(others == a, axis=-1) / a.shape[-1])
    return np.where(a_empty, o_empty.astype(np.float64), sim)


_BAND_MIX = np.uint64(0xBF58476D1CE4E5B9)
_BAND_START = np.arange(1, BANDS + 1, dtype=np.uint64) * _BAND_MIX
_SHIFT = np.uint64(31)


# The index stores a band as one integer, the band key above the holder's sequence number (a one-integer
# B-tree key is written about twice as fast as a (key, seq) pair): so band keys are 32 bits, and an index
# holds fewer than 2**31 items. A spurious 32-bit key match only adds a candidate, which the signatures reject.
SEQ_BITS = 31
SEQ_MASK = (1 << SEQ_BITS) - 1


def band_rows(keys: np.ndarray | list[int], seqs: np.ndarray | list[int] | int) -> list[int]:
    """The stored rows of band keys and their holders' sequence numbers (broadcast), distinct and sorted."""
    seq = np.asarray(seqs, dtype=np.int64)
    if seq.size and (int(seq.min()) < 0 or int(seq.max()) > SEQ_MASK):
        raise OverflowError(f"an LSH band row holds sequence numbers below 2**{SEQ_BITS}")
    return np.unique((np.asarray(keys, dtype=np.int64) << SEQ_BITS) | seq).tolist()


def band_keys(user: np.ndarray, other: np.ndarray) -> list[int]:
    """One 32-bit key per LSH band of a conversation's two side signatures (band number mixed in)."""
    return band_keys_of(np.asarray(user)[None, :], np.asarray(other)[None, :])[0].tolist()


def band_keys_of(users: np.ndarray, others: np.ndarray) -> np.ndarray:
    """`band_keys` of many conversations at once: (n, NUM_PERM) signatures in, (n, BANDS) keys out (uint64
    holding 32 bits: the mix's top ones)."""
    n = len(users)
    u = np.asarray(users, dtype=np.uint64)[:, :BANDS * ROWS].reshape(n, BANDS, ROWS)
    o = np.asarray(others, dtype=np.uint64)[:, :BANDS * ROWS].reshape(n, BANDS, ROWS)
    k = np.broadcast_to(_BAND_START, (n, BANDS))
    for r in range(ROWS):  # arrays wrap around silently (mod 2**64), as meant
        k = (k ^ u[:, :, r]) * _BAND_MIX
        k ^= k >> _SHIFT
    for r in range(ROWS):
        k = (k ^ o[:, :, r]) * _BAND_MIX
        k ^= k >> _SHIFT
    return k >> np.uint64(64 - 32)
