"""Erasing a CALL, in real `vak run`s over two of the sample calls (espeak-ng voices, transcribed by Whisper):
afterwards the erased call's decoded channels correlate with no audio left under the data root outside raw/
(published audio/, the moshi, turn-based and cascaded WAVs, Parquet's embedded bytes, Lhotse Shar tars), while
before the erasure the same correlation finds it in each of those places; `vak verify-erased` finds an audio
copy planted back inside a tar, which only its own decoding and fingerprinting can see."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import soxr
from scipy.signal import fftconvolve
from typer.testing import CliRunner

from vak_pipeline.cli import app

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

REPO = Path(__file__).resolve().parents[2]
KEEP, ERASE = "call_001", "call_003"
CSV = ('file,conv_id,channel_map,user_speaker,scenario,names\n'
       f'{KEEP}.flac,sample_{KEEP},"{{""0"": ""agent"", ""1"": ""user""}}",cust-rahul,inverter_fault,'
       '"[""Rahul Verma""]"\n'
       f'{ERASE}.flac,sample_{ERASE},"{{""0"": ""user"", ""1"": ""agent""}}",cust-4471,check_status,\n')
RATE = 8000
SAME = 0.6  # normalised cross-correlation: a copy (resampled, masked in places) scores far above other speech


def _run(*args: str) -> str:
    out = CliRunner().invoke(app, list(args))
    assert out.exit_code == 0, out.output
    return out.output


def _mono_channels(data: bytes | Path) -> list[np.ndarray]:
    x, sr = sf.read(io.BytesIO(data) if isinstance(data, bytes) else data, dtype="float32", always_2d=True)
    return [soxr.resample(x[:, c], sr, RATE) if sr != RATE else x[:, c] for c in range(x.shape[1])]


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    """Largest normalised cross-correlation of the shorter signal slid along the longer one."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    norm = float(np.linalg.norm(short))
    if len(short) < RATE // 4 or norm < 1e-3:
        return 0.0  # too short or silent to say anything
    dots = fftconvolve(long, short[::-1], mode="valid")
    energy = np.sqrt(np.maximum(fftconvolve(long**2, np.ones(len(short)), mode="valid"), 0.0))
    speech = energy > 0.1 * norm  # a window of (near) silence correlates with nothing
    return float(np.max(np.abs(dots[speech]) / (norm * energy[speech]))) if speech.any() else 0.0


def _published_audio(root: Path) -> Iterator[tuple[str, bytes]]:
    """(where, encoded audio) of every audio file, tar member and Parquet blob outside raw/."""
    import pyarrow.parquet as pq

    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if not p.is_file() or rel.parts[0] == "raw":
            continue
        suffix = p.suffix.lower()
        if suffix in (".wav", ".flac"):
            yield rel.as_posix(), p.read_bytes()
        elif suffix == ".tar":
            with tarfile.open(p) as tar:
                for m in tar:
                    if m.isfile() and Path(m.name).suffix.lower() in (".wav", ".flac"):
                        yield f"{rel}:{m.name}", tar.extractfile(m).read()
        elif suffix == ".parquet":
            table = pq.read_table(p)
            for name in table.column_names:
                for i, v in enumerate(table.column(name).to_pylist()):
                    blob = v.get("bytes") if isinstance(v, dict) else v
                    if isinstance(blob, bytes) and blob[:4] in (b"RIFF", b"fLaC"):
                        yield f"{rel}:{name}[{i}]", blob


def _holding(root: Path, channels: list[np.ndarray]) -> list[str]:
    """Where the published audio correlates with one of `channels` (with the score and the clip's seconds)."""
    hits = []
    for where, blob in _published_audio(root):
        for c in _mono_channels(blob):
            score = max(_ncc(c, e) for e in channels)
            if score >= SAME:
                hits.append(f"{where} ({score:.2f}, {len(c) / RATE:.1f} s)")
                break
    return hits


def _kind(where: str) -> str:
    for k in ("moshi", "turn_based", "cascaded", "parquet", "duplex", "audio/"):
        if k in where:
            return k
    return where


@pytest.fixture(scope="module")
def erased(tmp_path_factory) -> tuple[Path, list[str], list[str], str]:
    root = tmp_path_factory.mktemp("erase-call")
    raw, calls = REPO / "data" / "raw" / "sample-calls", root / "raw" / "sample-calls"
    calls.mkdir(parents=True)
    for name in ("upload.yaml", f"{KEEP}.flac", f"{ERASE}.flac", f"{ERASE}.events.jsonl"):
        shutil.copy2(raw / name, calls / name)
    (calls / "recordings.csv").write_text(CSV)
    _run("run", "--data", str(root))
    channels = _mono_channels(calls / f"{ERASE}.flac")
    before = _holding(root, channels)
    out = _run("erase", "--data", str(root), "--file", f"sample-calls/{ERASE}.flac", "--reference", "LEGAL-7",
               "--yes")
    return root, before, _holding(root, channels), out


def test_before_the_erasure_the_correlation_finds_the_call_in_every_kind_of_audio_output(erased):
    _, before, _, _ = erased
    kinds = {_kind(w) for w in before}
    assert {"audio/", "moshi", "turn_based", "parquet", "duplex"} <= kinds, before


def test_after_the_erasure_no_published_or_private_audio_correlates_with_the_erased_channels(erased):
    root, _, after, out = erased
    assert "1 conversation(s)" in out and "verified: no trace left" in out
    assert after == []
    assert any(True for _ in _published_audio(root))  # the other call is still published


def test_verify_erased_decodes_tar_members_and_finds_a_copy_planted_back(erased, tmp_path):
    root, _, _, _ = erased
    assert _run("verify-erased", "--data", str(root)).strip().endswith("no trace of any erased conversation")
    x, sr = sf.read(root / "raw" / "sample-calls" / f"{ERASE}.flac", dtype="float32")
    buf = io.BytesIO()
    sf.write(buf, soxr.resample(x, sr, 24000), 24000, format="WAV", subtype="PCM_16")  # re-encoded, no id in it
    planted = root / "exports" / "planted.000000.tar"
    with tarfile.open(planted, "w") as tar:
        info = tarfile.TarInfo("opaque-0001.wav")
        info.size = len(buf.getvalue())
        tar.addfile(info, io.BytesIO(buf.getvalue()))
    try:
        out = CliRunner().invoke(app, ["verify-erased", "--data", str(root)])
        assert out.exit_code == 1 and "exports/planted.000000.tar:opaque-0001.wav" in out.output, out.output
        assert json.dumps(out.output).count("audio") >= 1
    finally:
        planted.unlink()
