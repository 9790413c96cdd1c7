"""Publish in proportion to the change (issue 34): after a delivery, validation decodes only the audio files
it has not seen (keyed by their bytes), splits assign only the new ids, and each export builds only the
shards of what changed, while the release is byte for byte what a build with no cache writes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vak_pipeline.identity import split_links
from vak_pipeline.layout import DataLayout
from vak_pipeline.quality import recordings as quality
from vak_pipeline.recipes import incremental
from vak_pipeline.recipes.cascaded import CascadedConfig, export_cascaded
from vak_pipeline.recipes.duplex_s2s import export_duplex_s2s
from vak_pipeline.recipes.moshi_lora import export_moshi_lora
from vak_pipeline.recipes.parquet import export_parquet
from vak_pipeline.recipes.turn_based import export_turn_based
from vak_pipeline.release import begin_candidate, promote
from vak_pipeline.report.steward import ReportSettings
from vak_pipeline.rules import audio as audio_rules
from vak_pipeline.rules.publish import publish_manifest
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import make_audio, make_record, tone, write_manifest, write_wav

EXPORTS = {"moshi_lora": export_moshi_lora, "turn_based": export_turn_based, "parquet": export_parquet,
           "duplex_s2s": export_duplex_s2s,
           "cascaded": lambda layout: export_cascaded(layout, CascadedConfig(tts_splits=["train", "test"]))}
INCREMENTAL = tuple(EXPORTS)  # every export is built from shards


def _upload(root: Path, name: str, n: int) -> None:
    """An upload as the ingest stages leave it: redacted records (every other one a stereo call, its audio in
    work/<upload>/release/) and a raw folder."""
    layout = DataLayout.at(root)
    (root / "raw" / name).mkdir(parents=True)
    records, base = [], 100 * int(name.rsplit("-", 1)[1])  # every upload's own voices and words
    for i in range(n):
        cid = f"{name}-c{i:03d}"
        speakers = {"agent": f"voice{i % 3}", "user": f"{name}-cust{i}"}
        origin = {"upload": name, "file": f"{name}/calls.vakforge.jsonl", "line": i + 1}
        words = ["inverter", "battery", "meter", "panel", "router", "charger", "heater", "pump", "modem", "boiler"]
        j = i + base // 10
        turns = [("user", 0.0, 1.0, f"hello my {words[j % 10]} and {words[(j // 10) % 10]} are off"),
                 ("agent", 1.1, 2.0, f"sure I will check the {words[(j + 3) % 10]} of yours now"),
                 ("user", 2.1, 2.9, f"thanks the {words[(j * 7) % 10]} and {words[(j // 3) % 10]} too")]
        if i % 2:
            write_wav(layout.release_files(name) / "audio" / f"{cid}.wav",
                      [tone(300 + base + 20 * i, 3.0), tone(1700 + base + 10 * i, 3.0)])
            records.append(make_record(cid, speakers, turns, audio=make_audio(cid, 3.0), origin=origin))
        else:
            records.append(make_record(cid, speakers, turns, origin=origin))
    layout.work(name).mkdir(parents=True, exist_ok=True)
    write_manifest(layout.redacted(name), records)


def _spoil(root: Path, name: str) -> None:
    """Add to an upload's records one that breaks a rule (consent none), one the quality rules flag and one
    line that is not JSON, so rejected rows and issues go through the rule cache too."""
    path = DataLayout.at(root).redacted(name)
    bad = make_record(f"{name}-bad", {"agent": "voiceX", "user": f"{name}-custX"},
                      [("user", 0.0, 1.0, "hello there"), ("agent", 1.1, 2.0, "hi how can I help")],
                      origin={"upload": name, "file": f"{name}/calls.vakforge.jsonl", "line": 99}, consent="none")
    with path.open("a", encoding="utf-8") as fh:
        fh.write(bad.model_dump_json(exclude_none=True) + "\n")
        fh.write("{not json\n")


def _publish(root: Path, thresholds: quality.QualityThresholds | None = None):
    """validated_manifest, splits, every export and the swap, as the publish job runs them."""
    layout = begin_candidate(DataLayout.at(root))
    inputs = [layout.manifest_input(u) for u in layout.uploads()]
    result = publish_manifest(layout, inputs,
                              extra_rules=quality.quality_rules(layout, thresholds or quality.QualityThresholds()))
    with split_links(layout.content_index) as links:
        split_manifest(layout.manifest, layout.splits, SplitConfig(seed=3), links=links,
                       cache=layout.split_rows)
    for export in EXPORTS.values():
        export(layout)
    promote(layout, result.manifest_sha256)
    return result


def _release_tree(root: Path) -> dict[str, bytes]:
    """Every published file but the verdict (it carries the time of the swap) and the splits' SQLite index."""
    skip = {"verdict.json", ".splits.json.sqlite"}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name not in skip and p.relative_to(root).parts[0] not in ("raw", "work")}


def _dominant(x) -> float:
    import numpy as np

    spectrum = np.abs(np.fft.rfft(x))
    return float(np.argmax(spectrum) * 24000 / len(x))


@pytest.fixture
def decodes(monkeypatch) -> list[str]:
    """Every audio file validation decodes (its probe, its SNR), by name."""
    seen: list[str] = []
    probe, snr = audio_rules._probe, quality.snr_estimate_db
    monkeypatch.setattr(audio_rules, "_probe", lambda p: (seen.append(Path(p).name), probe(p))[1])
    monkeypatch.setattr(quality, "snr_estimate_db", lambda p, **kw: (seen.append(Path(p).name), snr(p, **kw))[1])
    return seen


@pytest.mark.timeout(300)
def test_a_second_publish_decodes_only_the_new_uploads_audio(tmp_path, decodes):
    root = tmp_path / "data"
    _upload(root, "delivery-1", 8)
    first = _publish(root)
    assert first.valid == 8 and first.rejected == 0
    assert sorted(set(decodes)) == [f"delivery-1-c{i:03d}.wav" for i in (1, 3, 5, 7)]
    decodes.clear()
    _upload(root, "delivery-2", 4)
    second = _publish(root)
    assert second.valid == 12
    assert sorted(set(decodes)) == ["delivery-2-c001.wav", "delivery-2-c003.wav"]  # no unchanged file again


@pytest.mark.timeout(600)
def test_an_incremental_publish_equals_a_publish_from_scratch_byte_for_byte(tmp_path):
    root, before = tmp_path / "data", tmp_path / "after-first"
    _upload(root, "delivery-1", 12)
    _spoil(root, "delivery-1")
    _publish(root)
    shutil.copytree(root, before, symlinks=True)  # the data root as the second delivery finds it
    _upload(root, "delivery-2", 4)
    second = _publish(root)
    for name in INCREMENTAL:  # only the new upload's shard was built
        assert incremental.last_builds[name] == {"shards": 2, "built": 1}, name
    assert (second.rules_checked, second.rules_reused) == (4, 13)  # only the delivery's records were checked
    assert second.rejected - second.duplicates == 2  # the consent-none record and the line that is not JSON
    incremental_tree = _release_tree(root)

    shutil.rmtree(root)
    shutil.copytree(before, root, symlinks=True)
    shutil.rmtree(DataLayout.at(root).publish_cache)  # nothing remembered: every file checked, every shard built
    _upload(root, "delivery-2", 4)
    scratch = _publish(root)
    for name in INCREMENTAL:
        assert incremental.last_builds[name] == {"shards": 2, "built": 2}, name
    assert (scratch.rules_checked, scratch.rules_reused) == (17, 0)
    scratch_tree = _release_tree(root)

    assert sorted(incremental_tree) == sorted(scratch_tree)
    assert any(p.startswith("exports/moshi_lora/train/") for p in scratch_tree)
    for name in ("vakforge.jsonl", "splits.json", "reports/rejected.jsonl", "reports/validation.jsonl"):
        assert name in scratch_tree
    different = [p for p in scratch_tree if incremental_tree[p] != scratch_tree[p]]
    assert different == []


@pytest.mark.timeout(300)
def test_a_shard_is_rebuilt_when_a_file_its_records_name_changes(tmp_path):
    root = tmp_path / "data"
    _upload(root, "delivery-1", 6)
    _upload(root, "delivery-2", 4)
    _publish(root)
    wav = DataLayout.at(root).release_files("delivery-2") / "audio" / "delivery-2-c001.wav"
    wav.unlink()  # re-redacted: new bytes under the same name, the manifest line unchanged
    write_wav(wav, [tone(555, 3.0), tone(1555, 3.0)])
    _publish(root)
    for name in INCREMENTAL:
        assert incremental.last_builds[name] == {"shards": 2, "built": 1}, name  # delivery-2's shard only
    import soundfile as sf

    exported = next((root / "exports" / "moshi_lora").glob("*/delivery-2-c001.wav"))
    data, _ = sf.read(exported)
    assert abs(_dominant(data[:, 0]) - 555) < 5  # the new bytes (the agent, channel 0), not the cached shard's


@pytest.mark.timeout(300)
def test_cached_shards_are_keyed_by_explicit_versions_not_by_the_source_code(tmp_path, monkeypatch):
    """A recipe's RECIPE_VERSION (or the shard format's SHARDS_VERSION) rebuilds its shards; nothing else about
    the code does, since versions are explicit constants and never hashes of source files."""
    from vak_pipeline.recipes import moshi_lora

    root = tmp_path / "data"
    _upload(root, "delivery-1", 6)
    _publish(root)
    _publish(root)
    for name in INCREMENTAL:
        assert incremental.last_builds[name] == {"shards": 1, "built": 0}, name
    monkeypatch.setattr(moshi_lora, "RECIPE_VERSION", moshi_lora.RECIPE_VERSION + "-next")
    _publish(root)
    assert incremental.last_builds["moshi_lora"] == {"shards": 1, "built": 1}
    assert incremental.last_builds["parquet"] == {"shards": 1, "built": 0}
    monkeypatch.setattr(incremental, "SHARDS_VERSION", incremental.SHARDS_VERSION + "-next")
    _publish(root)
    for name in INCREMENTAL:
        assert incremental.last_builds[name] == {"shards": 1, "built": 1}, name


@pytest.mark.timeout(300)
def test_a_changed_record_or_a_changed_file_is_checked_again_and_nothing_else(tmp_path):
    root = tmp_path / "data"
    _upload(root, "delivery-1", 6)
    first = _publish(root)
    assert (first.rules_checked, first.rules_reused) == (6, 0)
    assert (_publish(root).rules_checked, _publish(root).rules_reused) == (0, 6)  # nothing changed

    path = DataLayout.at(root).redacted("delivery-1")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = lines[2].replace("hello my", "hello, my")  # one record's text edited (a review, a re-redaction)
    path.write_text("".join(lines), encoding="utf-8")
    edited = _publish(root)
    assert (edited.rules_checked, edited.rules_reused) == (1, 5)

    wav = DataLayout.at(root).release_files("delivery-1") / "audio" / "delivery-1-c003.wav"
    wav.unlink()  # new bytes under the same name: its record is checked again, and finds the new file
    write_wav(wav, [tone(555, 1.0), tone(1555, 1.0)])  # 1 s, where the record says 3 s
    rewritten = _publish(root)
    assert (rewritten.rules_checked, rewritten.rules_reused) == (1, 5)
    assert rewritten.issues_by_code["audio_duration_mismatch"] == 1 and rewritten.rejected == 1


@pytest.mark.timeout(300)
def test_cached_findings_are_not_reused_when_the_rules_version_or_a_threshold_changes(tmp_path, monkeypatch):
    from vak_pipeline.rules import cache as rule_cache

    root = tmp_path / "data"
    _upload(root, "delivery-1", 6)
    _publish(root)
    monkeypatch.setattr(rule_cache, "RULES_VERSION", rule_cache.RULES_VERSION + "-next")
    bumped = _publish(root)
    assert (bumped.rules_checked, bumped.rules_reused) == (6, 0)
    monkeypatch.setattr(quality, "QUALITY_RULES_VERSION", quality.QUALITY_RULES_VERSION + "-next")
    assert _publish(root).rules_checked == 6

    assert bumped.issues_by_code["quality_words_per_s"] == 3  # the three calls talk fast; chats have no quality rules
    relaxed = quality.QualityThresholds(max_words_per_s=None)
    unflagged = _publish(root, relaxed)
    assert (unflagged.rules_checked, unflagged.rules_reused) == (6, 0)
    assert unflagged.issues_by_code["quality_words_per_s"] == 0
    report = DataLayout.at(root).validation_report.read_bytes()
    shutil.rmtree(DataLayout.at(root).publish_cache)  # from scratch with the same thresholds: the same report
    _publish(root, relaxed)
    assert DataLayout.at(root).validation_report.read_bytes() == report
    assert _publish(root).issues_by_code["quality_words_per_s"] == 3  # back to the defaults: checked again


@pytest.mark.timeout(300)
def test_cached_findings_are_not_reused_when_the_text_print_scheme_changes(tmp_path, monkeypatch):
    """A finding carries the content key identity indexes its text by: a new print scheme checks every
    record again, and the index holds the new scheme's keys only."""
    from vak_pipeline.identity import records, text

    root = tmp_path / "data"
    _upload(root, "delivery-1", 6)
    _publish(root)
    monkeypatch.setattr(text, "PRINT_VERSION", text.PRINT_VERSION + "next")
    monkeypatch.setattr(records, "PRINT_VERSION", text.PRINT_VERSION)
    bumped = _publish(root)
    assert (bumped.rules_checked, bumped.rules_reused) == (6, 0)
    import sqlite3

    with sqlite3.connect(DataLayout.at(root).content_index) as conn:
        keys = [k for (k,) in conn.execute("SELECT content_key FROM item WHERE content_key LIKE 'turns%'")]
    assert keys and all(k.startswith(f"turns{text.PRINT_VERSION}:") for k in keys)


@pytest.mark.timeout(300)
def test_a_chat_delivered_again_is_the_same_duplicate_after_reused_findings_as_from_scratch(tmp_path):
    """The kept chat's finding is reused (its text's key read from the cache, its line not parsed): the copy
    in the next delivery is left out exactly as a publish from scratch leaves it out."""
    root, before = tmp_path / "data", tmp_path / "after-first"
    _upload(root, "delivery-1", 6)
    _publish(root)
    shutil.copytree(root, before, symlinks=True)

    def deliver_copy() -> None:
        layout = DataLayout.at(root)
        chat = json.loads(layout.redacted("delivery-1").read_text(encoding="utf-8").splitlines()[0])
        assert "audio" not in chat  # every other record is a chat: the first one
        chat["id"] = "delivery-2-copy"
        chat["meta"]["origin"] = {"upload": "delivery-2", "file": "delivery-2/chats.vakforge.jsonl", "line": 1}
        (root / "raw" / "delivery-2").mkdir(parents=True)
        layout.work("delivery-2").mkdir(parents=True)
        layout.redacted("delivery-2").write_text(json.dumps(chat) + "\n", encoding="utf-8")

    def reports() -> list[bytes]:
        layout = DataLayout.at(root)
        return [p.read_bytes() for p in (layout.manifest, layout.rejected, layout.duplicates_report)]

    deliver_copy()
    second = _publish(root)
    assert (second.rules_checked, second.rules_reused, second.duplicates) == (1, 6, 1)
    incremental_reports = reports()
    shutil.rmtree(root)
    shutil.copytree(before, root, symlinks=True)
    shutil.rmtree(DataLayout.at(root).publish_cache)
    deliver_copy()
    scratch = _publish(root)
    assert (scratch.rules_checked, scratch.duplicates) == (7, 1)
    assert incremental_reports == reports()


@pytest.mark.timeout(300)
def test_extra_rules_that_do_not_say_what_shapes_them_run_on_every_record(tmp_path):
    root = tmp_path / "data"
    _upload(root, "delivery-1", 4)
    _publish(root)
    layout = begin_candidate(DataLayout.at(root))
    inputs = [layout.manifest_input(u) for u in layout.uploads()]
    seen: list[str] = []
    result = publish_manifest(layout, inputs, extra_rules=lambda rec: (seen.append(rec["id"]), [])[1])
    assert len(seen) == 4 and result.rules_reused == 0


def _report_json(root: Path) -> dict:
    """The steward report's numbers (report.json) of the release, less the times it was built at."""
    import json

    from vak_pipeline.report.steward import build_steward_report

    report = build_steward_report(DataLayout.at(root), settings=ReportSettings(quality=quality.QualityThresholds()))

    def timeless(v):
        if isinstance(v, dict):
            return {k: timeless(x) for k, x in v.items() if k != "generated_at"}
        return [timeless(x) for x in v] if isinstance(v, list) else v

    return timeless(json.loads(report.json.read_text(encoding="utf-8")))


@pytest.mark.timeout(600)
def test_the_funnel_and_the_split_check_from_kept_line_facts_equal_a_report_from_scratch(tmp_path):
    root = tmp_path / "data"
    _upload(root, "delivery-1", 10)
    _spoil(root, "delivery-1")
    _publish(root)
    _upload(root, "delivery-2", 4)
    _publish(root)
    kept = _report_json(root)  # funnel, summary and split check over facts kept from the first publish
    assert kept["funnel"]["total"]["text"]["published"] == 7 and kept["summary"]["splits_errors"] == 0
    DataLayout.at(root).line_facts.unlink()  # every line parsed again
    DataLayout.at(root).split_rows.unlink()  # every split summary computed again
    assert _report_json(root) == kept


@pytest.fixture
def parsed(monkeypatch) -> dict[str, list[str]]:
    """The manifest lines whose facts (rules.line_facts) and split summaries (splits.summaries) are computed."""
    from vak_pipeline.rules import line_facts
    from vak_pipeline.splits import summaries

    seen: dict[str, list[str]] = {"facts": [], "summaries": []}
    of, summary = line_facts.LineFacts.of, summaries.summary_value
    monkeypatch.setattr(line_facts.LineFacts, "of",
                        classmethod(lambda cls, raw: (seen["facts"].append(raw), of(raw))[1]))
    monkeypatch.setattr(summaries, "summary_value", lambda jl: (seen["summaries"].append(jl.raw), summary(jl))[1])
    return seen


@pytest.mark.timeout(300)
def test_line_facts_are_parsed_once_and_again_only_when_their_version_changes(tmp_path, parsed, monkeypatch):
    from vak_pipeline.rules import line_facts
    from vak_pipeline.splits import summaries

    root = tmp_path / "data"
    _upload(root, "delivery-1", 6)
    _publish(root)
    assert parsed["facts"] and parsed["summaries"]
    parsed["facts"].clear(), parsed["summaries"].clear()
    _publish(root)  # the same manifest: no line parsed for its facts, by any export, nor validated for splits
    assert parsed == {"facts": [], "summaries": []}
    monkeypatch.setattr(line_facts, "FACTS_VERSION", line_facts.FACTS_VERSION + "-next")
    monkeypatch.setattr(summaries, "SUMMARIES_VERSION", summaries.SUMMARIES_VERSION + "-next")
    _publish(root)
    lines = DataLayout.at(root).manifest.read_bytes().splitlines()
    assert len(lines) == 6 and {r.strip() for r in parsed["facts"]} == set(lines)
    assert {r.strip() for r in parsed["summaries"]} == set(lines)


@pytest.mark.timeout(300)
def test_the_exports_of_one_publish_cut_the_manifest_once(tmp_path, monkeypatch):
    """The shard cut (lines, splits, files named) is shared: the first export of a publish makes it, the other
    four read it back, and a publish of the same data makes none."""
    cuts: list[int] = []
    cut = incremental._cut_manifest
    monkeypatch.setattr(incremental, "_cut_manifest", lambda *a: (cuts.append(1), cut(*a))[1])
    root = tmp_path / "data"
    _upload(root, "delivery-1", 6)
    _publish(root)
    assert len(cuts) == 1
    _upload(root, "delivery-2", 4)
    _publish(root)
    assert len(cuts) == 2
    _publish(root)
    assert len(cuts) == 2


@pytest.mark.timeout(300)
def test_a_kept_shard_cut_is_not_reused_when_a_split_changes_and_the_manifest_does_not(tmp_path):
    """splits.json edited by hand (one record moved to another split): the manifest's bytes are the same, yet the
    kept cut is not used, the record's shard is built again and the record is exported under its new split."""
    import json

    root = tmp_path / "data"
    _upload(root, "delivery-1", 6)
    _publish(root)
    layout = DataLayout.at(root)
    export_moshi_lora(layout)  # the released data root's own cut, kept
    splits = json.loads(layout.splits.read_text("utf-8"))
    rid = "delivery-1-c001"  # a call: moshi_lora exports its audio under <split>/
    before = splits["assignment"][rid]
    after = next(s for s in ("train", "validation", "test") if s != before)
    splits["assignment"][rid] = after
    layout.splits.write_text(json.dumps(splits, indent=2), "utf-8")
    export_moshi_lora(layout)
    assert incremental.last_builds["moshi_lora"] == {"shards": 1, "built": 1}
    exported = root / "exports" / "moshi_lora"
    assert (exported / after / f"{rid}.wav").is_file() and not (exported / before / f"{rid}.wav").exists()


@pytest.mark.timeout(300)
def test_the_funnels_kept_tallies_follow_an_edited_stage_output_line(tmp_path):
    """Each upload's redacted records are tallied from tallies kept by their lines' bytes: a line edited in place
    (a call's duration, a call made a chat) is tallied again, and the funnel is the one counted with no store."""
    from vak_pipeline.report.funnel import build_funnel, upload_funnel

    root = tmp_path / "data"
    _upload(root, "delivery-1", 6)
    layout = DataLayout.at(root)
    first = build_funnel(layout).uploads[0]
    assert first.audio["redacted"].recordings == 3 and first.text["redacted"] == 3
    path = layout.redacted("delivery-1")
    lines = path.read_text("utf-8").splitlines()
    lines[1] = lines[1].replace('"duration_s":3.0', '"duration_s":7.2')  # delivery-1-c001, a call
    lines[3] = lines[3].replace('"audio":', '"audio_was":')  # delivery-1-c003: now a chat
    path.write_text("\n".join(lines) + "\n", "utf-8")
    kept = build_funnel(layout).uploads[0]
    assert kept.audio["redacted"].recordings == 2 and kept.text["redacted"] == 4
    assert kept.audio["redacted"].hours == pytest.approx((7.2 + 3.0) / 3600)
    assert kept == upload_funnel(layout, "delivery-1")  # counted from the lines, nothing kept
