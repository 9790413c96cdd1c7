"""Splits in proportion to the change (issue 34): each manifest line's summary is kept by its bytes
(splits.manifest_rows), and a split run with that cache writes the very bytes a run without it writes, after a
delivery that adds records, after one that edits or erases records, and whatever links join conversations."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vak_pipeline.splits import SplitConfig, check_manifest, open_splits, split_manifest
from vak_pipeline.splits import summaries as summaries_module
from vak_pipeline_tests.builders import make_audio, make_record, write_manifest

CONFIG = SplitConfig(seed=7)


def _records(prefix: str, n: int) -> list:
    """Calls and chats: agents shared by every fifth conversation, a customer per conversation."""
    return [make_record(f"{prefix}{i:03d}", {"agent": f"{prefix}-voice{i % 5}", "user": f"{prefix}-cust{i}"},
                        audio=make_audio(f"{prefix}{i:03d}", 3.0) if i % 3 == 0 else None)
            for i in range(n)]


def _run(root: Path, cache: Path | None, links=None, forget=None) -> tuple[bytes, list]:
    """split_manifest of root/vakforge.jsonl into root/splits.json (previous: the splits.json there)."""
    _, issues = split_manifest(root / "vakforge.jsonl", root / "splits.json", CONFIG, links=links, forget=forget,
                               cache=cache)
    return (root / "splits.json").read_bytes(), issues


def _twice(tmp_path: Path, records: list, links=None, forget=None) -> tuple[tuple[bytes, list], tuple[bytes, list]]:
    """The same split from the same previous splits.json: once with the cache the first run left, once with none."""
    cached, scratch = tmp_path / "cached", tmp_path / "scratch"
    shutil.copytree(cached, scratch, dirs_exist_ok=True)
    shutil.rmtree(scratch / "cache")
    for root in (cached, scratch):
        write_manifest(root / "vakforge.jsonl", records)
    return _run(cached, cached / "cache" / "splits.sqlite", links, forget), _run(scratch, None, links, forget)


def _first(tmp_path: Path, records: list) -> None:
    root = tmp_path / "cached"
    root.mkdir()
    write_manifest(root / "vakforge.jsonl", records)
    _run(root, root / "cache" / "splits.sqlite")


@pytest.mark.timeout(60)
def test_a_delivery_that_adds_records_splits_as_a_run_from_scratch(tmp_path):
    old = _records("a", 60)
    _first(tmp_path, old)
    new = _records("b", 12) + [make_record("b-joins", {"agent": "a-voice2", "user": "b-newcust"})]
    # b000 is a copy of a004 (a duplicate group the content index found): a link the old conversation gains
    pairs = [("a004", "dup:1"), ("b000", "dup:1")]
    (cached, cached_issues), (scratch, scratch_issues) = _twice(tmp_path, old + new, links=lambda: iter(pairs))
    assert cached == scratch and cached_issues == scratch_issues == []
    with open_splits(tmp_path / "cached" / "splits.json") as store:
        assert store.split_of("b-joins") == store.split_of("a002")  # joins its agent's component
        assert store.split_of("b000") == store.split_of("a004")  # a duplicate lands beside its original


@pytest.mark.timeout(60)
def test_a_delivery_that_edits_and_erases_records_splits_as_a_run_from_scratch(tmp_path):
    old = _records("a", 60)
    _first(tmp_path, old)
    edited = list(old)
    edited[10] = make_record("a010", {"agent": "a-voice0", "user": "a-cust11"})  # now shares a customer
    erased = edited[:20] + edited[21:]  # a020 erased: gone from the manifest and from splits.json
    gone = {"a020", "user:a-cust20"}
    (cached, cached_issues), (scratch, scratch_issues) = _twice(tmp_path, erased + [make_record("c000", {})],
                                                                forget=gone.__contains__)
    assert cached == scratch and cached_issues == scratch_issues
    assert b'"a020"' not in cached and b"a-cust20" not in cached


@pytest.mark.timeout(60)
def test_a_kept_summary_is_not_reused_when_its_line_changes(tmp_path):
    """An edited line (a record's speaker ids corrected in place) is summarized again: its new speaker, shared
    with a conversation in another split, is a leak the split's check finds, as it does with no cache."""
    old = _records("a", 40)
    _first(tmp_path, old)
    root = tmp_path / "cached"
    with open_splits(root / "splits.json") as store:
        split_of = {r.id: store.split_of(r.id) for r in old}
    victim, other = next((a.id, b.id) for a in old for b in old if split_of[a.id] != split_of[b.id])
    edited = [make_record(r.id, {"agent": "a-voice-new", "user": f"a-cust{int(other[1:])}"})
              if r.id == victim else r for r in old]
    (cached, cached_issues), (scratch, scratch_issues) = _twice(tmp_path, edited)
    assert cached == scratch and cached_issues == scratch_issues
    assert [i.code for i in cached_issues] == ["split_leak"]
    with open_splits(root / "splits.json") as store:  # the report's check reads the same kept summaries
        assert [i.code for i in check_manifest(root / "vakforge.jsonl", store, root / "cache" / "splits.sqlite")
                if i.severity.value == "ERROR"] == ["split_leak"]


@pytest.mark.timeout(60)
def test_kept_summaries_are_computed_again_only_for_new_lines_or_a_new_version(tmp_path, monkeypatch):
    seen: list[bytes] = []
    summary = summaries_module.summary_value
    monkeypatch.setattr(summaries_module, "summary_value", lambda jl: (seen.append(jl.raw), summary(jl))[1])
    old = _records("a", 600)
    _first(tmp_path, old)
    assert len(seen) == 600
    seen.clear()
    root = tmp_path / "cached"
    write_manifest(root / "vakforge.jsonl", old + _records("b", 5))
    _run(root, root / "cache" / "splits.sqlite")
    assert 5 <= len(seen) <= 5 + 256  # the delivery's lines, and the old lines of the chunk it extends
    seen.clear()
    _run(root, root / "cache" / "splits.sqlite")
    assert seen == []  # the same manifest: nothing validated again
    monkeypatch.setattr(summaries_module, "SUMMARIES_VERSION", summaries_module.SUMMARIES_VERSION + "-next")
    _run(root, root / "cache" / "splits.sqlite")
    assert len(seen) == 605


@pytest.mark.timeout(60)
def test_unreadable_lines_are_issues_with_their_line_numbers_with_or_without_the_cache(tmp_path):
    old = _records("a", 8)
    _first(tmp_path, old)
    for root in (tmp_path / "cached", tmp_path / "other"):
        root.mkdir(exist_ok=True)
        write_manifest(root / "vakforge.jsonl", old)
        with (root / "vakforge.jsonl").open("a", encoding="utf-8") as fh:
            fh.write('{"id": "half"}\n\n{not json\n')
    for _ in range(2):  # the second pass reads the kept pass over the same bytes
        _, cached = _run(tmp_path / "cached", tmp_path / "cached" / "cache" / "splits.sqlite")
        _, scratch = _run(tmp_path / "other", None)
        assert [(i.code, i.line) for i in cached] == [(i.code, i.line) for i in scratch] == [
            ("manifest_record_invalid", 9), ("manifest_line_unreadable", 11)]
