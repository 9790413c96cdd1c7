"""Splits: speaker-disjoint, complete, deterministic, and stable when new data arrives."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from vak_pipeline.manifest_hash import manifest_hash
from vak_pipeline.splits import SplitConfig, build_splits, check_splits, read_splits, split_manifest
from vak_pipeline_tests.builders import make_record, write_manifest


def summaries(n: int, agents: int, users: int, seed: int = 0) -> list[tuple[str, dict[str, str]]]:
    rnd = random.Random(seed)
    return [(f"c{i:04d}", {"agent": f"a{rnd.randrange(agents)}", "user": f"u{rnd.randrange(users)}"})
            for i in range(n)]


def errors(issues):
    return [i for i in issues if i.severity.value == "ERROR"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 40) | st.none()), min_size=1, max_size=60),
       st.integers(0, 10_000))
def test_no_speaker_in_two_splits_and_every_conversation_assigned(pairs, seed):
    manifest = []
    for i, (agent, user) in enumerate(pairs):
        speakers = {"agent": f"voice{agent}"}
        if user is not None:
            speakers["user"] = f"cust-{user}"
        manifest.append((f"conv{i}", speakers))
    splits = build_splits(manifest, SplitConfig(seed=seed))
    assert check_splits(manifest, splits) == []
    assert set(splits.assignment) == {c for c, _ in manifest}


def test_conversations_sharing_a_speaker_stay_together():
    manifest = [("a", {"agent": "priya", "user": "u1"}), ("b", {"agent": "ravi", "user": "u1"}),
                ("c", {"agent": "ravi", "user": "u2"}), ("d", {"agent": "meera", "user": "u3"})]
    s = build_splits(manifest, SplitConfig(seed=7))
    assert s.assignment["a"] == s.assignment["b"] == s.assignment["c"]


def test_same_id_by_two_roles_is_not_the_same_speaker():
    manifest = [("a", {"agent": "x"}), ("b", {"user": "x"})]
    s = build_splits(manifest, SplitConfig(seed=1, ratios={"train": 0.5, "test": 0.5}))
    assert s.assignment["a"] != s.assignment["b"]


def test_assignment_is_deterministic_and_independent_of_input_order():
    manifest = summaries(300, agents=300, users=900)
    a = build_splits(manifest, SplitConfig(seed=11))
    shuffled = manifest[:]
    random.Random(5).shuffle(shuffled)
    b = build_splits(shuffled, SplitConfig(seed=11))
    assert a.dump() == b.dump()
    c = build_splits(manifest, SplitConfig(seed=12))
    assert c.assignment != a.assignment  # the seed matters


def test_ratios_are_approached_with_independent_conversations():
    manifest = [(f"c{i}", {"user": f"u{i}"}) for i in range(1000)]
    s = build_splits(manifest, SplitConfig(seed=3))
    assert (s.counts["train"], s.counts["validation"], s.counts["test"]) == (800, 100, 100)
    assert s.counts["held_out"] == 0


def test_old_assignments_never_move_when_data_is_added():
    old = summaries(200, agents=150, users=600, seed=1)
    first = build_splits(old, SplitConfig(seed=5))
    new = [(f"n{i:04d}", sp) for i, (_, sp) in enumerate(summaries(200, agents=300, users=1200, seed=2))]
    second = build_splits(old + new, SplitConfig(seed=5), previous=first)
    for conv, split in first.assignment.items():
        assert second.assignment[conv] == split
    # new conversations that share a speaker with an old one follow it (unless held out as a bridge)
    agent_home = {sp["agent"]: first.assignment[c] for c, sp in old}
    for conv, sp in new:
        if sp["agent"] in agent_home and conv in second.assignment:
            assert second.assignment[conv] == agent_home[sp["agent"]]
    assert [i for i in check_splits(old + new, second) if i.code != "split_held_out"] == []


def test_a_new_conversation_bridging_two_splits_is_held_out_with_a_reason():
    old = [("a", {"agent": "priya", "user": "u1"}), ("b", {"agent": "ravi", "user": "u2"})]
    first = build_splits(old, SplitConfig(seed=1, ratios={"train": 0.5, "test": 0.5}))
    assert first.assignment["a"] != first.assignment["b"]
    bridge = ("z", {"agent": "priya", "user": "u2"})  # priya's voice and ravi's customer
    joiner = ("y", {"agent": "ravi", "user": "u9"})
    second = build_splits(old + [bridge, joiner], SplitConfig(seed=1, ratios={"train": 0.5, "test": 0.5}),
                          previous=first)
    assert "z" not in second.assignment and "z" in second.held_out
    assert "a (" in second.held_out["z"] and "b (" in second.held_out["z"]  # names the conversations
    assert "priya" not in second.held_out["z"]  # never the speaker ids
    assert second.assignment["y"] == first.assignment["b"]
    assert second.conflicts[0].code == "bridge" and second.conflicts[0].conversations == ["z"]
    issues = check_splits(old + [bridge, joiner], second)
    assert [i.code for i in issues] == ["split_held_out"] and issues[0].severity.value == "WARN"


def test_removed_conversations_keep_their_split_if_they_return():
    manifest = summaries(50, agents=50, users=50)
    first = build_splits(manifest, SplitConfig(seed=2))
    second = build_splits(manifest[10:], SplitConfig(seed=2), previous=first)
    assert set(second.retired) == {c for c, _ in manifest[:10]}
    third = build_splits(manifest, SplitConfig(seed=99), previous=second)
    assert third.assignment == first.assignment


def test_check_splits_reports_missing_ids_and_leaks_without_speaker_values():
    manifest = [("a", {"agent": "secret-voice"}), ("b", {"agent": "secret-voice"}), ("c", {})]
    splits = {"seed": 1, "ratios": {"train": 0.5, "test": 0.5}, "assignment": {"a": "train", "b": "test"}}
    issues = check_splits(manifest, splits)
    codes = sorted(i.code for i in issues)
    assert codes == ["split_leak", "split_missing"]
    leak = next(i for i in issues if i.code == "split_leak")
    assert leak.field == "meta.speakers.agent" and "secret-voice" not in leak.message
    assert "a (train)" in leak.message and "b (test)" in leak.message


def test_meta_split_pins_a_conversation(tmp_path):
    records = [make_record("a", {"user": "u1"}, split="test"), make_record("b", {"user": "u1"}),
               make_record("c", {"user": "u2"})]
    path = write_manifest(tmp_path / "vakforge.jsonl", records)
    header, issues = split_manifest(path, tmp_path / "splits.json")
    assert issues == []
    splits = read_splits(tmp_path / "splits.json")
    assert splits.assignment["a"] == splits.assignment["b"] == "test"
    on_disk = json.loads((tmp_path / "splits.json").read_text())
    assert on_disk["manifest_hash"] == manifest_hash(path) == header.manifest_hash
    assert {"seed", "ratios", "assignment", "counts", "held_out", "manifest_hash"} <= set(on_disk)
    assert splits.header() == header
