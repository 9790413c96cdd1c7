"""Values kept per content-defined chunk of lines (core.keyed_store.LineChunks, issue 34): a whole-manifest
pass looks up a chunk, not a line, and an edited, inserted or appended line computes only its own chunk."""

from __future__ import annotations

import pytest

from vak_pipeline.core.keyed_store import MAX_CHUNK, KeyedStore, LineChunks


def _pass(path, lines: list[bytes], fingerprint: str = "v1") -> tuple[list, list[bytes]]:
    computed: list[bytes] = []
    with KeyedStore.open(path, "lengths") as store:
        chunks = LineChunks(store, fingerprint, lambda raw: (computed.append(raw), len(raw))[1])
        values = [v for _, v in chunks.values(lines)]
    assert chunks.computed == len(computed)
    return values, computed


LINES = [f'{{"id": "c{i:04d}", "text": "hello {i}"}}\n'.encode() for i in range(2000)]


@pytest.mark.timeout(60)
def test_a_second_pass_over_the_same_lines_computes_nothing(tmp_path):
    first, computed = _pass(tmp_path / "s.sqlite", LINES)
    assert first == [len(r) for r in LINES] and len(computed) == len(LINES)
    again, computed = _pass(tmp_path / "s.sqlite", LINES)
    assert again == first and computed == []


@pytest.mark.timeout(60)
def test_an_edited_inserted_or_appended_line_computes_only_its_own_chunks(tmp_path):
    path = tmp_path / "s.sqlite"
    _pass(path, LINES)
    edited = list(LINES)
    edited[700] = b'{"id": "c0700", "text": "hello, 700"}\n'
    values, computed = _pass(path, edited)
    assert values == [len(r) for r in edited]
    assert edited[700] in computed and len(computed) <= MAX_CHUNK
    inserted = edited[:1200] + [b'{"id": "new"}\n'] + edited[1200:] + [b'{"id": "last"}\n']
    values, computed = _pass(path, inserted)
    assert values == [len(r) for r in inserted]
    assert b'{"id": "new"}\n' in computed and b'{"id": "last"}\n' in computed and len(computed) <= 2 * MAX_CHUNK


@pytest.mark.timeout(60)
def test_another_fingerprint_computes_every_line_and_unused_chunks_are_dropped(tmp_path):
    path = tmp_path / "s.sqlite"
    _pass(path, LINES)
    assert len(_pass(path, LINES, fingerprint="v2")[1]) == len(LINES)  # a version bump: all of it again
    assert len(_pass(path, LINES, fingerprint="v1")[1]) == len(LINES)  # v1's chunks went with the v2 pass
