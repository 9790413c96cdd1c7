"""core.file_digests: what a publish found out about a file's bytes is kept by content, and a file is read
again only when its stat says it changed."""

from __future__ import annotations

import os

from vak_pipeline.core.file_digests import FileDigests
from vak_pipeline.storage import sha256_file


def test_a_result_is_computed_once_per_content_whatever_the_path(tmp_path):
    a, b = tmp_path / "a.wav", tmp_path / "b.wav"
    a.write_bytes(b"same bytes")
    b.write_bytes(b"same bytes")
    calls: list[str] = []
    with FileDigests.open(tmp_path / "work" / "digests.sqlite") as d:
        assert d.cached("probe", a, lambda: calls.append("a") or [1, 2]) == [1, 2]
        assert d.cached("probe", b, lambda: calls.append("b") or [9]) == [1, 2]  # a re-delivery of the same bytes
        assert d.cached("other", a, lambda: calls.append("other") or 3) == 3  # another kind is its own result
    with FileDigests.open(tmp_path / "work" / "digests.sqlite") as d:  # kept across publishes
        assert d.cached("probe", a, lambda: calls.append("again") or [0]) == [1, 2]
        assert d.reused["probe"] == 1 and not d.computed
    assert calls == ["a", "other"]


def test_a_rewritten_file_is_hashed_again(tmp_path):
    f = tmp_path / "x.wav"
    f.write_bytes(b"first")
    with FileDigests.open(tmp_path / "d.sqlite") as d:
        assert d.sha256(f) == sha256_file(f)
        f.write_bytes(b"second, longer")
        os.utime(f, ns=(1, 1))
        assert d.sha256(f) == sha256_file(f)


def test_an_unwritable_store_remembers_nothing_but_answers_right(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    f = tmp_path / "x.wav"
    f.write_bytes(b"bytes")
    with FileDigests.open(blocker / "d.sqlite") as d:
        assert d.conn is None
        assert d.sha256(f) == sha256_file(f)
        assert d.cached("probe", f, lambda: 5) == 5 and d.cached("probe", f, lambda: 6) == 6
