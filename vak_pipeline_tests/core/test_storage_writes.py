"""Atomic writes (storage.atomic_open): a file gets the mode a plain create gets under the user's umask (a release
is read by other accounts), its folder is made when missing, a rewrite replaces the file (a link to the old one
keeps the old bytes), and a failed write leaves nothing under the final name or beside it."""

from __future__ import annotations

import os
import stat

import pytest

from vak_pipeline.storage import atomic_open, atomic_write_bytes, atomic_write_json, json_file_bytes


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
