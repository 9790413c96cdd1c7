"""Texts matched a batch at a time: the same matches as adding them one by one, at a few statements a batch.

Adding a text one by one costs about ten SQLite statements and a numpy pass of its own; a batch reads what
it needs of the index in a handful of queries (the stored rows of its conversations, the first holder of
each exact key, every indexed item holding one of its LSH band keys, the signatures of the candidates it
compares), signs every new text in one numpy pass (an exact copy of a text earlier in the batch takes that
text's signature), decides each text in order against the index and the texts before it, and writes the
batch with one `executemany` per table.

Why the decisions are the same: a new text gets a sequence number past every one in use, so when it joins
a peer the group is the peer's (no stored group changes; at most the peer's `how` is filled in), and the
candidates of a text are ranked from the same band rows (the index's and those of the texts before it in
the batch). What the batch cannot decide that way (a conversation whose content changed, one coming back
to a retired place, the same conversation twice in a batch) ends the batch there and goes by the per-item
path, so the matches do not depend on the batch size.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

import numpy as np

from .match import CANDIDATES, Match, TextItem
from .text import (
    NUM_PERM,
    SEQ_BITS,
    SEQ_MASK,
    TextPrint,
    band_keys_of,
    band_rows,
    sign,
    signature_blob,
    signature_of,
    similarities,
)

if TYPE_CHECKING:
    import sqlite3

    from .settings import IdentitySettings

PAIRS = 1 << 16  # (text, band holder) pairs handled at once: bounds the memory of a batch
# The stored band rows of some band keys (a JSON array): a range of rows each (text.band_rows).
_HOLDERS = (f"SELECT l.k FROM json_each(?) j JOIN lsh l ON l.k BETWEEN j.value << {SEQ_BITS} AND "
            f"(j.value << {SEQ_BITS}) + {SEQ_MASK}")


class ContentIndex(Protocol):
    """What a batch uses of `index.ContentIndex` (which calls it: the index imports this module)."""

    conn: sqlite3.Connection
    settings: IdentitySettings
    _next_seq: int
    _any_retired: bool

    def _present(self, match: Match) -> Match: ...

    def _add_text_one(self, item: TextItem) -> Match: ...


def match_texts(index: ContentIndex, items: list[TextItem]) -> list[Match]:
    """The match of each queued text, in order (`ContentIndex.add_text` one by one would give the same)."""
    out: list[Match] = []
    while len(out) < len(items):
        out.extend(_Run(index, items[len(out):]).matches)
    return out


def _json(values: Iterable[object]) -> str:
    """A JSON array of `values` for `IN (SELECT value FROM json_each(?))`: one statement, any number of them."""
    return json.dumps(list(values))


class _Run:
    """The longest prefix of `items` a batch can decide, decided and written (`matches`)."""

    def __init__(self, index: ContentIndex, items: list[TextItem]) -> None:
        self.index, self.conn = index, index.conn
        ids = _json(c for c, *_ in items)
        known = {c: (seq, key, grp, how) for c, seq, key, grp, how in self.conn.execute(
            "SELECT conv_id, seq, content_key, grp, how FROM item WHERE conv_id IN (SELECT value FROM json_each(?))",
            (ids,))}
        retired: set[str] = set()
        if index._any_retired:
            retired = {c for (c,) in self.conn.execute(
                "SELECT conv_id FROM retired WHERE conv_id IN (SELECT value FROM json_each(?))", (ids,))}
        run: list[TextItem] = []
        seen: set[str] = set()
        for item in items:
            conv_id, content_key = item[0], item[2]
            row = known.get(conv_id)
            if conv_id in seen or (row is not None and row[1] != content_key) or (row is None and conv_id in retired):
                break
            seen.add(conv_id)
            run.append(item)
        if not run:  # the first item needs the per-item path (its content changed, or its place is retired)
            self.matches = [index._add_text_one(items[0])]
            return
        self.first_new = index._next_seq  # items from here on are this run's
        self.state: dict[int, list] = {}  # seq -> [group, how] of every item this run read or added
        self.db_how: dict[int, str] = {}  # stored items whose `how` this run fills in
        self.links: dict[tuple[int, int], str] = {}
        self.matches = self._decide(run, known)

    def _decide(self, run: list[TextItem], known: dict[str, tuple]) -> list[Match]:
        index = self.index
        prints: dict[int, TextPrint] = {i: item[3]() for i, item in enumerate(run) if item[0] not in known}
        keys = {i: f"text:{p.exact}" for i, p in prints.items()}
        stored_first = dict(self.conn.execute(
            "SELECT k, MIN(seq) FROM exact WHERE k IN (SELECT value FROM json_each(?)) GROUP BY k",
            (_json(sorted(set(keys.values()))),)))
        first_in_run: dict[str, int] = {}  # exact key -> index in the run of its first text here
        for i, k in keys.items():
            first_in_run.setdefault(k, i)
        sign([p for i, p in prints.items() if p.words and first_in_run[keys[i]] == i])
        for i, p in prints.items():
            if p.signatures is None and p.words:
                p.signatures = prints[first_in_run[keys[i]]].signatures  # same exact key: same sides
        banded = [i for i, p in prints.items() if p.words and keys[i] not in stored_first
                  and first_in_run[keys[i]] == i]
        bands: dict[int, list[int]] = {}
        table = np.zeros((0, 0), dtype=np.uint64)
        if banded:
            sig = [prints[i].signatures for i in banded]
            table = band_keys_of(np.stack([s[0] for s in sig]), np.stack([s[1] for s in sig]))
            bands = {i: list(dict.fromkeys(row)) for i, row in zip(banded, table.tolist(), strict=True)}
        stored = np.array([k for (k,) in self.conn.execute(_HOLDERS, (_json(np.unique(table).tolist()),))],
                          dtype=np.int64)
        seq_of = {i: index._next_seq + n for n, i in enumerate(prints)}  # new texts, numbered in turn
        index._next_seq += len(prints)
        new_rows = band_rows(table, np.array([[seq_of[i]] for i in banded], dtype=np.int64).reshape(-1, 1))
        stored_bands = (stored >> SEQ_BITS, stored & SEQ_MASK)
        near = self._near_peers([(seq_of[i], bands[i], prints[i].signatures) for i in banded], stored_bands)
        self._load_state([*stored_first.values(), *(s for s in near.values() if s < self.first_new)])

        rows, exact_rows, sig_rows, out = [], [], [], []
        for i, (conv_id, upload, content_key, _compute) in enumerate(run):
            if i not in prints:
                seq, _key, grp, how = known[conv_id]
                match = Match(conv_id, grp, self.state.get(seq, [grp, how])[1])
                out.append(index._present(match))
                continue
            p, key, seq = prints[i], keys[i], seq_of[i]
            self.state[seq] = [seq, None]
            rows.append((seq, conv_id, upload, content_key))
            exact_rows.append((key, seq))
            if p.signatures is not None and p.words:
                sig_rows.append((seq, signature_blob(p.signatures[0]), signature_blob(p.signatures[1])))
            peer = stored_first.get(key, seq_of[first_in_run[key]] if first_in_run[key] != i else None)
            if peer is not None:
                match = self._join(conv_id, seq, peer, "exact_text")
            elif not p.words:
                match = Match(conv_id, seq, None)
            else:
                other = near.get(seq)
                match = Match(conv_id, seq, None) if other is None else self._join(conv_id, seq, other, "near_text")
            out.append(index._present(match))
        self._write(rows, exact_rows, sig_rows, new_rows)
        return out

    def _load_state(self, seqs: Iterable[int]) -> None:
        """Group and `how` of stored items this run may join."""
        todo = [s for s in seqs if s not in self.state]
        if todo:
            for seq, grp, how in self.conn.execute(
                    "SELECT seq, grp, how FROM item WHERE seq IN (SELECT value FROM json_each(?))", (_json(todo),)):
                self.state[seq] = [grp, how]

    def _near_peers(self, banded: list[tuple[int, list[int], tuple[np.ndarray, np.ndarray]]],
                    stored: tuple[np.ndarray, np.ndarray]) -> dict[int, int]:
        """seq -> its near copy, for each new text with bands: of the `CANDIDATES` items sharing most band keys
        with it (stored, or new before it; ties by sequence number), the first similar on both sides. All the
        texts at once, a chunk of band pairs at a time."""
        if not banded:
            return {}
        q_key = np.array([k for _, ks, _ in banded for k in ks], dtype=np.int64)
        h_key = np.concatenate([stored[0], q_key])
        h_seq = np.concatenate([stored[1],
                                np.repeat([s for s, _, _ in banded], [len(ks) for _, ks, _ in banded])])
        order = np.argsort(h_key, kind="stable")
        h_key, h_seq = h_key[order], h_seq[order]
        sigs = {s: np.concatenate(sig) for s, _, sig in banded}
        # band pairs of each text (holders of its keys, itself included), all texts in two searches
        lo, hi = np.searchsorted(h_key, q_key, "left"), np.searchsorted(h_key, q_key, "right")
        starts = np.cumsum([0] + [len(ks) for _, ks, _ in banded[:-1]])
        per_text = np.add.reduceat(hi - lo, starts).tolist()
        out: dict[int, int] = {}
        chunk: list[tuple[int, list[int]]] = []
        pairs, first = 0, 0  # first: where the chunk's keys start in q_key
        for (s, ks, _), n in zip(banded, per_text, strict=True):
            if chunk and pairs + n > PAIRS:
                end = first + sum(len(k) for _, k in chunk)
                out.update(self._near_chunk(chunk, lo[first:end], hi[first:end], h_seq, sigs, CANDIDATES))
                chunk, pairs, first = [], 0, end
            chunk.append((s, ks))
            pairs += n
        out.update(self._near_chunk(chunk, lo[first:], hi[first:], h_seq, sigs, CANDIDATES))
        return out

    def _near_chunk(self, chunk: list[tuple[int, list[int]]], lo: np.ndarray, hi: np.ndarray, h_seq: np.ndarray,
                    sigs: dict[int, np.ndarray], limit: int) -> dict[int, int]:
        """`_near_peers` of a chunk of texts; `lo:hi`: where each of their band keys' holders lie in `h_seq`."""
        q_seq = np.repeat([s for s, _ in chunk], [len(ks) for _, ks in chunk])
        n = hi - lo
        at = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n) + np.repeat(lo, n)
        pq, ph = np.repeat(q_seq, n), h_seq[at]
        before = ph < pq  # stored items, and new texts before this one
        pq, ph = pq[before], ph[before]
        if not len(pq):
            return {}
        o = np.lexsort((ph, pq))
        pq, ph = pq[o], ph[o]
        first = np.flatnonzero(np.r_[True, (pq[1:] != pq[:-1]) | (ph[1:] != ph[:-1])])
        count = np.diff(np.r_[first, len(pq)])  # band keys shared by (text, candidate)
        cq, ch = pq[first], ph[first]
        o = np.lexsort((ch, -count, cq))  # per text: most bands shared first, then by sequence number
        cq, ch = cq[o], ch[o]
        head = np.flatnonzero(np.r_[True, cq[1:] != cq[:-1]])
        rank = np.arange(len(cq)) - np.repeat(head, np.diff(np.r_[head, len(cq)]))
        cq, ch = cq[rank < limit], ch[rank < limit]
        missing = sorted({int(c) for c in np.unique(ch)} - sigs.keys())
        if missing:
            for seq, u, o_ in self.conn.execute(
                    "SELECT seq, usr, oth FROM tsig WHERE seq IN (SELECT value FROM json_each(?))", (_json(missing),)):
                sigs[seq] = np.concatenate([signature_of(u), signature_of(o_)])
        known = np.array(sorted(sigs), dtype=np.int64)  # every signature at hand, one row each
        table = np.stack([sigs[x] for x in known.tolist()]).reshape(len(known), 2, NUM_PERM)
        at_h = np.minimum(np.searchsorted(known, ch), len(known) - 1)
        have = known[at_h] == ch  # an item without a signature: skipped
        cq, ch, at_h = cq[have], ch[have], at_h[have]
        if not len(cq):
            return {}
        at_q = np.searchsorted(known, cq)
        t = self.index.settings.text_min_similarity
        same = np.zeros(len(cq), dtype=bool)
        for lo_ in range(0, len(cq), PAIRS):
            part = slice(lo_, lo_ + PAIRS)
            same[part] = (similarities(table[at_q[part]], table[at_h[part]]) >= t).all(axis=1)
        cq, ch = cq[same], ch[same]
        _, firsts = np.unique(cq, return_index=True)  # the first similar candidate in each text's order
        return dict(zip(cq[firsts].tolist(), ch[firsts].tolist(), strict=True))

    def _join(self, conv_id: str, seq: int, other: int, how: str) -> Match:
        """`ContentIndex._join` for a new item: it takes the peer's group; the peer's `how` is filled in."""
        self._load_state([other])
        self.links.setdefault((min(seq, other), max(seq, other)), how)
        grp = self.state[other][0]
        self.state[seq] = [grp, how]
        if other != grp and self.state[other][1] is None:
            self.state[other][1] = how
            if other < self.first_new:  # a stored item: its row is updated; this run's are written as they end
                self.db_how[other] = how
        return Match(conv_id, grp, how)

    def _write(self, rows: list, exact_rows: list, sig_rows: list, bands: list[int]) -> None:
        conn = self.conn
        conn.executemany("INSERT INTO item VALUES (?, ?, ?, 'text', ?, ?, ?, 0)",
                         ((seq, c, u, k, *self.state[seq]) for seq, c, u, k in rows))
        conn.executemany("INSERT OR IGNORE INTO exact VALUES (?, ?)", sorted(exact_rows))
        conn.executemany("INSERT INTO tsig VALUES (?, ?, ?)", sig_rows)
        conn.execute("INSERT OR IGNORE INTO lsh SELECT value FROM json_each(?)", (_json(bands),))  # one statement
        conn.executemany("INSERT OR IGNORE INTO link VALUES (?, ?, ?)",
                         ((a, b, h) for (a, b), h in self.links.items()))
        conn.executemany("UPDATE item SET how = ? WHERE seq = ?", ((h, s) for s, h in self.db_how.items()))
