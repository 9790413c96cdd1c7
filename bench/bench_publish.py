"""Publish in proportion to the change (issue 34): the publish steps (validated_manifest with its quality rules,
splits, the five exports, the swap) after a delivery of 5 % more conversations, against the first publish of
the same data directory, in one run.

The corpus is made here, as the ingest stages leave it (redacted records and their audio under work/), so the
figure is publish's alone: stereo calls of distinct tones (every record its own audio, no duplicates) and
text conversations, in one upload; the delivery is a second upload of 5 % as many of each. Calls last 40 s (the
e2e corpus's mean). Quick: 100 calls + 2,000 chats; full: 1,000 calls + 20,000 chats; `--calls 20 --chats 10000`
is the e2e corpus's shape (its run 2 adds 1 call + 500 chats). Aim: the second publish <= 15 % of the first.
The steward report is a step of its own row. Not included: the asset checks (their own rows in bench_e2e).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


CALL_S = 40.0


def make_upload(root: Path, name: str, calls: int, chats: int, seed: int) -> None:
    """An upload as redacted_manifest leaves it: records in work/<upload>/redacted.jsonl, audio in release/."""
    from vak_pipeline.layout import DataLayout
    from vak_pipeline_tests.builders import make_audio, make_record, tone, write_manifest, write_wav

    layout = DataLayout.at(root)
    (root / "raw" / name).mkdir(parents=True)
    words = ["inverter", "battery", "meter", "panel", "router", "charger", "heater", "pump", "modem", "boiler"]
    records = []
    for i in range(calls + chats):
        j = seed * 100_000 + i
        cid = f"{name}-c{i:06d}"
        speakers = {"agent": f"voice{i % 16}", "user": f"{name}-cust{i}"}
        origin = {"upload": name, "file": f"{name}/calls.vakforge.jsonl", "line": i + 1}
        turns = [("user", 0.0, 1.5, f"hello my {words[j % 10]} {words[(j // 10) % 10]} {words[(j // 100) % 10]} "
                                    f"and {words[(j // 1000) % 10]} {words[(j // 10_000) % 10]} are off"),
                 ("agent", 1.6, 3.5, f"sure I will check the {words[(j * 7) % 10]} {words[(j // 7) % 10]} now"),
                 ("user", 3.6, 5.5, f"thanks the {words[(j * 3) % 10]} {words[(j // 3) % 10]} "
                                    f"{words[(j // 30) % 10]} too")]
        audio = None
        if i < calls:
            write_wav(layout.release_files(name) / "audio" / f"{cid}.wav",
                      [tone(200 + (j % 5000) * 0.37, CALL_S), tone(900 + (j % 3000) * 0.53, CALL_S)])
            audio = make_audio(cid, CALL_S)
        records.append(make_record(cid, speakers, turns, audio=audio, origin=origin))
    layout.work(name).mkdir(parents=True, exist_ok=True)
    write_manifest(layout.redacted(name), records)


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the exports' worker pools): on a shared machine
    a step's CPU time moves less with the load than its wall time."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def publish(root: Path) -> dict[str, float]:
    """The publish job's library calls, in its order; wall seconds per step, then CPU seconds ("<step> (CPU)")."""
    from vak_pipeline.identity import split_links
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.quality.recordings import QualityThresholds, quality_rules
    from vak_pipeline.recipes.cascaded import export_cascaded
    from vak_pipeline.recipes.duplex_s2s import export_duplex_s2s
    from vak_pipeline.recipes.moshi_lora import export_moshi_lora
    from vak_pipeline.recipes.parquet import export_parquet
    from vak_pipeline.recipes.turn_based import export_turn_based
    from vak_pipeline.release import begin_candidate, promote
    from vak_pipeline.report.steward import ReportSettings, build_steward_report
    from vak_pipeline.rules.publish import publish_manifest
    from vak_pipeline.splits import SplitConfig, split_manifest

    steps: dict[str, float] = {}
    cpu: dict[str, float] = {}

    @contextlib.contextmanager
    def step(name: str) -> Iterator[None]:
        t, c = time.perf_counter(), _cpu()
        yield
        steps[name], cpu[f"{name} (CPU)"] = time.perf_counter() - t, _cpu() - c

    with step("validated_manifest"):
        layout = begin_candidate(DataLayout.at(root))
        inputs = [layout.manifest_input(u) for u in layout.uploads()]
        result = publish_manifest(layout, inputs, extra_rules=quality_rules(layout, QualityThresholds()))
    with step("splits"), split_links(layout.content_index) as links:
        split_manifest(layout.manifest, layout.splits, SplitConfig(), links=links, cache=layout.split_rows)
    for name, export in (("moshi_lora", export_moshi_lora), ("turn_based", export_turn_based),
                         ("cascaded", export_cascaded), ("parquet", export_parquet),
                         ("duplex_s2s", export_duplex_s2s)):
        with step(name):
            export(layout)
    with step("steward_report"):
        build_steward_report(layout, settings=ReportSettings(quality=QualityThresholds()))
    with step("release"):
        promote(layout, result.manifest_sha256)
    steps.update(cpu)
    return steps


def _profiled(root: Path, profile: Path | None, name: str) -> dict[str, float]:
    if profile is None:
        return publish(root)
    import cProfile

    prof = cProfile.Profile()
    steps = prof.runcall(publish, root)
    prof.dump_stats(f"{profile}.{name}")
    return steps


def run(quick: bool = False, calls: int | None = None, chats: int | None = None,
        profile: Path | None = None) -> list[dict]:
    """Rows of the bench; `calls`/`chats` override the corpus (the e2e shape: 20 calls + 10,000 chats),
    `profile` writes cProfile stats of each publish beside it (<profile>.first, <profile>.second)."""
    sys.path.insert(0, str(ROOT))
    calls = calls if calls is not None else (100 if quick else 1000)
    chats = chats if chats is not None else (2000 if quick else 20_000)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        make_upload(root, "delivery-1", calls, chats, seed=1)
        first = _profiled(root, profile, "first")
        make_upload(root, "delivery-2", max(1, calls // 20), chats // 20, seed=2)
        second = _profiled(root, profile, "second")
    b = "publish"
    for step in first:
        if step.endswith("(CPU)"):
            continue
        rows.append({"bench": b, "metric": f"after a 5% delivery: {step}", "value": round(second[step], 2),
                     "unit": "s", "reference": round(first[step], 2),
                     "ratio": round(second[step] / max(first[step], 1e-9), 3),
                     "note": f"reference = first publish; CPU {second[step + ' (CPU)']:.2f} s against "
                             f"{first[step + ' (CPU)']:.2f} s"})
    for cpu in (False, True):
        one = sum(v for k, v in first.items() if k.endswith("(CPU)") == cpu)
        two = sum(v for k, v in second.items() if k.endswith("(CPU)") == cpu)
        rows.append({"bench": b, "metric": f"after a 5% delivery: whole publish{' CPU' if cpu else ''} ({calls} "
                     f"calls + {chats} chats, +5%)", "value": round(two, 1), "unit": "CPU s" if cpu else "s",
                     "reference": round(one, 1), "ratio": round(two / one, 3),
                     "note": "aim <= 0.15; reference = the first publish of the same data directory"})
    return rows


if __name__ == "__main__":
    import argparse

    from .__main__ import print_table

    ap = argparse.ArgumentParser(prog="python -m bench.bench_publish", description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true", help="1,000 calls + 20,000 chats (default: quick)")
    ap.add_argument("--calls", type=int, help="calls of the first delivery (e2e shape: 20)")
    ap.add_argument("--chats", type=int, help="text conversations of the first delivery (e2e shape: 10000)")
    ap.add_argument("--profile", type=Path, help="write cProfile stats to PATH.first and PATH.second")
    args = ap.parse_args()
    print_table(run(quick=not args.full, calls=args.calls, chats=args.chats, profile=args.profile))
