"""Splits that serve every recipe: stratified by audio (then locale and source), still speaker-disjoint,
seeded and stable; an empty speech split is explained in splits.json and in every export's build.json."""

from __future__ import annotations

import json

from vak_pipeline.recipes.turn_based import export_turn_based
from vak_pipeline.splits import SplitConfig, build_splits, split_manifest, summary_of
from vak_pipeline_tests.builders import make_audio, make_record, tone, write_manifest, write_wav


def records(n_audio: int, n_text: int, shared_agent: bool = False):
    out = [
        make_record(
            f"a{i:02d}", {"agent": "one" if shared_agent else f"ag{i}", "user": f"u{i}"}, audio=make_audio(f"a{i:02d}")
        )
        for i in range(n_audio)
    ]
    return out + [make_record(f"t{i:03d}", {"user": f"tu{i}"}) for i in range(n_text)]


def audio_per_split(result, recs):
    has_audio = {r.id for r in recs if r.audio is not None}
    out = {"train": 0, "validation": 0, "test": 0}
    for cid, split in result.assignment.items():
        out[split] += cid in has_audio
    return out


def test_few_recordings_among_many_chats_reach_every_split():
    recs = records(3, 200)
    result = build_splits([summary_of(r) for r in recs], SplitConfig(seed=7))
    assert audio_per_split(result, recs) == {"train": 1, "validation": 1, "test": 1}
    assert result.strata["audio"] == {"train": 1, "validation": 1, "test": 1, "groups": 3}
    assert abs(result.counts["train"] - 0.8 * 203) <= 3  # the ratios still hold overall
    assert not [w for w in result.warnings if "audio" in w]


def test_stratified_assignment_is_deterministic_and_stable():
    recs = records(12, 60)
    first = build_splits([summary_of(r) for r in recs], SplitConfig(seed=3))
    again = build_splits([summary_of(r) for r in recs], SplitConfig(seed=3))
    assert first.assignment == again.assignment
    more = records(20, 90)
    grown = build_splits([summary_of(r) for r in more], SplitConfig(seed=3), previous=first)
    assert all(grown.assignment[c] == s for c, s in first.assignment.items())  # nobody moves
    counts = audio_per_split(grown, more)
    assert counts["validation"] and counts["test"] and counts["train"] >= 12


def test_one_agent_voice_in_every_call_is_explained_not_broken(tmp_path):
    recs = records(3, 20, shared_agent=True)
    for r in recs[:3]:
        write_wav(tmp_path / "audio" / f"{r.id}.wav", [tone(300, 4.0), tone(500, 4.0)])
    write_manifest(tmp_path / "vakforge.jsonl", recs)
    header, _ = split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json")
    assert header.strata["audio"]["groups"] == 1  # speaker-disjoint: the three calls stay together
    assert any("hold no conversation with audio" in w and "roles=['user']" in w for w in header.warnings)
    build = json.loads((export_turn_based(tmp_path).out_dir / "build.json").read_text())
    empty = [s for s in ("validation", "test") if s in build["empty_splits"]]
    assert empty == [s for s in ("validation", "test") if header.strata["audio"][s] == 0] and len(empty) == 2
    assert all("no conversation with audio" in build["empty_splits"][s] for s in empty)
    by_user = split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "by_user.json", SplitConfig(roles=["user"]))[0]
    assert by_user.strata["audio"] == {"train": 1, "validation": 1, "test": 1, "groups": 3}
