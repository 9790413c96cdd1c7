"""The split index: splits.json stays the file people read and edit; lookups, re-runs and checks go
through a SQLite index of it that is rebuilt whenever the JSON changes, so nothing holds every id."""

from __future__ import annotations

import json

import pytest

from vak_pipeline.splits import (
    SplitConfig,
    SplitsFileError,
    SplitStore,
    build_splits,
    check_splits,
    iter_summaries,
    open_splits,
    read_splits,
    split_manifest,
)
from vak_pipeline.splits import check as check_module
from vak_pipeline.splits.store import index_path
from vak_pipeline_tests.builders import make_record, write_manifest

EVEN = SplitConfig(seed=3, ratios={"train": 0.5, "test": 0.5})


def records(prefix: str, n: int, agents: int = 5):
    return [make_record(f"{prefix}{i:03d}", {"agent": f"{prefix}-voice{i % agents}", "user": f"{prefix}-cust{i}"})
            for i in range(n)]


def test_the_split_stage_writes_the_json_and_an_index_that_answers_lookups(tmp_path):
    manifest = write_manifest(tmp_path / "vakforge.jsonl", records("c", 40))
    header, issues = split_manifest(manifest, tmp_path / "splits.json", EVEN)
    assert issues == []
    assert index_path(tmp_path / "splits.json").is_file()
    built = index_path(tmp_path / "splits.json").stat().st_mtime_ns
    on_disk = json.loads((tmp_path / "splits.json").read_text())
    with open_splits(tmp_path / "splits.json") as store:
        assert store.header == header
        assert dict(store.items("assignment")) == on_disk["assignment"]
        assert store.split_of("c000") == on_disk["assignment"]["c000"]
        assert store.split_of("nope") is None and store.held_out_reason("c000") is None
        assert store.to_file() == read_splits(tmp_path / "splits.json")
    assert index_path(tmp_path / "splits.json").stat().st_mtime_ns == built  # the stage's index is used as is
    assert list(on_disk) == ["seed", "ratios", "roles", "assignment", "counts", "strata", "held_out", "conflicts",
                             "retired", "speakers", "warnings", "manifest_hash"]


def test_a_hand_edit_to_splits_json_is_seen_and_kept_on_the_next_run(tmp_path):
    manifest = write_manifest(tmp_path / "vakforge.jsonl", records("c", 40))
    split_manifest(manifest, tmp_path / "splits.json", EVEN)
    data = json.loads((tmp_path / "splits.json").read_text())
    # a steward moves voice0's conversations (and the voice itself) by hand, reformatting the file
    group = [c for c in data["assignment"] if int(c[1:]) % 5 == 0]
    home = data["assignment"][group[0]]
    other = "test" if home == "train" else "train"
    for c in group:
        data["assignment"][c] = other
    data["speakers"]["agent:c-voice0"] = other
    (tmp_path / "splits.json").write_text(json.dumps(data, indent=4, sort_keys=True))
    with open_splits(tmp_path / "splits.json") as store:
        assert all(store.split_of(c) == other for c in group)

    manifest = write_manifest(tmp_path / "vakforge.jsonl", records("c", 40) + records("n", 10)
                              + [make_record("late", {"agent": "c-voice0", "user": "someone-new"})])
    _, issues = split_manifest(manifest, tmp_path / "splits.json", EVEN)
    assert issues == []
    after = read_splits(tmp_path / "splits.json")
    assert all(after.assignment[c] == other for c in group)
    assert after.assignment["late"] == other  # a new call of the moved voice follows it


@pytest.mark.parametrize(("text", "message"), [
    ('{"seed": 1, "assignment": {"a": "train", ', "splits.json.*not valid JSON.*Fix"),
    ('{"seed": 1, "assignment": {"a": 3}}', "'assignment' entry 'a' is not a string"),
    ('{"seed": 1}', "no 'assignment'"),
    ('{"seed": "x", "assignment": {}}', "seed"),
])
def test_unreadable_splits_json_is_an_error_naming_the_file_and_the_fix(tmp_path, text, message):
    path = tmp_path / "splits.json"
    path.write_text(text)
    with pytest.raises(SplitsFileError, match=message):
        open_splits(path)


def test_a_missing_splits_json_is_no_index(tmp_path):
    assert open_splits(tmp_path / "missing.json") is None


def test_a_minimal_hand_made_file_is_enough_for_lookups(tmp_path):
    path = tmp_path / "splits.json"
    path.write_text(json.dumps({"seed": 1, "assignment": {"a": "train", "b": "test"}, "note": "by hand"}))
    with open_splits(path) as store:
        assert store.split_of("b") == "test"
        assert store.header.seed == 1 and store.header.model_extra == {"note": "by hand"}
        assert store.count("held_out") == 0


def test_the_index_is_rebuilt_when_the_json_changes_and_reused_when_it_does_not(tmp_path):
    path = tmp_path / "splits.json"
    path.write_text(json.dumps({"seed": 1, "assignment": {"a": "train"}}))
    open_splits(path).close()
    first = index_path(path).stat().st_mtime_ns
    open_splits(path).close()
    assert index_path(path).stat().st_mtime_ns == first
    path.write_text(json.dumps({"seed": 1, "assignment": {"a": "test"}}))
    with open_splits(path) as store:
        assert store.split_of("a") == "test"


def test_the_split_check_reads_the_index_and_caps_per_conversation_issues(tmp_path, monkeypatch):
    monkeypatch.setattr(check_module, "MAX_PER_CODE", 3)
    manifest = write_manifest(tmp_path / "vakforge.jsonl", records("c", 10))
    (tmp_path / "splits.json").write_text(json.dumps({"seed": 1, "ratios": {"train": 1.0},
                                                      "assignment": {"c000": "train", "gone": "train"}}))
    with open_splits(tmp_path / "splits.json") as store:
        issues = check_splits(iter_summaries(manifest), store)
    missing = [i for i in issues if i.code == "split_missing"]
    assert [i.record_id for i in missing[:3]] == ["c001", "c002", "c003"]  # manifest order
    assert len(missing) == 4 and missing[-1].message.startswith("6 more conversation(s)")
    stale = [i for i in issues if i.code == "split_stale_ids"]
    assert len(stale) == 1 and "gone" in stale[0].message


def test_build_splits_accepts_a_previous_store_as_well_as_a_file(tmp_path):
    manifest = [(f"c{i}", {"user": f"u{i}"}) for i in range(30)]
    first = build_splits(manifest, EVEN)
    with SplitStore.from_file(first, tmp_path) as store:
        again = build_splits(manifest + [("z", {"user": "u3"})], EVEN, previous=store)
    assert {c: again.assignment[c] for c in first.assignment} == first.assignment
    assert again.assignment["z"] == first.assignment["c3"]


def test_a_damaged_index_is_rebuilt_from_the_json(tmp_path):
    path = tmp_path / "splits.json"
    path.write_text(json.dumps({"seed": 1, "assignment": {"a": "train"}}))
    index_path(path).write_bytes(b"not a database at all" * 100)
    with open_splits(path) as store:
        assert store.split_of("a") == "train"
