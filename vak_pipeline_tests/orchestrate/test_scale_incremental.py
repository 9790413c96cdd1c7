"""A second `vak run` costs what the new data costs: unchanged uploads and an unchanged manifest are skipped."""

from __future__ import annotations

import shutil
from pathlib import Path

from vak_pipeline.orchestrate import run_pipeline

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "raw"


def _data(tmp_path: Path) -> Path:
    """Two text uploads of one chat each (no audio, nothing to transcribe): the skip logic does not depend
    on how much an upload holds, and every conversation costs a synth rendering per run."""
    root = tmp_path / "data"
    for name in ("sample-chats", "sample-hinglish"):
        up = root / "raw" / name
        up.mkdir(parents=True)
        shutil.copy2(SAMPLE / name / "upload.yaml", up / "upload.yaml")
        first = (SAMPLE / name / "support.messages.jsonl").read_text(encoding="utf-8").splitlines()[0]
        (up / "support.messages.jsonl").write_text(first + "\n", encoding="utf-8")
    return root


def _status(report) -> dict[str, str]:
    return {f"{r.name}[{r.partition or ''}]": "skipped" if r.skipped else "ran" if r.success else "failed"
            for r in report.runs}


def test_unchanged_uploads_are_skipped_and_a_changed_one_reruns(tmp_path):
    root = _data(tmp_path)
    first = run_pipeline(root, echo=lambda _: None)
    assert first.success and set(_status(first).values()) == {"ran"}
    manifest = (root / "vakforge.jsonl").read_bytes()

    again = run_pipeline(root, echo=lambda _: None)
    assert set(_status(again).values()) == {"skipped"}
    assert (root / "vakforge.jsonl").read_bytes() == manifest

    extra = root / "raw" / "sample-chats" / "more.messages.jsonl"
    # a new conversation (not a re-delivery of chat-order-001, which the duplicate check would leave out)
    extra.write_text((root / "raw" / "sample-chats" / "support.messages.jsonl").read_text().splitlines()[0]
                     .replace('"chat-order-001"', '"chat-order-099"')
                     .replace("Where is my order ORD-58213? It was due yesterday.",
                              "My package never came and the tracking page has shown nothing since last week.")
                     + "\n")
    third = run_pipeline(root, echo=lambda _: None)
    assert _status(third) == {"ingest_job[sample-chats]": "ran", "ingest_job[sample-hinglish]": "skipped",
                              "publish_job[]": "ran"}
    assert len((root / "vakforge.jsonl").read_text().splitlines()) == len(manifest.splitlines()) + 1

    forced = run_pipeline(root, echo=lambda _: None, force=True)
    assert set(_status(forced).values()) == {"ran"}
