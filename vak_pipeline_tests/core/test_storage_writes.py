"""Atomic writes (storage.atomic_open) and writes done behind a computation (storage.WriteBehind): a file gets the
mode a plain create gets under the user's umask (a release is read by other accounts), its folder is made when
missing, a failed write leaves nothing under the final name or beside it, and waiting for writes done behind
returns once every one is in place or raises the first one's error."""

from __future__ import annotations

import os
import stat

import pytest

from vak_pipeline import storage
from vak_pipeline.storage import WriteBehind, atomic_open, atomic_write_bytes, atomic_write_json, json_file_bytes


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_an_atomic_write_has_the_mode_of_a_plain_create_under_the_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        atomic_write_bytes(tmp_path / "a.json", b"{}\n")
        with open(tmp_path / "plain.json", "wb"):
            pass
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "a.json").st_mode) == 0o666 & ~mask
    assert stat.S_IMODE(os.stat(tmp_path / "a.json").st_mode) == stat.S_IMODE(os.stat(tmp_path / "plain.json").st_mode)


def test_an_atomic_write_makes_its_missing_folder_and_replaces_a_file_without_editing_it(tmp_path):
    target = tmp_path / "new" / "deeper" / "log.json"
    atomic_write_json(target, {"a": "é"})
    assert target.read_bytes() == json_file_bytes({"a": "é"}) == '{\n  "a": "é"\n}\n'.encode()
    os.link(target, tmp_path / "published.json")  # a release links it: a rewrite must leave that copy alone
    atomic_write_json(target, {"a": 2})
    assert (tmp_path / "published.json").read_bytes() == json_file_bytes({"a": "é"})
    assert target.read_bytes() == json_file_bytes({"a": 2})
    assert sorted(p.name for p in target.parent.iterdir()) == ["log.json"]


def test_a_failed_atomic_write_leaves_no_file_and_no_temp(tmp_path):
    with pytest.raises(RuntimeError), atomic_open(tmp_path / "x.json") as fh:
        fh.write("half")
        raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []


def test_writes_done_behind_are_in_place_when_the_block_ends(tmp_path):
    with WriteBehind(threads=3) as writer:
        for i in range(20):
            writer.write_bytes(tmp_path / "logs" / f"{i}.json", f"{i}\n".encode(), durable=False)
        answer = writer.submit(sum, [1, 2])  # any job of file system calls, its result kept
    assert sorted(int(p.stem) for p in (tmp_path / "logs").iterdir()) == list(range(20))
    assert all((tmp_path / "logs" / f"{i}.json").read_bytes() == f"{i}\n".encode() for i in range(20))
    assert answer.result() == 3


def test_a_write_done_behind_that_fails_is_raised_once_every_other_write_is_done(tmp_path, monkeypatch):
    real = storage.atomic_write_bytes

    def full_for_three(path, data, durable=True):
        if path.name == "3.json":
            raise OSError(28, "No space left on device")
        return real(path, data, durable)

    monkeypatch.setattr(storage, "atomic_write_bytes", full_for_three)
    writer = WriteBehind(threads=2)
    for i in range(8):
        writer.write_bytes(tmp_path / f"{i}.json", b"x", durable=False)
    with pytest.raises(OSError, match="No space"):
        writer.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{i}.json" for i in range(8) if i != 3]
    writer.wait()  # the error was raised once
    with pytest.raises(OSError), WriteBehind() as again:
        again.write_bytes(tmp_path / "3.json", b"x")
