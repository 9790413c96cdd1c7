"""Speaker-disjoint, seeded, stable, stratified split assignment by conversation id.

Conversations that share a known speaker (an agent voice, a customer id; by role) form one connected
component and always land in one split. Four promises:
- deterministic: the same manifest, config and previous file give the same splits.json;
- stable: a conversation already assigned never moves, and a new conversation that joins an assigned
  component goes where that component is;
- honest: a new conversation that would tie together components already in different splits is held
  out with a message, never silently moved (moving it would leak a speaker into a second split);
- stratified: every recipe finds its rows in every split. A component's stratum is whether it has audio
  (speech recipes read only those), then locale, then source (`summaries.stratum_of`). When a stratum
  has at least as many fresh components as there are splits still without one of it, each such split
  gets one first (in ratio order); after that a component goes to the split furthest below its share,
  summed over the stratum levels (audio, audio+locale, audio+locale+source) and overall.
Fresh components are ordered by sha256(seed, smallest conv id); existing assignments constrain but never
get reshuffled. Memory is flat: conversations live in SQLite temp tables, Python holds one union-find
array and a counter per (stratum level, split). `strata` in the header counts each split's conversations
with and without audio and says how many speaker-linked groups each has, so an empty speech split can
be explained (e.g. one agent voice in every call).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from array import array
from collections import defaultdict
from collections.abc import Iterable
from itertools import groupby

from .model import FIX_SEPARATOR, Conflict, SplitConfig, SplitsFile, SplitsHeader
from .store import BATCH, SplitStore, as_store
from .summaries import SplitSummary, load_summaries


class UnionFind:
    """Path-halving, union-by-size disjoint sets over dense integer ids (compact arrays, not dicts)."""

    def __init__(self, n: int = 0) -> None:
        self.parent = array("q", range(n))
        self.size = array("q", [1]) * n

    def add(self) -> int:
        """A new singleton set; returns its id."""
        self.parent.append(len(self.parent))
        self.size.append(1)
        return len(self.parent) - 1

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]


def _components(conv_keys: dict[str, list[str]]) -> list[list[str]]:
    """Connected components (each sorted) of a few conversations linked through shared speaker keys."""
    convs = list(conv_keys)
    uf = UnionFind(len(convs))
    key_ids: dict[str, int] = {}
    for i, conv in enumerate(convs):
        for k in conv_keys[conv]:
            j = key_ids.get(k)
            if j is None:
                j = key_ids[k] = uf.add()
            uf.union(i, j)
    groups: dict[int, list[str]] = defaultdict(list)
    for i, conv in enumerate(convs):
        groups[uf.find(i)].append(conv)
    return [sorted(g) for g in groups.values()]


def component_order_key(seed: int, smallest_conv_id: str) -> str:
    return hashlib.sha256(f"{seed}\0{smallest_conv_id}".encode()).hexdigest()


def _levels(stratum: str | None) -> list[str]:
    """The stratum levels a component is balanced on: "audio", "audio|en-IN", "audio|en-IN|real"."""
    parts = (stratum or "").split("|")
    return ["|".join(parts[:k]) for k in range(1, len(parts) + 1)]


class _Balancer:
    """Picks a split for each fresh component: first one per split in a stratum that has enough
    components for it, then the split furthest below its share summed over the stratum levels and overall."""

    def __init__(self, config: SplitConfig, counts: dict[str, int], by_level: dict[str, dict[str, int]],
                 remaining: dict[str, int]) -> None:
        self.ratios = config.ratios
        self.names = list(config.ratios)
        self.positive = [s for s in self.names if self.ratios[s] > 0]
        self.total = {name: counts.get(name, 0) for name in self.names}
        self.by_level = {lvl: {name: c.get(name, 0) for name in self.names} for lvl, c in by_level.items()}
        self.remaining = dict(remaining)  # fresh components not yet placed, per top-level stratum

    def pick(self, stratum: str | None, size: int) -> str:
        levels = _levels(stratum)
        top = levels[0]
        seen = self.by_level.setdefault(top, {name: 0 for name in self.names})
        empty = [s for s in self.positive if seen[s] == 0]
        if empty and self.remaining.get(top, 0) >= len(empty):
            best = empty[0]
        else:
            scores = {name: self._deficit(self.total, name, size) for name in self.names}
            for lvl in levels:
                got = self.by_level.setdefault(lvl, {name: 0 for name in self.names})
                for name in self.names:
                    scores[name] += self._deficit(got, name, size)
            best = self.names[0]
            for name in self.names[1:]:
                if scores[name] > scores[best] + 1e-12:
                    best = name
        self.remaining[top] = self.remaining.get(top, 0) - 1
        self.total[best] += size
        for lvl in levels:
            self.by_level.setdefault(lvl, {name: 0 for name in self.names})[best] += size
        return best

    def _deficit(self, counts: dict[str, int], name: str, size: int) -> float:
        return self.ratios[name] * (sum(counts.values()) + size) - counts[name]


def build_splits(
    summaries: Iterable[SplitSummary | tuple],
    config: SplitConfig | None = None,
    previous: SplitsFile | SplitStore | None = None,
    manifest_hash: str | None = None,
) -> SplitsFile:
    """Assign every conversation to a split (or hold it out with a reason), all in memory at the end.

    For small datasets and tests; split_manifest keeps the result on disk instead.
    """
    with SplitStore.temporary() as store:
        assign_into(store, summaries, config, previous, manifest_hash)
        return store.to_file()


def assign_into(
    store: SplitStore,
    summaries: Iterable[SplitSummary | tuple],
    config: SplitConfig | None = None,
    previous: SplitsFile | SplitStore | None = None,
    manifest_hash: str | None = None,
) -> SplitsHeader:
    """Fill an empty store with the splits of `summaries` (see the module docstring); returns the header."""
    config = config or SplitConfig()
    load_summaries(store.conn, summaries, config.roles, "raw", "rawkey", BATCH)
    with contextlib.ExitStack() as stack:
        prev = stack.enter_context(as_store(previous)) if previous is not None else None
        header = assign_loaded(store, config, prev, manifest_hash)
    store.conn.executescript("DROP TABLE rawkey; DROP TABLE raw;")
    return header


def assign_loaded(store: SplitStore, config: SplitConfig, previous: SplitStore | None = None,
                  manifest_hash: str | None = None) -> SplitsHeader:
    """assign_into over summaries already in the temp tables raw/rawkey (summaries.load_summaries), which
    are left in place so the split check can read the same pass over the manifest.

    Everything that grows with the dataset lives in SQLite temp tables; Python holds one integer array
    for the union-find and, at a time, one component that already has assigned members.
    """
    names = list(config.ratios)
    conn = store.conn
    warnings: list[str] = []
    n = _load_conversations(conn, warnings)
    _load_previous(conn, previous, config, warnings)
    _load_components(conn, n)
    _anchor(conn, config, warnings)

    conflicts: list[Conflict] = []
    _settle_known_components(store, conflicts)

    counts = {name: 0 for name in names}
    for split, c in conn.execute("SELECT v, COUNT(*) FROM main.assignment GROUP BY v ORDER BY v"):
        counts[split] = counts.get(split, 0) + c
    largest = _assign_fresh(conn, config, counts)
    conn.execute("INSERT INTO main.retired (k, v) SELECT p.k, p.v FROM prev_assign p "
                 "WHERE NOT EXISTS (SELECT 1 FROM conv WHERE conv.id = p.k) ORDER BY p.k")
    _speaker_map(conn)

    if largest > 1 and largest / max(n, 1) > 0.5:
        warnings.append(f"one group of conversations sharing speakers holds {largest} of {n} "
                        "conversations; splits cannot reach their ratios. If a single agent voice is shared by "
                        "every call, split by customer only (roles=['user'])")
    empty = [name for name in names if config.ratios[name] > 0 and counts.get(name, 0) == 0]
    if empty and n >= len(names):
        warnings.append(f"split(s) {', '.join(empty)} received no conversations")
    strata = _strata_counts(conn, names)
    warnings.extend(_strata_warnings(strata, config))
    counts["held_out"] = store.count("held_out")
    header = SplitsHeader(seed=config.seed, ratios=config.ratios, roles=list(config.roles), counts=counts,
                          strata=strata,
                          conflicts=sorted(conflicts, key=lambda c: (c.code, c.conversations)),
                          warnings=warnings, manifest_hash=manifest_hash)
    store.set_header(header)
    conn.commit()
    return header


SPLIT_VERSION = "1"  # bump when the output for the same inputs and settings would change (the asset's code_version)
MAX_LISTED = 20  # per kind of warning; the rest are counted


def _listed(conn: sqlite3.Connection, sql: str, params: tuple = ()) -> tuple[list[tuple], int]:
    """The first MAX_LISTED rows of a query and how many rows it has in all."""
    rows = conn.execute(f"SELECT * FROM ({sql}) LIMIT {MAX_LISTED}", params).fetchall()
    total = conn.execute(f"SELECT COUNT(*) FROM ({sql})", params).fetchone()[0] if len(rows) == MAX_LISTED \
        else len(rows)
    return rows, total


def _more(total: int, shown: int, what: str) -> list[str]:
    return [f"... and {total - shown} more {what}"] if total > shown else []


def _load_conversations(conn: sqlite3.Connection, warnings: list[str]) -> int:
    """conv(n, id, pinned, stratum) numbered 0..n-1 in id order, and ckey(n, key): the speaker keys of each."""
    conn.executescript("""
        CREATE TEMP TABLE firsts (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, copies INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO firsts SELECT id, MIN(seq), COUNT(*) FROM raw GROUP BY id;
        CREATE TEMP TABLE conv (n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, pinned TEXT, stratum TEXT);
        INSERT INTO conv SELECT ROW_NUMBER() OVER (ORDER BY f.id) - 1, f.id, r.pinned, r.stratum
            FROM firsts f JOIN raw r ON r.seq = f.seq ORDER BY f.id;
        CREATE TEMP TABLE ckey (n INTEGER NOT NULL, key TEXT NOT NULL, PRIMARY KEY (n, key)) WITHOUT ROWID;
        INSERT OR IGNORE INTO ckey SELECT c.n, k.key FROM rawkey k JOIN raw r ON r.seq = k.seq
            JOIN conv c ON c.id = r.id;
        CREATE INDEX ckey_by_key ON ckey (key, n);
    """)
    dups, total = _listed(conn, "SELECT id FROM firsts WHERE copies > 1 ORDER BY id")
    warnings.extend(f"conversation id {cid} appears more than once in the manifest; assigned once" for (cid,) in dups)
    warnings.extend(_more(total, len(dups), "conversation ids appear more than once"))
    conn.executescript("DROP TABLE firsts;")
    return conn.execute("SELECT COUNT(*) FROM conv").fetchone()[0]


def _load_previous(conn: sqlite3.Connection, previous: SplitStore | None, config: SplitConfig,
                   warnings: list[str]) -> None:
    """prev_assign (assignment over retired) and prev_speakers, copied from the previous splits."""
    conn.executescript("""
        CREATE TEMP TABLE prev_assign (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID;
        CREATE TEMP TABLE prev_speakers (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID;
    """)
    if previous is None:
        return
    previous.conn.commit()  # a store built just now (from_file) is read from its file
    conn.commit()
    conn.execute("ATTACH DATABASE ? AS prev", (str(previous.path),))  # copied by SQLite, not row by row in Python
    try:
        conn.executescript("""
            INSERT OR REPLACE INTO prev_assign SELECT k, v FROM prev.retired;
            INSERT OR REPLACE INTO prev_assign SELECT k, v FROM prev.assignment;
            INSERT OR REPLACE INTO prev_speakers SELECT k, v FROM prev.speakers;
        """)
    finally:
        conn.execute("DETACH DATABASE prev")
    seed = previous.header.seed
    if seed != config.seed:
        warnings.append(f"seed changed from {seed} to {config.seed}: existing assignments are kept; "
                        "the new seed orders only new components")


def _load_components(conn: sqlite3.Connection, n: int) -> None:
    """comp(n, root): union-find over conversations, walking each shared key's conversations in key order (a key
    of one conversation joins nothing: left to SQLite)."""
    uf = UnionFind(n)
    prev_key, first = None, -1
    for key, i in conn.execute("SELECT key, n FROM ckey WHERE key IN (SELECT key FROM ckey GROUP BY key "
                               "HAVING COUNT(*) > 1) ORDER BY key, n"):
        if key == prev_key:
            uf.union(first, i)
        else:
            prev_key, first = key, i
    conn.execute("CREATE TEMP TABLE comp (n INTEGER PRIMARY KEY, root INTEGER NOT NULL)")
    conn.executemany("INSERT INTO comp VALUES (?, ?)", ((i, uf.find(i)) for i in range(n)))
    conn.execute("CREATE INDEX comp_by_root ON comp (root, n)")


def _anchor(conn: sqlite3.Connection, config: SplitConfig, warnings: list[str]) -> None:
    """anchor(n, split): conversations whose split is already decided (previous file first, then meta.split)."""
    conn.executescript("""
        CREATE TEMP TABLE anchor (n INTEGER PRIMARY KEY, split TEXT NOT NULL, overruled TEXT);
        INSERT INTO anchor SELECT c.n, COALESCE(p.v, c.pinned),
                CASE WHEN p.v IS NOT NULL AND c.pinned IS NOT NULL AND c.pinned != p.v THEN c.pinned END
            FROM conv c LEFT JOIN prev_assign p ON p.k = c.id WHERE p.v IS NOT NULL OR c.pinned IS NOT NULL;
    """)
    rows, total = _listed(conn, "SELECT c.id, a.overruled, a.split FROM anchor a JOIN conv c ON c.n = a.n "
                                "WHERE a.overruled IS NOT NULL ORDER BY c.id")
    warnings.extend(f"conversation {cid} carries meta.split={pinned} but splits.json already has it in {split}; "
                    "splits.json wins (assignments never move)" for cid, pinned, split in rows)
    warnings.extend(_more(total, len(rows), "conversations carry a meta.split that splits.json overrules"))
    names = json.dumps(list(config.ratios))
    for split, count, example in conn.execute(
            "SELECT a.split, COUNT(*), MIN(c.id) FROM anchor a JOIN conv c ON c.n = a.n "
            "WHERE a.split NOT IN (SELECT value FROM json_each(?)) GROUP BY a.split ORDER BY a.split", (names,)):
        warnings.append(f"{count} conversation(s) (e.g. {example}) are kept in split '{split}', which is not in "
                        "the configured ratios")


def _settle_known_components(store: SplitStore, conflicts: list[Conflict]) -> None:
    """Components touching an earlier decision (an anchored member, a speaker with a recorded split).

    Settled by the rules of the module docstring: a component whose members' splits and speakers' recorded
    splits are one split goes there whole, in one statement (after a delivery, nearly every conversation:
    only new ids and conflicts reach Python); the others, streamed one component at a time in root order,
    go to _settle_component and its _resolve_conflict.
    """
    conn = store.conn
    conn.executescript("""
        CREATE TEMP TABLE known_split (root INTEGER NOT NULL, split TEXT NOT NULL, PRIMARY KEY (root, split))
            WITHOUT ROWID;
        INSERT OR IGNORE INTO known_split SELECT comp.root, anchor.split FROM anchor JOIN comp ON comp.n = anchor.n;
        INSERT OR IGNORE INTO known_split SELECT comp.root, p.v FROM prev_speakers p JOIN ckey ON ckey.key = p.k
            JOIN comp ON comp.n = ckey.n;
        CREATE TEMP TABLE known (root INTEGER PRIMARY KEY, split TEXT);  -- split: the one split, when one
        INSERT INTO known SELECT root, CASE WHEN COUNT(*) = 1 THEN MIN(split) END FROM known_split GROUP BY root;
        DROP TABLE known_split;
        INSERT INTO main.assignment (k, v) SELECT conv.id, known.split FROM known
            JOIN comp ON comp.root = known.root JOIN conv ON conv.n = comp.n WHERE known.split IS NOT NULL;
    """)
    rows = conn.execute("""
        SELECT comp.root, conv.id, anchor.split,
               (SELECT json_group_array(json_array(ck.key, ps.v)) FROM ckey ck
                  LEFT JOIN prev_speakers ps ON ps.k = ck.key WHERE ck.n = conv.n)
        FROM known JOIN comp ON comp.root = known.root JOIN conv ON conv.n = comp.n
        LEFT JOIN anchor ON anchor.n = conv.n
        WHERE known.split IS NULL
        ORDER BY comp.root, conv.id
    """)
    assigned: list[tuple[str, str]] = []
    held: list[tuple[str, str]] = []
    write = store.conn.cursor()

    def flush() -> None:
        write.executemany("INSERT INTO main.assignment (k, v) VALUES (?, ?)", assigned)
        write.executemany("INSERT INTO main.held_out (k, v) VALUES (?, ?)", held)
        assigned.clear()
        held.clear()

    for _root, members in groupby(rows, key=lambda r: r[0]):
        comp: list[str] = []
        conv_keys: dict[str, list[str]] = {}
        anchor: dict[str, str] = {}
        prev_speakers: dict[str, str] = {}
        for _, conv, split, keys_json in members:
            comp.append(conv)
            conv_keys[conv] = []
            for key, prev in json.loads(keys_json):
                conv_keys[conv].append(key)
                if prev is not None:
                    prev_speakers[key] = prev
            if split is not None:
                anchor[conv] = split
        assignment, held_out = _settle_component(comp, conv_keys, anchor, prev_speakers, conflicts)
        assigned.extend(assignment.items())
        held.extend(held_out.items())
        if len(assigned) >= BATCH:
            flush()
    flush()


def _settle_component(comp: list[str], conv_keys: dict[str, list[str]], anchor: dict[str, str],
                      prev_speakers: dict[str, str],
                      conflicts: list[Conflict]) -> tuple[dict[str, str], dict[str, str]]:
    old = [c for c in comp if c in anchor]
    # where each speaker key already lives: from old members, then from the previous speaker map
    key_home: dict[str, dict[str, str]] = defaultdict(dict)  # key -> {split: example conv}
    for c in old:
        for k in conv_keys[c]:
            key_home[k].setdefault(anchor[c], c)
    for c in comp:
        for k in conv_keys[c]:
            if k in prev_speakers and prev_speakers[k] not in key_home[k]:
                key_home[k][prev_speakers[k]] = "(an earlier conversation)"
    comp_splits = sorted({s for homes in key_home.values() for s in homes} | {anchor[c] for c in old})
    assignment = {c: anchor[c] for c in old}
    held_out: dict[str, str] = {}
    if len(comp_splits) == 1:
        for c in comp:
            assignment.setdefault(c, comp_splits[0])
    else:
        _resolve_conflict(comp, conv_keys, anchor, key_home, assignment, held_out, conflicts)
    return assignment, held_out


def _assign_fresh(conn: sqlite3.Connection, config: SplitConfig, counts: dict[str, int]) -> int:
    """Components with no earlier decision, in sha256(seed, smallest id) order, each placed by _Balancer
    (stratified; see the module docstring). Returns the size of the largest one."""
    names = list(config.ratios)
    conn.create_function("order_key", 2, component_order_key, deterministic=True)
    conn.executescript("""
        CREATE TEMP TABLE fresh (root INTEGER PRIMARY KEY, ord TEXT NOT NULL, size INTEGER NOT NULL, stratum TEXT);
        CREATE TEMP TABLE comp_split (root INTEGER PRIMARY KEY, split TEXT NOT NULL);
    """)
    # a component's stratum is its members' smallest: "audio|..." sorts before "text|...", so one recording
    # in a component makes it a speech component
    conn.execute("INSERT INTO fresh SELECT comp.root, order_key(?, MIN(conv.id)), COUNT(*), MIN(conv.stratum) "
                 "FROM comp JOIN conv ON conv.n = comp.n WHERE comp.root NOT IN (SELECT root FROM known) "
                 "GROUP BY comp.root", (config.seed,))
    by_level: dict[str, dict[str, int]] = defaultdict(dict)
    for split, stratum, c in conn.execute("SELECT a.v, conv.stratum, COUNT(*) FROM main.assignment a "
                                          "JOIN conv ON conv.id = a.k GROUP BY a.v, conv.stratum"):
        for lvl in _levels(stratum):
            by_level[lvl][split] = by_level[lvl].get(split, 0) + c
    remaining: dict[str, int] = defaultdict(int)
    for stratum, c in conn.execute("SELECT stratum, COUNT(*) FROM fresh GROUP BY stratum"):
        remaining[_levels(stratum)[0]] += c
    balancer = _Balancer(config, counts, by_level, remaining)
    picks: list[tuple[int, str]] = []
    for root, size, stratum in conn.execute("SELECT root, size, stratum FROM fresh ORDER BY ord"):
        picks.append((root, balancer.pick(stratum, size)))
        if len(picks) >= BATCH:
            conn.executemany("INSERT INTO comp_split VALUES (?, ?)", picks)
            picks.clear()
    conn.executemany("INSERT INTO comp_split VALUES (?, ?)", picks)
    counts.update({name: balancer.total[name] for name in names})
    conn.execute("INSERT INTO main.assignment (k, v) SELECT conv.id, cs.split FROM comp_split cs "
                 "JOIN comp ON comp.root = cs.root JOIN conv ON conv.n = comp.n ORDER BY conv.id")
    return conn.execute("SELECT COALESCE(MAX(size), 0) FROM fresh").fetchone()[0]


def _strata_counts(conn: sqlite3.Connection, names: list[str]) -> dict[str, dict[str, int]]:
    """{"audio": {split: conversations, ..., "groups": speaker-linked groups}, "text": {...}} (strata present)."""
    out: dict[str, dict[str, int]] = {}
    for top, split, c in conn.execute(
            "SELECT substr(COALESCE(conv.stratum, ''), 1, instr(COALESCE(conv.stratum, '') || '|', '|') - 1) AS top, "
            "a.v, COUNT(*) FROM main.assignment a JOIN conv ON conv.id = a.k GROUP BY top, a.v ORDER BY top, a.v"):
        if top:
            out.setdefault(top, {name: 0 for name in names})[split] = c
    for top, groups in conn.execute(
            "SELECT substr(conv.stratum, 1, instr(conv.stratum || '|', '|') - 1) AS top, COUNT(DISTINCT comp.root) "
            "FROM conv JOIN comp ON comp.n = conv.n WHERE conv.stratum IS NOT NULL GROUP BY top ORDER BY top"):
        out.setdefault(top, {name: 0 for name in names})["groups"] = groups
    return out


def _strata_warnings(strata: dict[str, dict[str, int]], config: SplitConfig) -> list[str]:
    """Why a split holds no conversation with audio, when the manifest has some."""
    audio = strata.get("audio")
    if not audio:
        return []
    missing = [s for s in config.ratios if config.ratios[s] > 0 and audio.get(s, 0) == 0]
    if not missing:
        return []
    total = sum(v for k, v in audio.items() if k != "groups")
    groups = audio.get("groups", 0)
    return [f"split(s) {', '.join(missing)} hold no conversation with audio: the {total} conversation(s) with "
            f"audio form {groups} group(s) linked by shared speakers (roles {', '.join(config.roles)}), fewer than "
            "the splits that need one; add recordings with other speakers, or split by customer only "
            "(roles=['user']) when one agent voice is in every call"]


def _resolve_conflict(
    comp: list[str],
    conv_keys: dict[str, list[str]],
    anchor: dict[str, str],
    key_home: dict[str, dict[str, str]],
    assignment: dict[str, str],
    held_out: dict[str, str],
    conflicts: list[Conflict],
) -> None:
    """A component spanning several splits: old members stay; new members go where they touch one split."""
    new = [c for c in comp if c not in anchor]
    old_splits = sorted({anchor[c] for c in comp if c in anchor})
    # new members linked to each other only through keys no old member has (keys with no home yet)
    sub: dict[str, list[str]] = {c: [k for k in conv_keys[c] if not key_home.get(k)] for c in new}
    for group in _components(sub):
        touched: dict[str, list[str]] = defaultdict(list)  # split -> evidence strings
        for c in group:
            for k in conv_keys[c]:
                for split, example in key_home.get(k, {}).items():
                    role = k.split(":", 1)[0]
                    touched[split].append(f"{c} shares the {role} speaker with {example} ({split})")
        if len(touched) == 1:
            split = next(iter(touched))
            for c in group:
                assignment[c] = split
            continue
        splits = sorted(touched)
        evidence = "; ".join(sorted({e for ev in touched.values() for e in ev})[:6])
        msg = (f"held out: would join speakers already in {' and '.join(splits)} ({evidence}). Moving either side "
               "would leak a speaker into a second split")
        reason = (f"{msg}{FIX_SEPARATOR} check meta.speakers of these conversations (a wrong speaker id is the "
                  "usual cause) or move conversations by hand in splits.json, then re-run splits")
        for c in group:
            held_out[c] = reason
        conflicts.append(Conflict(code="bridge", conversations=group, splits=splits, message=msg))
    if len(old_splits) > 1:
        olds = [c for c in comp if c in anchor]
        # a leak among already-assigned conversations alone (speaker ids edited since the last run)
        only_old = _components({c: conv_keys[c] for c in olds})
        for group in only_old:
            gs = sorted({anchor[c] for c in group})
            if len(gs) > 1:
                conflicts.append(Conflict(
                    code="existing_leak", conversations=group, splits=gs,
                    message=f"conversations already assigned to {' and '.join(gs)} now share a speaker; "
                            "they were not moved. Fix: correct meta.speakers or move them by hand in splits.json"))


def _speaker_map(conn: sqlite3.Connection) -> None:
    """Speaker key -> split for unambiguous keys (previous entries kept for speakers no longer present)."""
    conn.executescript("""
        CREATE TEMP TABLE keysplit (key TEXT PRIMARY KEY, split TEXT NOT NULL, nsplits INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO keysplit SELECT ck.key, MIN(a.v), COUNT(DISTINCT a.v) FROM ckey ck
            JOIN conv ON conv.n = ck.n JOIN main.assignment a ON a.k = conv.id GROUP BY ck.key;
        INSERT INTO main.speakers (k, v) SELECT key, split FROM keysplit WHERE nsplits = 1;
        INSERT INTO main.speakers (k, v) SELECT p.k, p.v FROM prev_speakers p
            WHERE NOT EXISTS (SELECT 1 FROM keysplit WHERE keysplit.key = p.k);
    """)
