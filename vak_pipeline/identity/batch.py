"""Texts matched a batch at a time: the same matches as adding them one by one, at a few statements a batch.

Adding a text one by one costs about ten SQLite statements and a numpy pass of its own; a batch reads what
it needs of the index in a handful of queries (the stored rows of its conversations, the first holder of
each exact key, every indexed item holding one of its LSH band keys, the signatures of the candidates it
compares), signs every new text in one numpy pass (an exact copy of a text earlier in the batch takes that
text's signature), compares candidate pairs by their signatures' low bytes first (a necessary condition of
similarity: only the pairs it leaves are compared in full), decides each text in order against the index
and the texts before it, and writes the batch with one `executemany` per table.

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
    BANDS,
    NUM_PERM,
    SEQ_BITS,
    SEQ_MASK,
    TextPrint,
    band_keys_of,
    band_rows,
    could_be_similar,
    sign,
    signature_blobs,
    signature_low_bytes,
    signatures_of,
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

    def _present_all(self, matches: list[Match]) -> list[Match]: ...

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


class _Signatures:
    """The signatures a batch compares, a row each by sequence number: its new texts', and the stored ones of
    the candidates it reads (`rows`), with their low bytes (text.could_be_similar)."""

    def __init__(self, conn: sqlite3.Connection, seqs: np.ndarray, sigs: np.ndarray) -> None:
        self.conn, self.seqs, self.table = conn, seqs, sigs  # seqs ascending
        self.low = signature_low_bytes(sigs)

    def rows(self, seqs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where each of `seqs` is in the table, and whether it has a signature (stored ones read once)."""
        missing = np.setdiff1d(seqs, self.seqs)
        if len(missing):
            rows = self.conn.execute("SELECT seq, usr, oth FROM tsig WHERE seq IN (SELECT value FROM json_each(?))",
                                     (_json(missing.tolist()),)).fetchall()
            if rows:
                seqs_read = np.array([r[0] for r in rows], dtype=np.int64)
                read = signatures_of([b for r in rows for b in r[1:]]).reshape(len(rows), 2, NUM_PERM)
                order = np.argsort(np.concatenate([self.seqs, seqs_read]), kind="stable")
                self.seqs = np.concatenate([self.seqs, seqs_read])[order]
                self.table = np.concatenate([self.table, read])[order]
                self.low = np.concatenate([self.low, signature_low_bytes(read)])[order]
        at = np.minimum(np.searchsorted(self.seqs, seqs), len(self.seqs) - 1)
        return at, self.seqs[at] == seqs


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
        self.state: dict[int, list] = {}  # seq -> [group, how] of the items this run read or joined
        self.db_how: dict[int, str] = {}  # stored items whose `how` this run fills in
        self.links: dict[tuple[int, int], str] = {}
        self.matches = self._decide(run, known)

    def _decide(self, run: list[TextItem], known: dict[str, tuple]) -> list[Match]:
        index = self.index
        prints: dict[int, TextPrint] = {i: item[3]() for i, item in enumerate(run) if item[0] not in known}
        keys = {i: "text:" + p.exact for i, p in prints.items()}
        stored_first = dict(self.conn.execute(
            "SELECT k, MIN(seq) FROM exact WHERE k IN (SELECT value FROM json_each(?)) GROUP BY k",
            (_json(sorted(set(keys.values()))),)))
        first_in_run: dict[str, int] = {}  # exact key -> index in the run of its first text here
        for i, k in keys.items():
            first_in_run.setdefault(k, i)
        signed = [i for i, p in prints.items() if p.words and first_in_run[keys[i]] == i]
        sigs = sign([prints[i] for i in signed])  # (signed, 2, NUM_PERM)
        blobs = signature_blobs(sigs.reshape(-1, NUM_PERM))
        blobs_of = {i: (blobs[2 * n], blobs[2 * n + 1]) for n, i in enumerate(signed)}
        for i, p in prints.items():
            if p.signatures is None and p.words:
                first = first_in_run[keys[i]]
                p.signatures, blobs_of[i] = prints[first].signatures, blobs_of[first]  # same exact key: same sides
        seq_of = {i: index._next_seq + n for n, i in enumerate(prints)}  # new texts, numbered in turn
        index._next_seq += len(prints)
        at = [n for n, i in enumerate(signed) if keys[i] not in stored_first]  # the texts banded, in order
        b_seq = np.array([seq_of[signed[n]] for n in at], dtype=np.int64)
        table = band_keys_of(sigs[at, 0], sigs[at, 1]).astype(np.int64)  # (banded, BANDS)
        stored = np.array([k for (k,) in self.conn.execute(_HOLDERS, (_json(np.unique(table).tolist()),))],
                          dtype=np.int64)
        new_rows = band_rows(table, b_seq[:, None])
        near = self._near_peers(b_seq, table, sigs[at], (stored >> SEQ_BITS, stored & SEQ_MASK))
        self._load_state([*stored_first.values(), *(s for s in near.values() if s < self.first_new)])

        out: list[Match] = []
        for i, item in enumerate(run):
            conv_id = item[0]
            if i not in prints:
                seq, _key, grp, how = known[conv_id]
                out.append(Match(conv_id, grp, self.state.get(seq, [grp, how])[1]))
                continue
            key, seq = keys[i], seq_of[i]
            peer = stored_first.get(key)
            if peer is None and first_in_run[key] != i:
                peer = seq_of[first_in_run[key]]
            if peer is not None:
                out.append(self._join(conv_id, seq, peer, "exact_text"))
            elif (other := near.get(seq)) is not None:  # a text without words has no bands: no near copy
                out.append(self._join(conv_id, seq, other, "near_text"))
            else:
                out.append(Match(conv_id, seq, None))
        new = list(prints)
        self._write([(seq_of[i], *run[i][:2], run[i][2]) for i in new], [(keys[i], seq_of[i]) for i in new],
                    [(seq_of[i], *blobs_of[i]) for i in new if prints[i].words], new_rows)
        return index._present_all(out)

    def _load_state(self, seqs: Iterable[int]) -> None:
        """Group and `how` of stored items this run may join."""
        todo = [s for s in seqs if s not in self.state]
        if todo:
            for seq, grp, how in self.conn.execute(
                    "SELECT seq, grp, how FROM item WHERE seq IN (SELECT value FROM json_each(?))", (_json(todo),)):
                self.state[seq] = [grp, how]

    def _near_peers(self, b_seq: np.ndarray, table: np.ndarray, b_sig: np.ndarray,
                    stored: tuple[np.ndarray, np.ndarray]) -> dict[int, int]:
        """seq -> its near copy, for each new text with bands (`b_seq`, ascending, their band keys `table` and
        signatures `b_sig`): of the `CANDIDATES` items sharing most band keys with it (stored, or new before
        it; ties by sequence number), the first similar on both sides. All the texts at once, a chunk of band
        pairs at a time."""
        if not len(b_seq):
            return {}
        keys = np.sort(table, axis=1)  # each text's distinct band keys (a band key repeated counts once)
        distinct = np.ones(keys.shape, dtype=bool)
        distinct[:, 1:] = keys[:, 1:] != keys[:, :-1]
        q_key, per_text = keys[distinct], np.count_nonzero(distinct, axis=1)
        h_key = np.concatenate([stored[0], q_key])
        h_seq = np.concatenate([stored[1], np.repeat(b_seq, per_text)])
        order = np.argsort(h_key, kind="stable")
        h_key, h_seq = h_key[order], h_seq[order]
        # band pairs of each text (holders of its keys, itself included), all texts in two searches
        lo, hi = np.searchsorted(h_key, q_key, "left"), np.searchsorted(h_key, q_key, "right")
        key_end = np.cumsum(per_text)
        pair_end = np.cumsum(hi - lo)[key_end - 1]  # band pairs up to each text's last
        sigs = _Signatures(self.conn, b_seq, b_sig)
        out: dict[int, int] = {}
        first = 0
        while first < len(b_seq):  # texts in chunks of about PAIRS band pairs (a text with more: alone)
            done = pair_end[first - 1] if first else 0
            last = max(first + 1, int(np.searchsorted(pair_end, done + PAIRS, side="right")))
            k0, k1 = (key_end[first - 1] if first else 0), key_end[last - 1]
            out.update(self._near_chunk(np.repeat(b_seq[first:last], per_text[first:last]), lo[k0:k1], hi[k0:k1],
                                        h_seq, sigs, CANDIDATES))
            first = last
        return out

    def _near_chunk(self, q_seq: np.ndarray, lo: np.ndarray, hi: np.ndarray, h_seq: np.ndarray,
                    sigs: _Signatures, limit: int) -> dict[int, int]:
        """`_near_peers` of a chunk of texts; `q_seq`: the text of each of their band keys, `lo:hi`: where that
        key's holders lie in `h_seq`."""
        n = hi - lo
        at = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n) + np.repeat(lo, n)
        pq, ph = np.repeat(q_seq, n), h_seq[at]
        before = ph < pq  # stored items, and new texts before this one
        pq, ph = pq[before], ph[before]
        if not len(pq):
            return {}
        pair, count = np.unique((pq << SEQ_BITS) | ph, return_counts=True)  # count: band keys they share
        cq, ch = pair >> SEQ_BITS, pair & SEQ_MASK  # by text, then candidate
        o = np.argsort(cq * (BANDS + 1) + (BANDS - count), kind="stable")  # most bands shared first, then by seq
        cq, ch = cq[o], ch[o]
        head = np.flatnonzero(np.r_[True, cq[1:] != cq[:-1]])
        rank = np.arange(len(cq)) - np.repeat(head, np.diff(np.r_[head, len(cq)]))
        cq, ch = cq[rank < limit], ch[rank < limit]
        at_h, have = sigs.rows(ch)  # an item without a signature: skipped
        cq, ch, at_h = cq[have], ch[have], at_h[have]
        if not len(cq):
            return {}
        at_q = sigs.rows(cq)[0]
        t = self.index.settings.text_min_similarity
        same = np.zeros(len(cq), dtype=bool)
        for lo_ in range(0, len(cq), PAIRS):  # the low bytes rule most pairs out; the rest compared in full
            part = lo_ + np.flatnonzero(could_be_similar(sigs.low[at_q[lo_:lo_ + PAIRS]],
                                                         sigs.low[at_h[lo_:lo_ + PAIRS]], t))
            same[part] = (similarities(sigs.table[at_q[part]], sigs.table[at_h[part]]) >= t).all(axis=1)
        cq, ch = cq[same], ch[same]
        _, firsts = np.unique(cq, return_index=True)  # the first similar candidate in each text's order
        return dict(zip(cq[firsts].tolist(), ch[firsts].tolist(), strict=True))

    def _join(self, conv_id: str, seq: int, other: int, how: str) -> Match:
        """`ContentIndex._join` for a new item: it takes the peer's group; the peer's `how` is filled in."""
        peer = self.state.get(other)
        if peer is None:
            if other >= self.first_new:  # a new text that joined nothing: its own group
                peer = self.state[other] = [other, None]
            else:
                self._load_state([other])
                peer = self.state[other]
        self.links.setdefault((min(seq, other), max(seq, other)), how)
        grp = peer[0]
        self.state[seq] = [grp, how]
        if other != grp and peer[1] is None:
            peer[1] = how
            if other < self.first_new:  # a stored item: its row is updated; this run's are written as they end
                self.db_how[other] = how
        return Match(conv_id, grp, how)

    def _write(self, rows: list, exact_rows: list, sig_rows: list, bands: list[int]) -> None:
        conn = self.conn
        conn.executemany("INSERT INTO item VALUES (?, ?, ?, 'text', ?, ?, ?, 0)",
                         ((seq, c, u, k, *self.state.get(seq, (seq, None))) for seq, c, u, k in rows))
        conn.executemany("INSERT OR IGNORE INTO exact VALUES (?, ?)", sorted(exact_rows))
        conn.executemany("INSERT INTO tsig VALUES (?, ?, ?)", sig_rows)
        conn.execute("INSERT OR IGNORE INTO lsh SELECT value FROM json_each(?)", (_json(bands),))  # one statement
        conn.executemany("INSERT OR IGNORE INTO link VALUES (?, ?, ?)",
                         ((a, b, h) for (a, b), h in self.links.items()))
        conn.executemany("UPDATE item SET how = ? WHERE seq = ?", ((h, s) for s, h in self.db_how.items()))
