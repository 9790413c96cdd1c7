"""Audio stored once, in bytes: with default settings, all five exports of a release hold at most twice the
bytes of its published audio (issue 34), counted on disk by inode, so a file hard-linked to the published
audio (or a clip linked from two exports) costs nothing the second time. The fixture is shaped like the
release of a call centre: two-channel calls where each speaker's channel carries voiced speech during
their own turns and a line-noise floor otherwise, one call with a redacted span (every audio export
re-masks it) and one with the user on the left channel (moshi_lora swaps it into a file of its own)."""

from __future__ import annotations

import io
import os
import tarfile

import numpy as np
import pytest
import soundfile as sf

from vak_pipeline.layout import DataLayout
from vak_pipeline.recipes.cascaded import export_cascaded
from vak_pipeline.recipes.duplex_s2s import DuplexS2SConfig, export_duplex_s2s
from vak_pipeline.recipes.moshi_lora import export_moshi_lora
from vak_pipeline.recipes.parquet import ParquetConfig, export_parquet
from vak_pipeline.recipes.turn_based import export_turn_based
from vak_pipeline.release import begin_candidate
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import make_audio, make_record, turn, write_manifest, write_phone_redaction_log

lhotse = pytest.importorskip("lhotse")  # the `nemo` extra: duplex_s2s is one of the five
pytestmark = pytest.mark.timeout(300)
RATE, SECONDS, TURN_S = 24000, 16.0, 2.0
ALL_TRAIN = SplitConfig(ratios={"train": 1.0, "validation": 0.0, "test": 0.0})


def voiced(n: int, rng: np.random.Generator, f0: float) -> np.ndarray:
    """Speech-like float samples: harmonics of a wavering pitch under a syllable envelope, plus breath noise."""
    t = np.arange(n) / RATE
    phase = 2 * np.pi * np.cumsum(f0 * (1 + 0.05 * np.sin(2 * np.pi * 3 * t))) / RATE
    harmonics = sum(np.sin(k * phase) / k for k in range(1, 8))
    return harmonics * (0.55 + 0.45 * np.sin(2 * np.pi * 4 * t)) * 5000 + rng.normal(0, 150, n)


def call_audio(seed: int) -> tuple[np.ndarray, list]:
    """([frames, 2] int16 with the agent on channel 0, turns): speakers alternate every TURN_S seconds."""
    rng = np.random.default_rng(seed)
    n = int(SECONDS * RATE)
    data = rng.normal(0, 12, (n, 2))  # the line's noise floor on both channels
    turns = []
    for k in range(int(SECONDS / TURN_S)):
        role = "user" if k % 2 == 0 else "agent"
        a, b = int(k * TURN_S * RATE), int(((k + 1) * TURN_S - 0.2) * RATE)
        data[a:b, 0 if role == "agent" else 1] += voiced(b - a, rng, 190.0 if role == "agent" else 120.0)
        turns.append(turn(role, k * TURN_S, (k + 1) * TURN_S - 0.2,
                          "my number is <PHONE_1>" if k == 1 else f"words of turn {k} for the test"))
    return np.clip(np.round(data), -32768, 32767).astype(np.int16), turns


@pytest.fixture
def release(tmp_path) -> DataLayout:
    """A release candidate of four calls: plain, plain, one with a redacted span, one with the user left."""
    cand = begin_candidate(DataLayout.at(tmp_path))
    base = cand.release_root
    records = []
    for i in range(4):
        cid = f"c{i}"
        data, turns = call_audio(i)
        cmap = {"0": "agent", "1": "user"}
        extra = {}
        if i == 2:
            write_phone_redaction_log(base, cid, 13, 22, (2.5, 3.2), channel=0)
            extra["redaction_log"] = f"redactions/{cid}.json"
        else:
            turns[1] = turn("agent", turns[1].start, turns[1].end, "my number is on the file")
        if i == 3:
            data, cmap = data[:, ::-1], {"0": "user", "1": "agent"}
        (base / "audio").mkdir(parents=True, exist_ok=True)
        sf.write(base / "audio" / f"{cid}.wav", data, RATE, subtype="PCM_16")
        records.append(make_record(cid, {"agent": f"agent{i}", "user": f"user{i}"}, turns,
                                   audio=make_audio(cid, SECONDS, channel_map=cmap), **extra))
    write_manifest(cand.manifest, records)
    split_manifest(cand.manifest, cand.splits, ALL_TRAIN)
    return cand


def bytes_on_disk(*folders) -> list[int]:
    """Bytes under each folder, each inode counted once across all of them (in the order given)."""
    seen: set[tuple[int, int]] = set()
    out = []
    for folder in folders:
        n = 0
        for p in sorted(folder.rglob("*")):
            st = os.stat(p)
            if p.is_file() and (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                n += st.st_size
        out.append(n)
    return out


def export_all(cand: DataLayout, parquet: ParquetConfig | None = None, duplex: DuplexS2SConfig | None = None):
    results = [export_cascaded(cand), export_duplex_s2s(cand, duplex), export_moshi_lora(cand),
               export_parquet(cand, parquet), export_turn_based(cand)]
    assert all(r.counts.get("conversations", r.counts.get("rows")) == 4 for r in results[1:4])
    return results


def test_default_exports_hold_at_most_twice_the_published_audio(release):
    results = export_all(release)
    audio, *exports = bytes_on_disk(release.release_root / "audio", *(r.out_dir for r in results))
    assert sum(exports) <= 2 * audio, {r.recipe: round(n / audio, 3) for r, n in zip(results, exports, strict=True)}
    moshi = results[2]
    assert moshi.counts["audio_files_shared"] == 2  # the two plain agent-left calls are the published files
    # the same exports with the Shar and Parquet audio embedded as WAV are over the budget: FLAC makes it
    wav = export_all(release, ParquetConfig(audio_format="wav"), DuplexS2SConfig(audio_format="wav"))
    audio, *exports = bytes_on_disk(release.release_root / "audio", *(r.out_dir for r in wav))
    assert sum(exports) > 2 * audio


def test_the_flac_the_consumers_read_is_the_wav_they_read_before_sample_for_sample(release):
    """Lossless: lhotse (NeMo's loader) and soundfile (datasets' Audio(decode=False) bytes) give back exactly
    the samples the WAV form held."""
    flac_shar, wav_shar = (export_duplex_s2s(release, DuplexS2SConfig(audio_format=f), out_dir=release.root / f)
                           for f in ("flac", "wav"))
    by_format = {}
    for res in (flac_shar, wav_shar):
        cuts = lhotse.CutSet.from_shar(in_dir=str(res.out_dir / "train")).to_eager()
        by_format[res.config["audio_format"]] = {
            c.id: (c.load_audio(), c.load_custom("target_audio")) for c in cuts}
        members = [m for t in sorted((res.out_dir / "train").glob("*.tar")) for m in tarfile.open(t).getmembers()]
        assert {m.name.rsplit(".", 1)[1] for m in members if not m.name.endswith(".json")} == \
            {res.config["audio_format"]}
        assert res.counts["audio_bytes_embedded"] == sum(m.size for m in members if not m.name.endswith(".json"))
    assert by_format["flac"].keys() == by_format["wav"].keys() == {"c0", "c1", "c2", "c3"}
    for cid, (user, agent) in by_format["flac"].items():
        assert np.array_equal(user, by_format["wav"][cid][0]) and np.array_equal(agent, by_format["wav"][cid][1])
    assert flac_shar.counts["audio_bytes_embedded"] < 0.7 * wav_shar.counts["audio_bytes_embedded"]

    import pyarrow.parquet as pq

    rows = {}
    for fmt in ("flac", "wav"):
        out = export_parquet(release, ParquetConfig(audio_format=fmt), out_dir=release.root / f"pq-{fmt}").out_dir
        table = pq.read_table(sorted((out / "data").glob("train-*.parquet"))).to_pylist()
        rows[fmt] = {r["id"]: r["audio"] for r in table}
    for cid, audio in rows["flac"].items():
        assert audio["path"] == f"{cid}.flac" and rows["wav"][cid]["path"] == f"{cid}.wav"
        flac, rate = sf.read(io.BytesIO(audio["bytes"]), dtype="int16")
        assert sf.info(io.BytesIO(audio["bytes"])).format == "FLAC" and rate == RATE
        assert np.array_equal(flac, sf.read(io.BytesIO(rows["wav"][cid]["bytes"]), dtype="int16")[0])
    published = (release.release_root / "audio" / "c0.wav").read_bytes()
    assert rows["wav"]["c0"]["bytes"] == published  # wav: the published file's own bytes, as before
