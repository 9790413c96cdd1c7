"""The one stage core (core.stage): item keys, the per-stage ledger, the ordered parallel map, one result type
and one report writer; and what the stages built on it promise because of it."""

from __future__ import annotations

import json
import math

import pytest

from vak_pipeline.cli import upload_problems
from vak_pipeline.core.issue import Issue
from vak_pipeline.core.stage import (
    SLOT,
    Done,
    KeyTemplate,
    Ledger,
    LedgerEntry,
    PoolSettings,
    StageResult,
    item_key,
    ordered_map,
    write_report,
)
from vak_pipeline.layout import DataLayout
from vak_pipeline.storage import dumps_line


def _square_all(xs: list[int]) -> list[int]:
    return [x * x for x in xs]


def test_an_item_key_changes_with_the_version_and_with_every_part():
    base = item_key("1", "sha-a", {"rate": 24000})
    assert base == item_key("1", "sha-a", {"rate": 24000})
    assert (
        len(
            {
                base,
                item_key("2", "sha-a", {"rate": 24000}),
                item_key("1", "sha-b", {"rate": 24000}),
                item_key("1", "sha-a", {"rate": 16000}),
            }
        )
        == 4
    )


@pytest.mark.parametrize("slot", [7, -3, True, None, 2.5, "sha-é\u2028\"q", ["a", 1], {"z": 1, "a": [None]}])
def test_a_key_template_gives_the_item_key_of_the_same_parts(slot):
    settings = {"rate": 24000, "names": ("Ann", "Bo"), "é": 1.0}
    keys = KeyTemplate("3", "file.jsonl", SLOT, settings, SLOT)
    assert keys(slot, "tail") == item_key("3", "file.jsonl", slot, settings, "tail")
    assert KeyTemplate("3", SLOT)(slot) == item_key("3", slot)
    assert KeyTemplate("3", "x")() == item_key("3", "x")


def test_a_ledger_line_is_the_entrys_json_dump():
    warn = Issue(code="x_warn", message="odd", fix="look", severity="WARN", line=3)
    for entry in (LedgerEntry(item="a", key="k", outputs={"n": None, "ü": [1, 2.5, {"x": "y"}], "t": (1, 2)}),
                  LedgerEntry(item="b", key="k", failure=warn, issues=[warn, warn]),
                  LedgerEntry(item="c", key="k", outputs={"nan": math.nan, "set": {1}})):
        dump = entry.model_dump(mode="json", exclude_none=True)
        dump = {k: v for k, v in dump.items() if k != "issues" or v}
        assert entry.line() == dumps_line(dump)


def test_a_ledger_left_by_an_exception_keeps_the_last_runs_entries(tmp_path):
    path = tmp_path / "ledger" / "stage.jsonl"
    with Ledger.load(path) as ledger:
        ledger.record(LedgerEntry(item="a", key="k1"))
    with pytest.raises(RuntimeError), Ledger.load(path) as ledger:
        assert ledger.reuse("a", "k1") is not None
        ledger.record(LedgerEntry(item="b", key="k2"))
        raise RuntimeError("the stage failed")
    assert set(Ledger.load(path).previous) == {"a"}
    assert [p.name for p in path.parent.iterdir()] == ["stage.jsonl"]  # no temp file left


def test_the_ledger_reuses_an_entry_only_under_the_same_key(tmp_path):
    path = tmp_path / "ledger" / "stage.jsonl"
    ledger = Ledger.load(path)
    assert ledger.reuse("a.wav", "k1") is None
    ledger.record(LedgerEntry(item="a.wav", key="k1", outputs={"rows": 3}))
    bad = Issue(code="audio_empty_file", message="empty", fix="upload it again", file="u/b.wav")
    ledger.record(LedgerEntry(item="b.wav", key="k2", failure=bad))
    ledger.save()
    again = Ledger.load(path)
    assert again.reuse("a.wav", "k1").outputs == {"rows": 3}
    assert again.reuse("a.wav", "k-changed") is None
    assert again.reuse("b.wav", "k2").failure == bad  # a failure is remembered, not retried
    again.record(again.reuse("a.wav", "k1"))
    again.save()  # items not recorded in this run leave the ledger
    assert set(Ledger.load(path).previous) == {"a.wav"}


def test_a_damaged_ledger_line_only_costs_its_item(tmp_path):
    path = tmp_path / "l.jsonl"
    path.write_text('{"item": "a", "key": "k"}\n{broken\n{"item": "b"}\n', encoding="utf-8")
    assert set(Ledger.load(path).previous) == {"a"}


@pytest.mark.parametrize("workers", [1, 2])
def test_the_ordered_map_keeps_input_order_and_passes_known_results_through(workers):
    items = [Done(-1), 1, 2, Done(-2), 3, 4, 5, Done(-3)]
    out = list(ordered_map(_square_all, items, workers=workers, batch=2))
    assert out == [-1, 1, 4, -2, 9, 16, 25, -3]


def test_the_ordered_map_is_lazy_and_bounded():
    consumed = []

    def items():
        for i in range(1000):
            consumed.append(i)
            yield i

    it = ordered_map(_square_all, items(), workers=1)
    assert next(it) == 0 and len(consumed) == 1


def _no_pool(monkeypatch) -> list[int]:
    """Record every pool the ordered map starts (and start none)."""
    started: list[int] = []

    def executor(self, workers):
        started.append(workers)
        raise AssertionError("a pool was started")

    monkeypatch.setattr(PoolSettings, "executor", executor)
    return started


def test_fewer_items_than_pool_from_are_computed_here_with_the_same_results(monkeypatch):
    """A pool's workers each pay a start-up: a run too small to win it back is computed in this process."""
    items = [Done(-1), 1, 2, Done(-2), 3, 4, 5, Done(-3)]
    started = _no_pool(monkeypatch)
    assert list(ordered_map(_square_all, items, workers=2, batch=2, pool_from=6)) == [-1, 1, 4, -2, 9, 16, 25, -3]
    assert started == []


def test_pool_from_items_or_more_go_to_the_pool(monkeypatch):
    items = [Done(-1), *range(1, 9), Done(-2)]
    assert list(ordered_map(_square_all, items, workers=2, batch=2, pool_from=8)) == \
        list(ordered_map(_square_all, items, workers=1, batch=2))
    started = _no_pool(monkeypatch)
    with pytest.raises(AssertionError, match="a pool was started"):
        list(ordered_map(_square_all, items, workers=2, batch=2, pool_from=8))
    assert started == [2]


def test_deciding_on_a_pool_reads_ahead_no_further_than_it_must(monkeypatch):
    """Known results with nothing to compute ahead of them pass at once (an unchanged upload is never held in
    memory), and the items read ahead behind one to compute stay bounded (computed here past 4 x pool_from)."""
    started = _no_pool(monkeypatch)
    consumed = []

    def items():
        for i in range(1000):
            consumed.append(i)
            yield Done(i) if i != 500 else i

    it = ordered_map(_square_all, items(), workers=2, pool_from=10)
    assert next(it) == 0 and len(consumed) == 1
    out = list(it)
    assert out[499] == 500 * 500 and out[:3] == [1, 2, 3] and len(out) == 999 and started == []


class _Result(StageResult):
    stage: str = "demo"
    done: int = 0
    seconds: float = 0.0
    ok: bool = True


def test_one_report_writer_for_every_stage(tmp_path):
    res = _Result(
        upload="u1", done=2, seconds=1.5, issues=[Issue(code="x_bad", message="bad line", fix="fix it", line=3)]
    )
    assert res.totals() == {"done": 2, "seconds": 1.5}  # numbers only
    write_report(tmp_path / "report.json", res, notes=["n"])
    body = json.loads((tmp_path / "report.json").read_text())
    assert (body["upload"], body["stage"], body["counts"], body["notes"]) == ("u1", "demo", res.totals(), ["n"])
    assert body["issues"][0]["code"] == "x_bad"
    write_report(tmp_path / "shared_report.json", res, section="one")
    write_report(tmp_path / "shared_report.json", res.model_copy(update={"stage": "two"}), section="two")
    shared = json.loads((tmp_path / "shared_report.json").read_text())
    assert set(shared) == {"upload", "one", "two"} and shared["two"]["stage"] == "two"
    assert not math.isnan(shared["one"]["counts"]["seconds"])


def test_redaction_problems_reach_vak_run(tmp_path):
    """The redaction stage writes its report like every stage, so `vak run` lists its problems."""
    from vak_pipeline.redaction.stage import redact_upload

    layout = DataLayout.at(tmp_path)
    layout.upload_dir("u1").mkdir(parents=True)
    layout.conversations("u1").parent.mkdir(parents=True)
    layout.conversations("u1").write_text('{"id": "c1", "turns": "not a list"}\n{broken\n', encoding="utf-8")
    res = redact_upload(layout, "u1")
    assert res.failed == 2 and res.stage == "redacted_manifest"
    report = json.loads(layout.redaction_report("u1").read_text())
    assert report["counts"]["failed"] == 2 and report["counts"]["records"] == 2
    problems = upload_problems(layout, "u1")
    assert [(p["code"], p["line"]) for p in problems] == [
        ("redaction_record_invalid", 1),
        ("redaction_record_invalid", 2),
    ]


def test_each_stage_version_is_its_assets_code_version():
    from vak_pipeline.audio.settings import NORMALIZE_VERSION
    from vak_pipeline.definitions import build_defs
    from vak_pipeline.redaction.settings import stage_version
    from vak_pipeline.speech.stage import TAG_VERSION, TRANSCRIBE_VERSION

    versions = {
        k.to_user_string(): v for a in build_defs("in_process").assets for k, v in a.code_versions_by_key.items()
    }
    assert versions["normalized_audio"] == NORMALIZE_VERSION
    assert versions["transcripts"] == TRANSCRIBE_VERSION and versions["tagged_turns"] == TAG_VERSION
    assert versions["redacted_manifest"] == stage_version()


def test_the_audio_stage_keeps_its_ledger(tmp_path):
    import numpy as np
    import soundfile as sf

    from vak_pipeline.audio.stage import STAGE, normalize_upload

    layout = DataLayout.at(tmp_path)
    up = layout.upload_dir("u1")
    up.mkdir(parents=True)
    (up / "upload.yaml").write_text(
        "locale: en-US\nconsent: recorded_verbal\nconsent_ref: p1\nsource: real\n"
        'channel_map: {"0": agent, "1": user}\n',
        encoding="utf-8",
    )
    sf.write(up / "call.wav", np.zeros((8000, 2)), 8000, subtype="PCM_16")
    (up / "empty.wav").write_bytes(b"")
    normalize_upload(layout, "u1")
    entries = Ledger.load(layout.stage_ledger("u1", STAGE)).previous
    assert set(entries) == {"call.wav", "empty.wav"}
    assert entries["empty.wav"].failure.code == "audio_empty_file" and entries["call.wav"].failure is None
    again = normalize_upload(layout, "u1")
    assert (again.decoded, again.skipped, again.failed, again.recordings) == (0, 2, 1, 1)


def test_a_line_is_read_back_at_its_place_while_the_output_is_rewritten(tmp_path):
    from vak_pipeline.core.stage import PlacedWriter, PreviousLines

    path = tmp_path / "out.jsonl"
    with PlacedWriter(path) as w:
        w.write({"id": "head"})  # a line the ledger does not track still moves the places after it
        places = [w.place(f'{{"id": "c{i}", "text": "ünïcode {i}"}}\n') for i in range(3)]
    with PreviousLines(path) as previous, PlacedWriter(path) as w:
        moved = [w.place(previous.read(p)) for p in reversed(places)]  # the old file, read as the new is written
    with PreviousLines(path) as previous:
        assert [json.loads(previous.read(p))["id"] for p in moved] == ["c2", "c1", "c0"]
        assert previous.read(places[0]) is None  # that place holds another line now: the item is redone
        assert previous.read(None) is None
    assert PreviousLines(tmp_path / "missing.jsonl").read(moved[0]) is None


def test_a_ledger_entry_reports_its_issues_again_else_its_failure():
    bad = Issue(code="x_bad", message="bad", fix="fix it")
    warn = Issue(code="x_warn", message="odd", fix="look", severity="WARN")
    assert LedgerEntry(item="a", key="k", failure=bad).reported() == [bad]
    assert LedgerEntry(item="a", key="k", failure=bad, issues=[warn, bad]).reported() == [warn, bad]
    assert LedgerEntry(item="a", key="k", issues=[warn]).reported() == [warn]
    assert LedgerEntry(item="a", key="k").reported() == []
