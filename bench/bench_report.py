"""Steward report (funnel, quality, turn-taking, charts) against one validated pass over the same manifest;
peak memory at two sizes (flat in text records; the quality table grows with recordings)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from .common import peak_rss_mb, row, timed

_BUILD = """
from pathlib import Path
from vak_pipeline.report.steward import ReportSettings, build_steward_report
build_steward_report(sys.argv[1], settings=ReportSettings(measure_snr=False))
"""


def _dataset(root: Path, n: int) -> None:
    """n conversations, every other one with audio metadata (no wav: SNR is not measured), split."""
    from vak_pipeline.splits import split_manifest
    from vak_pipeline_tests.builders import make_audio, make_record, turn, write_manifest

    turns = [
        turn("user", 0, 1.2, "hello I need help"),
        turn("agent", 1.5, 3.0, "sure what is it"),
        turn("user", 2.8, 3.1, "okay"),
        turn("user", 3.4, 5.0, "my order is late"),
    ]
    write_manifest(
        root / "vakforge.jsonl",
        (
            make_record(
                f"r{i}",
                {"user": f"u{i}", "agent": f"a{i % 50}"},
                turns,
                audio=make_audio(f"r{i}", 6.0) if i % 2 else None,
            )
            for i in range(n)
        ),
    )
    split_manifest(root / "vakforge.jsonl", root / "splits.json")


def run(quick: bool) -> list[dict]:
    from vak_pipeline.recipes.common import iter_records
    from vak_pipeline.report.steward import ReportSettings, build_steward_report

    sizes = (2_000, 8_000) if quick else (20_000, 80_000)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            root = Path(tmp) / str(n)
            root.mkdir()
            _dataset(root, n)
            ref, _ = timed(lambda r=root: sum(1 for _ in iter_records(r / "vakforge.jsonl")))
            took, _ = timed(lambda r=root: build_steward_report(r, settings=ReportSettings(measure_snr=False)))
            rows.append(
                row(
                    "report",
                    f"steward report, {n:,} conversations",
                    round(took, 2),
                    "s",
                    reference=round(ref, 2),
                    ratio=round(took / ref, 1),
                    note="reference: one validated pass over the manifest; includes ~3 s of charts",
                )
            )
            rows.append(
                row("report", f"peak RSS, {n:,} conversations", round(peak_rss_mb(_BUILD, str(root)), 1), "MiB")
            )
    return rows
