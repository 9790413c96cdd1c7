"""Audio normalization throughput against the `sox` CLI on the same files; pool speed-up; memory 3 h vs 3 min.

References are measured in the same run: `sox in.wav -b 16 out.wav rate -v 24k` (sox's very-high-quality
resampler) over the same WAVs, one file at a time. Ours runs soxr at HQ (the default) and VHQ.
Throughput is seconds of audio per wall second on one core; ratio = ours / sox (above 1 = faster).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile as sf

from .common import peak_rss_mb, row

RATE = 44100


def _write_noise_wav(path: Path, seconds: float, rate: int = RATE, channels: int = 2, seed: int = 0) -> None:
    """Cheap speech-like noise (bursts over a floor), written in 10 s blocks so generation memory stays flat."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((10 * rate, channels)).astype(np.float32) * 0.05
    env = ((np.arange(10 * rate) / rate) % 1.0 < 0.5).astype(np.float32)[:, None]
    base = base * (0.1 + 2 * env)
    with sf.SoundFile(str(path), "w", samplerate=rate, channels=channels, subtype="PCM_16") as f:
        left = int(seconds * rate)
        while left > 0:
            n = min(left, len(base))
            f.write(base[:n])
            left -= n


def _throughput(files: list[Path], audio_s: float, fn) -> float:
    t0 = time.perf_counter()
    for f in files:
        fn(f)
    return audio_s / (time.perf_counter() - t0)


def run(quick: bool) -> list[dict]:
    from vak_pipeline.audio.normalize import normalize_recording
    from vak_pipeline.audio.stage import normalize_upload
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.storage import atomic_write_json
    from vak_pipeline.uploads.inventory import inventory

    rows: list[dict] = []
    n_files, secs = (4, 15.0) if quick else (4, 60.0)
    tmp = Path(tempfile.mkdtemp(prefix="vak-bench-audio-"))
    try:
        up = tmp / "raw" / "bench"
        up.mkdir(parents=True)
        (up / "upload.yaml").write_text("locale: en-US\nconsent: written\n", encoding="utf-8")
        files = []
        for i in range(n_files):
            _write_noise_wav(up / f"c{i}.wav", secs, seed=i)
            files.append(up / f"c{i}.wav")
        audio_s = n_files * secs
        out = tmp / "out"
        out.mkdir()

        sox = shutil.which("sox")
        sox_tp = None
        if sox:
            sox_tp = _throughput(files, audio_s, lambda f: subprocess.run(
                [sox, str(f), "-b", "16", str(out / f"sox-{f.name}"), "rate", "-v", "24k"], check=True))
        for q in ("HQ", "VHQ"):
            tp = _throughput(files, audio_s, lambda f, q=q: normalize_recording(f, out / f"{q}-{f.name}", quality=q))
            rows.append(row("audio", f"normalize throughput, 1 core, soxr {q} (44.1k stereo -> 24k)", round(tp, 1),
                            "audio s / s", round(sox_tp, 1) if sox_tp else None,
                            round(tp / sox_tp, 2) if sox_tp else None,
                            f"{n_files} x {secs:.0f} s WAVs; reference: sox rate -v 24k, same files"
                            + ("" if sox else "; sox not installed")))

        pool_n, pool_s = (4, 60.0) if quick else (8, 300.0)
        pool_up = tmp / "pool-raw" / "bench"
        pool_up.mkdir(parents=True)
        (pool_up / "upload.yaml").write_text("locale: en-US\nconsent: written\n", encoding="utf-8")
        for i in range(pool_n):
            _write_noise_wav(pool_up / f"p{i}.wav", pool_s, seed=10 + i)
        walls = {}
        for workers in (1, 2):
            layout = DataLayout.at(tmp / f"w{workers}")
            (layout.root / "raw").mkdir(parents=True)
            (layout.root / "raw" / "bench").symlink_to(pool_up)
            # the pipeline hashes the upload in raw_uploads, a step before normalized_audio: do the same
            atomic_write_json(layout.inventory("bench"), inventory(pool_up).model_dump(mode="json"))
            t0 = time.perf_counter()
            res = normalize_upload(layout, "bench", workers=workers)
            walls[workers] = time.perf_counter() - t0
            assert res.recordings == pool_n, res.issues
        rows.append(row("audio", "normalize_upload speed-up, 2 workers vs 1", round(walls[1] / walls[2], 2), "x",
                        round(walls[1], 2), None,
                        f"{pool_n} x {pool_s:.0f} s WAVs; wall {walls[2]:.2f} s vs {walls[1]:.2f} s (incl. "
                        "descriptor and spawn start-up; the inventory is hashed before, as raw_uploads does)"))

        long_s, short_s = (1800.0, 180.0) if quick else (3 * 3600.0, 180.0)
        code = ("import sys; from vak_pipeline.audio.normalize import normalize_recording; "
                "normalize_recording(sys.argv[1], sys.argv[2])")
        peaks = {}
        for label, s in (("long", long_s), ("short", short_s)):
            src = tmp / f"{label}.wav"
            _write_noise_wav(src, s, rate=48000, seed=7)
            t0 = time.perf_counter()
            peaks[label] = peak_rss_mb(code, str(src), str(tmp / f"{label}-out.wav"))
            wall = time.perf_counter() - t0
            if label == "long":
                long_wall = wall
                long_bytes = src.stat().st_size
            src.unlink()
            (tmp / f"{label}-out.wav").unlink()
        rows.append(row("audio", f"peak RSS normalizing {long_s / 3600:.1f} h (48k stereo) vs {short_s / 60:.0f} min",
                        round(peaks["long"], 1), "MiB", round(peaks["short"], 1),
                        round(peaks["long"] / peaks["short"], 2),
                        f"source {long_bytes / 2**30:.2f} GiB; long file took {long_wall:.0f} s "
                        f"({long_s / long_wall:.0f}x real time) incl. interpreter start"))
        rows.append(_sensor_scan_row(tmp, 2000 if quick else 20000))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def _sensor_scan_row(tmp: Path, n_files: int) -> dict:
    """The sensor's per-upload fingerprint (stat only) vs the inventory (sha256 of every byte), same folder."""
    from vak_pipeline.uploads.inventory import fingerprint, inventory

    up = tmp / "scan" / "many"
    up.mkdir(parents=True)
    blob = b"\0" * 16384
    for i in range(n_files):
        (up / f"f{i:06d}.wav").write_bytes(blob)
    t0 = time.perf_counter()
    fingerprint(up)
    fp_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    inventory(up)
    inv_s = time.perf_counter() - t0
    return row("audio", f"upload_sensor fingerprint of one upload with {n_files} files", round(fp_s * 1000, 1), "ms",
               round(inv_s * 1000, 1), round(fp_s / inv_s, 3),
               "reference: full inventory (sha256) of the same folder; a sensor tick must stay well under 60 s")


if __name__ == "__main__":  # pragma: no cover
    import sys

    for r in run(quick="--quick" in sys.argv):
        print(r)
