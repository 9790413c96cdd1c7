"""The content index: every conversation ever indexed, its exact keys and fingerprints, and its group.

One SQLite file under work/ (flat memory: candidates come from indexed keys, never a scan in Python). A
conversation is indexed once per content (`content_key`: the audio file's sha256, or the text's exact key);
re-indexing the same content returns the stored result without decoding anything. Each conversation keeps
the sequence number it was first indexed with, so "first delivered" means the same on every re-run.
Match results depend on the settings' fingerprint: opening the index with other thresholds re-checks every
item from the stored fingerprints. Texts queued with `add_text_later` (what validation does) are matched a
batch at a time (identity.batch), with the matches adding them one by one gives.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from ..storage import Closing
from .audio import AudioPrint, bit_error, informative, sample_keys
from .batch import match_texts
from .match import CANDIDATES, Match, TextItem
from .settings import IdentitySettings
from .text import (
    SEQ_BITS,
    SEQ_MASK,
    TextPrint,
    band_keys,
    band_keys_of,
    band_rows,
    signature_blobs,
    signature_of,
    similarities,
)

MIX = -1  # the channel number of a recording's mono mix
Channel = tuple[np.ndarray, "np.ndarray | None"]  # Chromaprint frames and their energy weights

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS item (seq INTEGER PRIMARY KEY, conv_id TEXT NOT NULL UNIQUE, upload TEXT NOT NULL,
    kind TEXT NOT NULL, content_key TEXT NOT NULL, grp INTEGER NOT NULL, how TEXT, seconds REAL NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS item_by_grp ON item (grp, seq);
CREATE TABLE IF NOT EXISTS exact (k TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (k, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chan (seq INTEGER NOT NULL, ch INTEGER NOT NULL, fp BLOB NOT NULL, PRIMARY KEY (seq, ch));
CREATE TABLE IF NOT EXISTS cweight (seq INTEGER NOT NULL, ch INTEGER NOT NULL, w BLOB NOT NULL, PRIMARY KEY (seq, ch));
CREATE TABLE IF NOT EXISTS akey (k INTEGER NOT NULL, seq INTEGER NOT NULL, ch INTEGER NOT NULL,
    PRIMARY KEY (k, seq, ch)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tsig (seq INTEGER PRIMARY KEY, usr BLOB NOT NULL, oth BLOB NOT NULL);
-- LSH bands: a band key above its holder's seq, one integer a row (text.band_rows)
CREATE TABLE IF NOT EXISTS lsh (k INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS link (a INTEGER NOT NULL, b INTEGER NOT NULL, how TEXT NOT NULL, PRIMARY KEY (a, b));
-- by item too: a lookup or a delete of one item's keys must not scan every key (O(n) per item)
CREATE INDEX IF NOT EXISTS akey_by_seq ON akey (seq);
-- bands by (key, seq) pairs (IDENTITY_VERSION < 5): the recheck the version asks for rebuilds them in lsh
DROP TABLE IF EXISTS tband;
CREATE INDEX IF NOT EXISTS exact_by_seq ON exact (seq);
CREATE INDEX IF NOT EXISTS link_by_b ON link (b);
CREATE TABLE IF NOT EXISTS retired (conv_id TEXT PRIMARY KEY, seq INTEGER NOT NULL);
"""


# The 50 items sharing most LSH bands with a text, best first: one query, a range of rows per band key.
_TEXT_CANDIDATES = (f"SELECT l.k & {SEQ_MASK} AS s FROM json_each(?) j JOIN lsh l ON l.k BETWEEN "
                    f"j.value << {SEQ_BITS} AND (j.value << {SEQ_BITS}) + {SEQ_MASK} WHERE s != ? "
                    f"GROUP BY s ORDER BY COUNT(*) DESC, s LIMIT {CANDIDATES}")




class ContentIndex(Closing):
    """Open with `ContentIndex.open(path, settings)`; `add` conversations; `kept_and_dropped` decides."""

    present_batch = 4096  # present conversations are written to their table this many at a time
    text_batch = 1024  # texts queued by `add_text_later` are matched this many at a time (batch.py)

    def __init__(self, conn: sqlite3.Connection, settings: IdentitySettings) -> None:
        self.conn, self.settings = conn, settings
        # quality: records.record_quality, noted only for keep="best" (0 otherwise; never part of a match)
        conn.execute("CREATE TEMP TABLE present (conv_id TEXT PRIMARY KEY, quality INTEGER NOT NULL) WITHOUT ROWID")
        self._pending: list[str] = []  # present conversations not yet in the table (written in batches)
        self._quality: dict[str, int] = {}  # qualities of conversations added, until they are written as present
        self._texts: list[TextItem] = []  # texts queued, not yet matched (`flush_texts`)
        # The next sequence number: past every one in use, retired or still named as a group (never reused,
        # so a new item cannot inherit a forgotten one's group); retired places are only looked up when any.
        self._next_seq = 1 + conn.execute(
            "SELECT MAX(COALESCE((SELECT MAX(seq) FROM item), 0), COALESCE((SELECT MAX(grp) FROM item), 0), "
            "COALESCE((SELECT MAX(seq) FROM retired), 0))").fetchone()[0]
        self._any_retired = conn.execute("SELECT EXISTS (SELECT 1 FROM retired)").fetchone()[0] == 1

    def _present(self, match: Match) -> Match:
        return self._present_all([match])[0]

    def _present_all(self, matches: list[Match]) -> list[Match]:
        self._pending.extend(m.conv_id for m in matches)
        if len(self._pending) >= self.present_batch:
            self._flush_present()
        return matches

    def _flush_present(self) -> None:
        quality = self._quality
        self.conn.executemany("INSERT OR IGNORE INTO present VALUES (?, ?)",
                              ((c, quality.pop(c, 0)) for c in self._pending))
        self._pending.clear()

    def note_quality(self, conv_id: str, quality: int) -> None:
        """How good this delivery of a conversation is (records.record_quality), for keep="best"."""
        if quality:
            self._quality[conv_id] = quality

    @classmethod
    def open(cls, path: Path, settings: IdentitySettings | None = None) -> ContentIndex:
        settings = settings or IdentitySettings()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path))
        conn.executescript(f"BEGIN; {_SCHEMA} COMMIT;")  # one transaction: one sync, not one per table
        index = cls(conn, settings)
        row = conn.execute("SELECT v FROM meta WHERE k = 'settings'").fetchone()
        if row is None or row[0] != settings.fingerprint():
            index._recheck()
        return index

    def close(self) -> None:
        self.flush_texts()
        self.conn.commit()
        self.conn.close()

    # --- adding
    def add_audio(self, conv_id: str, upload: str, content_key: str, compute: Callable[[], AudioPrint],
                  quality: int = 0) -> Match:
        """Index a recording (computing its print only when its content is new) and return its match."""
        self.flush_texts()
        self.note_quality(conv_id, quality)
        known = self._known(conv_id, content_key)
        if known is not None:
            return self._present(known)
        p = compute()
        seq = self._insert(conv_id, upload, "audio", content_key, p.seconds)
        self.conn.execute("INSERT OR IGNORE INTO exact VALUES (?, ?)", (f"audio:{p.exact}", seq))
        weights = [*p.weights, p.mix_weights] if len(p.weights) == len(p.channels) else [None] * (len(p.channels) + 1)
        for (ch, frames), w in zip([*enumerate(p.channels), (MIX, p.mix)], weights, strict=True):
            if frames is None or (ch == MIX and len(p.channels) == 1):
                continue
            self.conn.execute("INSERT INTO chan VALUES (?, ?, ?)", (seq, ch, frames.astype("<u4").tobytes()))
            if w is not None:
                self.conn.execute("INSERT INTO cweight VALUES (?, ?, ?)", (seq, ch, w.astype(np.uint8).tobytes()))
            self.conn.executemany("INSERT OR IGNORE INTO akey VALUES (?, ?, ?)",
                                  ((k, seq, ch) for k in sample_keys(frames, weights=w)))
        return self._present(self._match_audio(seq, f"audio:{p.exact}"))

    def add_text(self, conv_id: str, upload: str, content_key: str, compute: Callable[[], TextPrint],
                 quality: int = 0) -> Match:
        """Index a text (printing it only when its content is new) and return its match."""
        self.note_quality(conv_id, quality)
        self._texts.append((conv_id, upload, content_key, compute))
        return self.flush_texts()[-1]

    def add_text_later(self, conv_id: str, upload: str, content_key: str, compute: Callable[[], TextPrint],
                       quality: int = 0) -> None:
        """`add_text` without waiting for the match: queued texts are matched `text_batch` at a time, with the
        same results (`kept_and_dropped`, `links_of`, `item` and every other call match the queue first)."""
        self.note_quality(conv_id, quality)
        self._texts.append((conv_id, upload, content_key, compute))
        if len(self._texts) >= self.text_batch:
            self.flush_texts()

    def flush_texts(self) -> list[Match]:
        """Match the queued texts (batch.match_texts); their matches in order."""
        items, self._texts = self._texts, []
        return match_texts(self, items) if items else []

    def _add_text_one(self, item: TextItem) -> Match:
        """One text by the per-item path: what a batch leaves to it (changed content, a retired place)."""
        conv_id, upload, content_key, compute = item
        known = self._known(conv_id, content_key)
        if known is not None:
            return self._present(known)
        p = compute()
        seq = self._insert(conv_id, upload, "text", content_key, 0.0)
        key = f"text:{p.exact}"
        self.conn.execute("INSERT OR IGNORE INTO exact VALUES (?, ?)", (key, seq))
        if not p.words:
            return self._present(self._match_text(seq, key, None))
        self.conn.execute("INSERT INTO tsig VALUES (?, ?, ?)", (seq, *signature_blobs(np.stack([p.user, p.other]))))
        return self._present(self._match_text(seq, key, (p.user, p.other)))

    def _known(self, conv_id: str, content_key: str) -> Match | None:
        row = self.conn.execute("SELECT seq, content_key, grp, how FROM item WHERE conv_id = ?", (conv_id,)).fetchone()
        if row is None:
            return None
        seq, key, grp, how = row
        if key == content_key:
            return Match(conv_id, grp, how)
        self._forget(seq)
        return None

    def _insert(self, conv_id: str, upload: str, kind: str, content_key: str, seconds: float) -> int:
        seq = None
        if self._any_retired:  # content changed: keep the place it was first delivered in
            old = self.conn.execute("SELECT seq FROM retired WHERE conv_id = ?", (conv_id,)).fetchone()
            if old is not None:
                self.conn.execute("DELETE FROM retired WHERE conv_id = ?", (conv_id,))
                seq = old[0]
        if seq is None:
            seq, self._next_seq = self._next_seq, self._next_seq + 1
        self.conn.execute("INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
                          (seq, conv_id, upload, kind, content_key, seq, seconds))
        return seq

    def _forget(self, seq: int) -> None:
        """Drop a conversation's prints and links (its content changed), remembering its sequence number."""
        conv_id = self.conn.execute("SELECT conv_id FROM item WHERE seq = ?", (seq,)).fetchone()[0]
        self.conn.execute("INSERT OR REPLACE INTO retired VALUES (?, ?)", (conv_id, seq))
        self._any_retired = True
        exact = [k for (k,) in self.conn.execute("SELECT k FROM exact WHERE seq = ? AND k LIKE 'text:%'", (seq,))]
        self._drop_bands(seq)
        for table in ("exact", "chan", "cweight", "akey", "tsig"):
            self.conn.execute(f"DELETE FROM {table} WHERE seq = ?", (seq,))
        self.conn.execute("DELETE FROM link WHERE a = ? OR b = ?", (seq, seq))
        self.conn.execute("DELETE FROM item WHERE seq = ?", (seq,))
        for key in exact:  # exact copies of a text share one set of bands: the first copy left keeps them
            row = self.conn.execute("SELECT t.seq, t.usr, t.oth FROM tsig t WHERE t.seq = "
                                    "(SELECT MIN(seq) FROM exact WHERE k = ?)", (key,)).fetchone()
            if row is not None:
                self._add_bands(row[0], band_keys(*(signature_of(b) for b in row[1:])))

    def remove(self, conv_ids: Iterable[str]) -> int:
        """Forget conversations for good (erasure): prints, links and their place."""
        self.flush_texts()
        n = 0
        for conv_id in conv_ids:
            row = self.conn.execute("SELECT seq FROM item WHERE conv_id = ?", (conv_id,)).fetchone()
            if row is not None:
                self._forget(row[0])
                self.conn.execute("DELETE FROM retired WHERE conv_id = ?", (conv_id,))
                n += 1
        return n

    # --- matching
    def _join(self, seq: int, other: int, how: str) -> Match:
        a, b = sorted((seq, other))
        self.conn.execute("INSERT OR IGNORE INTO link VALUES (?, ?, ?)", (a, b, how))
        rows = {s: (g, c) for s, g, c in self.conn.execute(
            "SELECT seq, grp, conv_id FROM item WHERE seq IN (?, ?)", (seq, other))}
        (g_self, conv_id), g_other = rows[seq], rows[other][0]
        grp = min(g_self, g_other)
        for g in {g_self, g_other} - {grp}:
            self.conn.execute("UPDATE item SET grp = ? WHERE grp = ?", (grp, g))
        if seq != grp:
            self.conn.execute("UPDATE item SET how = ? WHERE seq = ?", (how, seq))
        if other != grp:
            self.conn.execute("UPDATE item SET how = COALESCE(how, ?) WHERE seq = ?", (how, other))
        return Match(conv_id, grp, how if seq != grp else None)

    def _self(self, seq: int) -> Match:
        conv_id, grp, how = self.conn.execute("SELECT conv_id, grp, how FROM item WHERE seq = ?", (seq,)).fetchone()
        return Match(conv_id, grp, how)

    def _exact_peer(self, seq: int, key: str) -> int | None:
        row = self.conn.execute("SELECT MIN(seq) FROM exact WHERE k = ? AND seq != ?", (key, seq)).fetchone()
        return row[0]

    def _channels(self, seq: int) -> dict[int, Channel]:
        """Fingerprint and energy weights (None for items indexed before weights were kept) per channel."""
        return {ch: (np.frombuffer(fp, dtype="<u4"), None if w is None else np.frombuffer(w, dtype=np.uint8))
                for ch, fp, w in self.conn.execute(
                    "SELECT c.ch, c.fp, w.w FROM chan c LEFT JOIN cweight w USING (seq, ch) WHERE c.seq = ?", (seq,))}

    def _match_audio(self, seq: int, exact_key: str) -> Match:
        peer = self._exact_peer(seq, exact_key)
        if peer is not None:
            return self._join(seq, peer, "exact_audio")
        mine = self._channels(seq)
        s = self.settings
        for other in self._audio_candidates(seq):
            theirs = self._channels(other)
            if _same_recording(mine, theirs, s.audio_max_bit_error, s.audio_min_overlap):
                return self._join(seq, other, "near_audio")
            if _shares_channel(mine, theirs, s.audio_max_bit_error, s.audio_min_overlap):
                a, b = sorted((seq, other))
                self.conn.execute("INSERT OR IGNORE INTO link VALUES (?, ?, 'shared_channel')", (a, b))
        return self._self(seq)

    def _audio_candidates(self, seq: int, limit: int = 20) -> list[int]:
        """Other recordings sharing enough sampled frame values with any channel of this one, best first."""
        rows = self.conn.execute(
            "SELECT o.seq, COUNT(*) AS n FROM akey m JOIN akey o ON o.k = m.k AND o.seq != m.seq "
            "WHERE m.seq = ? GROUP BY o.seq HAVING n >= 3 ORDER BY n DESC, o.seq LIMIT ?", (seq, limit))
        return [r[0] for r in rows]

    def _match_text(self, seq: int, exact_key: str, sig: tuple[np.ndarray, np.ndarray] | None,
                    recheck: bool = False) -> Match:
        """Join an exact copy's group, or the first of the candidates sharing most LSH bands that is similar
        on both sides.

        Of exact copies only the first (lowest sequence number) keeps LSH bands: the others' signatures are
        the same, so they would only crowd the candidates (`_forget` hands the bands on when the first goes)."""
        peer = self._exact_peer(seq, exact_key)
        if peer is not None:
            if sig is not None and peer > seq:
                self._add_bands(seq, band_keys(*sig))
            elif recheck:
                self._drop_bands(seq)
            return self._join(seq, peer, "exact_text")
        if sig is None:
            return self._self(seq)
        usr, oth = sig
        keys = band_keys(usr, oth)
        cands = [c for (c,) in self.conn.execute(_TEXT_CANDIDATES, (json.dumps(list(dict.fromkeys(keys))), seq))]
        if not recheck:
            self._add_bands(seq, keys)
        t = self.settings.text_min_similarity
        for chunk in (cands[:8], cands[8:]):  # the best few first: their signatures are most often enough
            if not chunk:
                break
            sigs = {c: (u, o) for c, u, o in self.conn.execute(
                f"SELECT seq, usr, oth FROM tsig WHERE seq IN ({', '.join('?' * len(chunk))})", chunk)}
            order = [c for c in chunk if c in sigs]
            if not order:
                continue
            theirs = np.stack([np.stack([signature_of(sigs[c][0]), signature_of(sigs[c][1])]) for c in order])
            same = (similarities(np.stack([usr, oth]), theirs) >= t).all(axis=1)  # similar on both sides
            if same.any():
                return self._join(seq, order[int(np.argmax(same))], "near_text")
        return self._self(seq)

    def _add_bands(self, seq: int, keys: list[int]) -> None:
        self.conn.executemany("INSERT OR IGNORE INTO lsh VALUES (?)", ((k,) for k in band_rows(keys, seq)))

    def _drop_bands(self, seq: int) -> None:
        """Delete a conversation's LSH band rows, found from its stored signature: the bands are a function of
        it, so no second index by sequence number is kept (it would double the cost of every band written)."""
        row = self.conn.execute("SELECT usr, oth FROM tsig WHERE seq = ?", (seq,)).fetchone()
        if row is not None:
            keys = band_keys(signature_of(row[0]), signature_of(row[1]))
            self.conn.executemany("DELETE FROM lsh WHERE k = ?", ((k,) for k in band_rows(keys, seq)))

    def _rebuild_bands(self, chunk: int = 4096) -> None:
        """Every text's LSH band rows again from its stored signature, as this version stores them (an older
        index's rows are in another table, or another scheme): the first copy of each exact text holds them."""
        conn = self.conn
        conn.execute("DELETE FROM lsh")
        rows = conn.execute(
            "SELECT t.seq, t.usr, t.oth FROM tsig t WHERE NOT EXISTS (SELECT 1 FROM exact e JOIN exact f "
            "ON f.k = e.k AND f.seq < e.seq WHERE e.seq = t.seq AND e.k LIKE 'text:%')")
        while part := rows.fetchmany(chunk):
            keys = band_keys_of(np.stack([signature_of(u) for _, u, _ in part]),
                                np.stack([signature_of(o) for _, _, o in part]))
            seqs = np.array([[s] for s, _, _ in part], dtype=np.int64)
            conn.execute("INSERT OR IGNORE INTO lsh SELECT value FROM json_each(?)",
                         (json.dumps(band_rows(keys, seqs)),))

    def _recheck(self) -> None:
        """Settings changed (or a new index): every group and link is decided again from the stored prints."""
        conn = self.conn
        conn.execute("DELETE FROM link")
        conn.execute("UPDATE item SET grp = seq, how = NULL")
        self._rebuild_bands()
        for seq, kind in conn.execute("SELECT seq, kind FROM item ORDER BY seq").fetchall():
            keys = [k for (k,) in conn.execute("SELECT k FROM exact WHERE seq = ?", (seq,))]
            key = keys[0] if keys else ""
            if kind == "audio":
                self._match_audio(seq, key)
            else:
                row = conn.execute("SELECT usr, oth FROM tsig WHERE seq = ?", (seq,)).fetchone()
                sig = None if row is None else tuple(signature_of(b) for b in row)
                self._match_text(seq, key, sig, recheck=True)
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('settings', ?)", (self.settings.fingerprint(),))
        conn.commit()

    # --- reading
    def kept_and_dropped(self, present: Iterable[str] | None = None) -> Iterator[tuple[str, str, str]]:
        """(dropped conv id, kept conv id, how) for every duplicate among the present conversations (those
        added through this index, or `present`), by the keep policy.

        Only present conversations count: when a group's first member is gone (erased, withdrawn), the next
        one present is kept. With keep="all" nothing is dropped (the groups still link splits). keep="best"
        reads the qualities noted as conversations were added (`present` given here carries none: the first
        delivered is kept)."""
        self.flush_texts()
        conn = self.conn
        if present is not None:
            self._pending.clear()
            self._quality.clear()
            conn.execute("DELETE FROM present")
            conn.executemany("INSERT OR IGNORE INTO present VALUES (?, 0)", ((c,) for c in present))
        else:
            self._flush_present()
        keep = self.settings.keep
        if keep == "all":
            return iter(())
        kept = (f"SELECT grp, {'MIN' if keep == 'first' else 'MAX'}(seq) AS keep FROM p GROUP BY grp "
                "HAVING COUNT(*) > 1") if keep != "best" else (
            "SELECT DISTINCT grp, FIRST_VALUE(seq) OVER (PARTITION BY grp ORDER BY quality DESC, seq) AS keep "
            "FROM p WHERE grp IN (SELECT grp FROM p GROUP BY grp HAVING COUNT(*) > 1)")
        rows = conn.execute(
            f"WITH p AS (SELECT i.seq, i.conv_id, i.grp, i.how, present.quality FROM item i "
            f"JOIN present USING (conv_id)), k AS ({kept}) "
            "SELECT p.conv_id, kept.conv_id, COALESCE(p.how, kh.how, 'duplicate') FROM p JOIN k USING (grp) "
            "JOIN item kept ON kept.seq = k.keep LEFT JOIN item kh ON kh.seq = k.keep "
            "WHERE p.seq != k.keep ORDER BY p.seq").fetchall()
        return iter(rows)

    def links_of(self, conv_id: str) -> list[str]:
        """Split keys of a conversation in a duplicate group or sharing a channel with another: conversations
        with a common key must land in one split (`link_pairs` for one conversation)."""
        return [key for _, key in self._links("i.conv_id = ?", (conv_id,))]

    def link_pairs(self) -> Iterator[tuple[str, str]]:
        """(conversation id, split key) for every conversation in a duplicate group or sharing a channel with
        another (splits.split_manifest's `links`), in one query rather than one per conversation."""
        yield from self._links("1", ())

    def _links(self, which: str, params: tuple) -> list[tuple[str, str]]:
        """`dup:<group>` of each item matching `which` whose group holds another item, then `chan:<a>-<b>` of
        each shared channel it is part of."""
        self.flush_texts()
        return self.conn.execute(f"""
            SELECT i.conv_id, 'dup:' || i.grp FROM item i WHERE {which}
                AND EXISTS (SELECT 1 FROM item j WHERE j.grp = i.grp AND j.seq != i.seq)
            UNION ALL
            SELECT conv_id, key FROM (SELECT i.conv_id, 'chan:' || l.a || '-' || l.b AS key FROM link l
                JOIN item i ON i.seq = l.a OR i.seq = l.b WHERE {which} AND l.how = 'shared_channel'
                ORDER BY l.a, l.b)""", params + params).fetchall()

    def item(self, conv_id: str) -> tuple[str, float] | None:
        """(upload, seconds of audio) of an indexed conversation."""
        self.flush_texts()
        row = self.conn.execute("SELECT upload, seconds FROM item WHERE conv_id = ?", (conv_id,)).fetchone()
        return (row[0], float(row[1])) if row else None


@contextlib.contextmanager
def split_links(path: Path) -> Iterator[Callable[[], Iterator[tuple[str, str]]] | None]:
    """`ContentIndex.link_pairs` of the index at `path` (read only), or None when nothing was indexed yet."""
    if not Path(path).is_file():
        yield None
        return
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        yield ContentIndex(conn, IdentitySettings()).link_pairs
    finally:
        conn.close()


def _ber(a: Channel, b: Channel, overlap: float) -> float:
    return bit_error(a[0], b[0], overlap, wa=a[1], wb=b[1])


def _same_recording(mine: dict[int, Channel], theirs: dict[int, Channel], max_ber: float, overlap: float) -> bool:
    """The mixes line up, and when both are multi-channel every informative channel has its counterpart."""
    mix_a, mix_b = mine.get(MIX, mine.get(0)), theirs.get(MIX, theirs.get(0))
    if mix_a is None or mix_b is None or _ber(mix_a, mix_b, overlap) > max_ber:
        return False
    chans_a = [f for c, f in mine.items() if c != MIX and informative(*f)]
    chans_b = [f for c, f in theirs.items() if c != MIX and informative(*f)]
    if len(chans_a) > 1 and len(chans_b) > 1:
        return all(any(_ber(a, b, overlap) <= max_ber for b in chans_b) for a in chans_a)
    return True


def _shares_channel(mine: dict[int, Channel], theirs: dict[int, Channel], max_ber: float, overlap: float) -> bool:
    return any(_ber(a, b, overlap) <= max_ber for c, a in mine.items() if c != MIX
               for d, b in theirs.items() if d != MIX)
