"""Audio fixtures for the ingest tests, generated on the fly with numpy + soundfile (no committed binaries)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

UPLOAD_YAML = """\
locale: en-US
source: real
consent: recorded_verbal
consent_ref: CR-1
channel_map: {"0": "user", "1": "agent"}
"""


def speechlike(seconds: float, rate: int, channels: int = 2, seed: int = 0, level: float = 0.2) -> np.ndarray:
    """Noise bursts (0.4 s on, 0.6 s off, alternating channels) over a quiet floor: something a VAD can find."""
    rng = np.random.default_rng(seed)
    n = int(seconds * rate)
    t = np.arange(n) / rate
    x = rng.standard_normal((n, channels)).astype(np.float32) * 0.001
    for ch in range(channels):
        on = ((t + ch * 0.5) % 1.0) < 0.4
        x[on, ch] += level * rng.standard_normal(int(on.sum())).astype(np.float32)
    return np.clip(x, -1, 1)


def write_wav(path: Path, seconds: float = 2.0, rate: int = 44100, channels: int = 2, seed: int = 0,
              data: np.ndarray | None = None, **kw) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(path), speechlike(seconds, rate, channels, seed) if data is None else data, rate, **kw)
    return path


def truncate(path: Path, keep: float = 0.5) -> Path:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


def make_upload(root: Path, name: str = "up1", yaml_text: str = UPLOAD_YAML, csv_text: str | None = None) -> Path:
    up = root / "raw" / name
    up.mkdir(parents=True, exist_ok=True)
    (up / "upload.yaml").write_text(yaml_text, encoding="utf-8")
    if csv_text is not None:
        (up / "recordings.csv").write_text(csv_text, encoding="utf-8")
    return up
