"""What makes the duplicate check cheap must not change what it finds (issue 30).

- Text signatures computed in one numpy pass are datasketch's MinHash values for the same shingles, however
  the pass is cut into chunks.
- Exact copies of a text store no LSH bands of their own (their signature is the first copy's); when the
  first copy goes, the next one takes the bands over, so near copies are still found.
- Match results are keyed by the settings (a new threshold re-checks) and do not depend on how the index
  batches its writes.
- ASCII text is normalised by one translation table to the words the regular expressions give.
- Audio fingerprints computed from one resampled stream are the ones Chromaprint makes of the original rate.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.dedup_set import SR, make_chats, render_call
from vak_pipeline.identity import ContentIndex, IdentitySettings, audio_print, text_print
from vak_pipeline.identity.audio import bit_error
from vak_pipeline.identity.text import NUM_PERM, SCHEME, SEED, SEQ_BITS, SEQ_MASK, _shingles, _signatures, normalise

pytestmark = pytest.mark.timeout(300)


def _turns(messages: list[dict]) -> list[tuple[str, str]]:
    return [("user" if m["role"] == "user" else "agent", m["content"]) for m in messages]


def _pairs(n: int):
    """(base chat, its re-export with an edit) for the first `n` chats of the bench's generator."""
    pairs = [(a, b) for _ia, a, _ib, b, same, variant in make_chats(2 * n) if same and variant == "re-export+edit"]
    return pairs[:n]


def _bands(index: ContentIndex, conv_id: str) -> int:
    return index.conn.execute(f"SELECT COUNT(*) FROM lsh JOIN item ON item.seq = lsh.k & {SEQ_MASK} "
                              "WHERE conv_id = ?", (conv_id,)).fetchone()[0]


def assert_signatures_are_datasketchs(sides: list[list[str]]) -> None:
    """Each side's signature equals datasketch's MinHash of its shingles; an empty side's is all zeros."""
    from datasketch import MinHash

    for words, sig in zip(sides, _signatures(sides), strict=True):
        if not words:
            assert not sig.any()
            continue
        m = MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME, hashfunc=lambda v: v)
        m.update_batch(_shingles(words).tolist())
        assert np.array_equal(sig, np.asarray(m.hashvalues, dtype=np.uint64))


def test_signatures_are_datasketchs_minhash_of_the_same_shingles():
    sides = [normalise("Hi, my parcel 12345 has not arrived and the tracking page has not changed"),
             normalise("I am sorry to hear that, let me look into it"), [], normalise("ok")]
    assert_signatures_are_datasketchs(sides)


def test_signatures_of_a_batch_cut_into_several_numpy_chunks_are_each_sides_own(monkeypatch):
    import vak_pipeline.identity.text as text

    monkeypatch.setattr(text, "_CHUNK", 40)  # shingles per pass: sides alone, several together, one longer
    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(60)]
    sides = [[rng.choice(vocab) for _ in range(n)] for n in (5, 90, 0, 2, 30, 12, 41, 1, 17, 60)]
    assert_signatures_are_datasketchs(sides)


def test_exact_copies_share_the_first_copys_bands_and_hand_them_on_when_it_goes(tmp_path):
    (base, edited), = _pairs(1)
    with ContentIndex.open(tmp_path / "i.sqlite") as index:
        first = index.add_text("first", "u", "k1", lambda: text_print(_turns(base)))
        copy = index.add_text("copy", "v", "k2", lambda: text_print(_turns(base)))
        assert copy.how == "exact_text" and copy.group == first.group
        assert _bands(index, "first") > 0 and _bands(index, "copy") == 0
        seq_first = index.conn.execute("SELECT seq FROM item WHERE conv_id = 'first'").fetchone()[0]
        index.remove(["first"])
        assert _bands(index, "copy") > 0  # the copy left carries the text's bands now
        assert index.conn.execute(f"SELECT COUNT(*) FROM lsh WHERE k & {SEQ_MASK} = ?",
                                  (seq_first,)).fetchone()[0] == 0
        near = index.add_text("near", "w", "k3", lambda: text_print(_turns(edited)))
        assert near.how == "near_text" and near.group == index.add_text("copy", "v", "k2", text_print).group


def test_a_new_threshold_rechecks_the_text_matches(tmp_path):
    (base, edited), = _pairs(1)
    path = tmp_path / "i.sqlite"
    with ContentIndex.open(path) as index:
        index.add_text("a", "u", "ka", lambda: text_print(_turns(base)))
        assert index.add_text("b", "v", "kb", lambda: text_print(_turns(edited))).how == "near_text"

    def boom():
        raise AssertionError("printed again")

    with ContentIndex.open(path, IdentitySettings(text_min_similarity=1.0)) as index:  # an edit is no longer a copy
        assert index.add_text("b", "v", "kb", boom).how is None
        assert list(index.kept_and_dropped()) == []
    with ContentIndex.open(path) as index:  # and back
        assert index.add_text("b", "v", "kb", boom).how == "near_text"


def test_a_recheck_drops_bands_an_older_index_kept_for_exact_copies(tmp_path):
    (base, _), = _pairs(1)
    path = tmp_path / "i.sqlite"
    with ContentIndex.open(path) as index:
        index.add_text("a", "u", "ka", lambda: text_print(_turns(base)))
        index.add_text("b", "v", "kb", lambda: text_print(_turns(base)))
        seq_b = index.conn.execute("SELECT seq FROM item WHERE conv_id = 'b'").fetchone()[0]
        keys = [k for (k,) in index.conn.execute(f"SELECT k >> {SEQ_BITS} FROM lsh")]
        index.conn.executemany("INSERT INTO lsh VALUES (?)", (((k << SEQ_BITS) | seq_b,) for k in keys))  # as v2
        index.conn.execute("UPDATE meta SET v = 'older' WHERE k = 'settings'")
    with ContentIndex.open(path) as index:
        assert _bands(index, "b") == 0 and _bands(index, "a") == len(keys)
        assert index.add_text("b", "v", "kb", text_print).how == "exact_text"


@pytest.mark.parametrize("present_batch", [1, 3])
def test_results_do_not_depend_on_how_writes_are_batched(tmp_path, present_batch, monkeypatch):
    chats = [m for _ia, a, _ib, b, _s, _v in make_chats(8) for m in (a, b)]

    def run(path: Path) -> tuple[list, list]:
        with ContentIndex.open(path) as index:
            matches = [index.add_text(f"c{i}", "u", f"k{i}", lambda m=m: text_print(_turns(m)))
                       for i, m in enumerate(chats)]
            index.remove(["c0", "c5"])
            return matches, list(index.kept_and_dropped())

    reference = run(tmp_path / "default.sqlite")
    monkeypatch.setattr(ContentIndex, "present_batch", present_batch)
    assert run(tmp_path / f"batch{present_batch}.sqlite") == reference
    assert reference[1]  # the set has duplicates to decide


def test_fingerprints_from_one_resampled_stream_are_chromaprints_of_the_original_rate(tmp_path):
    import chromaprint

    x = render_call(random.Random(4), "Hello, you are through to the billing team, this call may be recorded.")
    path = tmp_path / "call.wav"
    sf.write(path, x, SR, subtype="PCM_16")
    pcm, _ = sf.read(path, dtype="int16")
    p = audio_print(path)
    for c, frames in enumerate(p.channels):
        fp = chromaprint.Fingerprinter()
        fp.start(SR, 1)  # Chromaprint resampling the channel itself
        fp.feed(np.ascontiguousarray(pcm[:, c]).tobytes())
        direct = np.asarray(chromaprint.decode_fingerprint(fp.finish())[0], dtype=np.int64).astype(np.uint32)
        assert len(direct) == len(frames)
        assert bit_error(direct, frames, 0.8, max_shift=0) < 0.01


@pytest.mark.parametrize("text_batch", [1, 3, 1024])
def test_texts_matched_a_batch_at_a_time_match_as_they_would_one_by_one(tmp_path, text_batch, monkeypatch):
    """Batches are cut where a conversation repeats, changed content or came back: each case is in here."""
    import vak_pipeline.identity.index as index_module

    chats = [m for _ia, a, _ib, b, _s, _v in make_chats(10) for m in (a, b)]

    def run(path: Path) -> tuple[list, list, list]:
        with ContentIndex.open(path) as index:
            for i, m in enumerate(chats):
                index.add_text_later(f"c{i}", "u", f"k{i}", lambda m=m: text_print(_turns(m)))
            for i, m in enumerate(chats[:8]):  # a re-delivery under new ids, one of them twice
                index.add_text_later(f"r{i}", "v", f"rk{i}", lambda m=m: text_print(_turns(m)))
            index.add_text_later("r3", "v", "rk3", lambda: text_print(_turns(chats[3])))
            index.add_text_later("c2", "u", "changed", lambda: text_print(_turns(chats[5])))  # content changed
            index.remove(["c0"])
            index.add_text_later("c4", "u", "k4", text_print)  # known: not printed again
            index.add_text_later("c0", "u", "k0", lambda: text_print(_turns(chats[0])))  # back after erasure
            kept = list(index.kept_and_dropped())
            links = [index.links_of(f"{p}{i}") for p in "cr" for i in range(len(chats))]
            rows = index.conn.execute("SELECT seq, conv_id, grp, how FROM item ORDER BY seq").fetchall()
            return kept, links, rows

    monkeypatch.setattr(index_module, "match_texts", lambda index, items: [index._add_text_one(i) for i in items])
    one_by_one = run(tmp_path / "one.sqlite")
    monkeypatch.undo()
    monkeypatch.setattr(ContentIndex, "text_batch", text_batch)
    assert run(tmp_path / f"batch{text_batch}.sqlite") == one_by_one
    assert one_by_one[0]  # the set has duplicates to decide


def _store_signatures_as_uint64(index: ContentIndex) -> None:
    """Rewrite the stored signatures the way an index of version 3 held them: the same values as uint64."""
    rows = index.conn.execute("SELECT seq, usr, oth FROM tsig").fetchall()
    index.conn.executemany("UPDATE tsig SET usr = ?, oth = ? WHERE seq = ?", [
        (np.frombuffer(u, "<u4").astype("<u8").tobytes(), np.frombuffer(o, "<u4").astype("<u8").tobytes(), s)
        for s, u, o in rows])


def test_an_index_with_uint64_signatures_is_rechecked_with_the_same_matches(tmp_path):
    """IDENTITY_VERSION 4 stores signatures as uint32; an older index's uint64 blobs are the same values."""
    pairs = _pairs(3)
    path = tmp_path / "i.sqlite"
    with ContentIndex.open(path) as index:
        for n, (a, b) in enumerate(pairs):
            index.add_text(f"a{n}", "u", f"ka{n}", lambda a=a: text_print(_turns(a)))
            index.add_text(f"b{n}", "v", f"kb{n}", lambda b=b: text_print(_turns(b)))
        before = list(index.kept_and_dropped())
        _store_signatures_as_uint64(index)  # as version 3 stored them
        index.conn.execute("UPDATE meta SET v = 'version 3' WHERE k = 'settings'")
        index.conn.execute("UPDATE item SET grp = seq, how = NULL")  # a recheck must find the groups again
    with ContentIndex.open(path) as index:
        ids = [f"{s}{n}" for n in range(len(pairs)) for s in "ab"]
        assert list(index.kept_and_dropped(ids)) == before and len(before) == len(pairs)


_TRICKY = ["<NAME_2>", "<PHONE>", "<ORDER_ID_12>", "<", ">", "_", "12", "0", "00", "3", " ", "\n", "\t", "Hello",
           "ORDER", "...", "a1b", "x_9"]


@given(st.lists(st.sampled_from(_TRICKY) | st.text(st.characters(max_codepoint=127), max_size=6), max_size=10)
       .map("".join))
@settings(max_examples=500, deadline=None)
def test_ascii_text_is_normalised_to_the_words_the_regular_expressions_give(text):
    from vak_pipeline.identity.text import _normalise_unicode

    assert normalise(text) == _normalise_unicode(text)


def test_an_index_written_at_version_4_is_not_trusted_as_is_its_band_rows_are_rebuilt(tmp_path, monkeypatch):
    """IDENTITY_VERSION 5 stores a band as one integer (table lsh): an index of version 4, with (key, seq) rows
    in tband, is re-checked on open, its old table dropped and its bands made again from the signatures."""
    import vak_pipeline.identity.settings as identity_settings

    (base, edited), = _pairs(1)
    path = tmp_path / "i.sqlite"
    with ContentIndex.open(path) as index:
        index.add_text("a", "u", "ka", lambda: text_print(_turns(base)))
        index.add_text("copy", "u", "kc", lambda: text_print(_turns(base)))
        bands = index.conn.execute("SELECT k FROM lsh ORDER BY k").fetchall()
        index.conn.execute("CREATE TABLE tband (k INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (k, seq)) "
                           "WITHOUT ROWID")  # as version 4 kept them
        index.conn.execute(f"INSERT INTO tband SELECT k >> {SEQ_BITS}, k & {SEQ_MASK} FROM lsh")
        index.conn.execute("DROP TABLE lsh")
        monkeypatch.setattr(identity_settings, "IDENTITY_VERSION", "4")
        index.conn.execute("UPDATE meta SET v = ? WHERE k = 'settings'", (IdentitySettings().fingerprint(),))
    monkeypatch.undo()
    with ContentIndex.open(path) as index:
        tables = {t for (t,) in index.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "tband" not in tables
        assert index.conn.execute("SELECT k FROM lsh ORDER BY k").fetchall() == bands and _bands(index, "copy") == 0
        near = index.add_text("near", "v", "kn", lambda: text_print(_turns(edited)))
        assert near.how == "near_text" and near.group == index.add_text("a", "u", "ka", text_print).group


def test_band_rows_refuse_a_sequence_number_they_cannot_hold():
    from vak_pipeline.identity.text import band_rows

    assert band_rows([3, 1, 3], 7) == [(1 << SEQ_BITS) | 7, (3 << SEQ_BITS) | 7]
    with pytest.raises(OverflowError):
        band_rows([1], 1 << SEQ_BITS)


def test_a_batch_signs_each_print_as_it_would_be_signed_alone():
    """Sides repeated across the batch (a scripted turn, an exact copy) are signed once; a print signed before
    keeps its signature: every print's signatures are the ones it gets on its own, and datasketch's."""
    from vak_pipeline.identity.text import sign

    chats = [m for _ia, a, _ib, b, _s, _v in make_chats(6) for m in (a, b)]
    prints = [text_print(_turns(m)) for m in [*chats, *chats[:3]]]  # the first three twice
    prints.append(text_print([("agent", "Thank you for calling, how can I help?")]))  # an empty customer side
    prints[4].user  # signed before the batch  # noqa: B018
    batch = sign(prints)
    assert batch.shape == (len(prints), 2, NUM_PERM)
    for p, sig in zip(prints, batch, strict=True):
        alone = text_print(_turns_of(p))
        assert np.array_equal(sig, sign([alone])[0])
        assert np.array_equal(p.user, sig[0]) and np.array_equal(p.other, sig[1])
    assert_signatures_are_datasketchs([side for p in prints for side in p.sides])


def _turns_of(p) -> list[tuple[str, str]]:
    """Turns that print to `p`'s sides (its words are already normalised)."""
    return [("user", " ".join(p.sides[0])), ("agent", " ".join(p.sides[1]))]


@given(st.lists(st.sampled_from([*_TRICKY, "\x00", "é", "Straße", "<NAME_1>"]) | st.text(max_size=6), max_size=8)
       .map("".join), st.integers(0, 4))
@settings(max_examples=300, deadline=None)
def test_the_turns_of_a_conversation_normalised_at_once_give_each_turns_words(text, n):
    """ASCII turns are normalised joined by a NUL; a turn holding one, or text that is not ASCII, goes alone."""
    from vak_pipeline.identity.text import _turn_words

    texts = [text, *(f"{text} <ORDER_ID_{k}> 00{k}" for k in range(n))]
    assert _turn_words(texts) == [normalise(t) for t in texts]


@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, NUM_PERM), min_size=2, max_size=2),
       st.sampled_from([0.0, 0.5, 0.7, 0.9, 1.0]), st.booleans())
@settings(max_examples=300, deadline=None)
def test_the_low_bytes_never_rule_out_a_pair_the_full_signatures_find_similar(seed, equal, threshold, empty):
    """`could_be_similar` is a necessary condition of `similarities(...) >= threshold` on both sides."""
    from vak_pipeline.identity.text import could_be_similar, signature_low_bytes, similarities

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**32, (2, NUM_PERM), dtype=np.uint32)
    b = a.copy()
    for side, k in enumerate(equal):  # k values equal, the others differ (often in the low byte only)
        b[side, k:] = a[side, k:] ^ rng.choice([1, 1 << 8, 1 << 31], NUM_PERM - k).astype(np.uint32)
    if empty:
        a[0] = 0
    passes = bool((similarities(a, b[None]) >= threshold).all())
    assert passes <= bool(could_be_similar(signature_low_bytes(a)[None], signature_low_bytes(b)[None], threshold)[0])


def test_a_batch_finds_near_copies_of_items_stored_with_uint64_signatures(tmp_path):
    """Candidates' signatures are read a batch at a time; an index of version 3 stored them as uint64."""
    pairs = _pairs(3)
    path = tmp_path / "i.sqlite"
    with ContentIndex.open(path) as index:
        for n, (a, _b) in enumerate(pairs):
            index.add_text(f"a{n}", "u", f"ka{n}", lambda a=a: text_print(_turns(a)))
        _store_signatures_as_uint64(index)
        index.conn.execute("UPDATE meta SET v = 'version 3' WHERE k = 'settings'")
    with ContentIndex.open(path) as index:
        for n, (_a, b) in enumerate(pairs):
            index.add_text_later(f"b{n}", "v", f"kb{n}", lambda b=b: text_print(_turns(b)))
        ids = [f"{s}{n}" for n in range(len(pairs)) for s in "ab"]
        assert sorted(index.kept_and_dropped(ids)) == [(f"b{n}", f"a{n}", "near_text") for n in range(len(pairs))]
