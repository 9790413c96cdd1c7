"""How faster-whisper tiny.en writes spoken cue phrases ("zip code", "pin code", "my phone number is").

Why: a cue that ASR garbles ("lip code", "been coded") no longer names the digits after it. The ASR
renderings of the zip and pin cues in the en-US and en-IN pack files come from this script's output,
bench/data/asr_cue_renderings.jsonl (beside this file): the rows of seed 7 chose the entries, seed 8 was held out to
measure them (docs/locale-packs.md, "Cues as ASR writes them").

Each phrase (its own wording, not bench/'s) is said by espeak-ng in 8 English voices at a random rate
and pitch; half the renderings go through a telephone band (8 kHz, 300-3400 Hz, mu-law, a little
noise); the bundled tiny.en transcribes each. Needs the Debian `espeak-ng` binary.

    python bench/data/make_asr_cue_renderings.py --seed 7 >> bench/data/asr_cue_renderings.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import tempfile
from pathlib import Path

import numpy as np

DIGITS = "zero one two three four five six seven eight nine".split()
PHRASES = [
    ("zip", "the zip code here is {d5}"), ("zip", "zip code {d5}"), ("zip", "okay so my zip is {d5}"),
    ("zip", "uh the zip code would be {d5}"), ("zip", "it is zip code {d5} in Ohio"),
    ("zip", "billing zip code, {d5}"), ("zip", "my zipcode is {d5} thanks"),
    ("postal", "the postal code is {d5}"),
    ("pin", "my pin code is {d6}"), ("pin", "pin code {d6}"), ("pin", "area pin code is {d6}"),
    ("pin", "the pincode is {d6} only"), ("pin", "pin code of my area is {d6}"),
    ("phone", "my phone number is {d10}"), ("phone", "you can call me on {d10}"),
    ("card", "the credit card is {d16}"),
]
VOICES = ["en-us", "en-gb", "en-gb-x-rp", "en-gb-scotland", "en-029", "en-us-nyc", "en-gb-x-gbcwmd", "en-gb-x-gbclan"]


def tts(text: str, voice: str, wpm: int, pitch: int) -> np.ndarray:
    import soundfile as sf
    import soxr

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "a.wav"
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(wpm), "-p", str(pitch), "-w", str(path), text],
                       check=True, capture_output=True)
        audio, sr = sf.read(path, dtype="float32")
    return soxr.resample(audio, sr, 16000).astype(np.float32) * 0.8


def phone_band(x: np.ndarray, rng: random.Random) -> np.ndarray:
    """8 kHz, 300-3400 Hz band, 8-bit mu-law, a little noise: what a telephone line leaves of the voice."""
    import soxr
    from scipy.signal import butter, sosfilt

    y = soxr.resample(x, 16000, 8000)
    y = sosfilt(butter(4, [300, 3400], btype="band", fs=8000, output="sos"), y)
    y = np.sign(y) * np.log1p(255 * np.abs(np.clip(y, -1, 1))) / np.log1p(255)
    y = np.round(y * 127) / 127
    y = np.sign(y) * ((1 + 255) ** np.abs(y) - 1) / 255
    rng.gauss(0, 1)  # an unused draw, kept so that the committed rows come out again from their seeds
    y = y + np.random.default_rng(rng.randrange(1 << 30)).normal(0, 0.004, y.shape)
    return soxr.resample(y.astype(np.float32), 8000, 16000).astype(np.float32)


def main() -> None:
    from vak_pipeline.speech.asr import AsrSettings, Transcriber

    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--voices", type=int, default=len(VOICES), help="the first N voices only (a quick look)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    asr = Transcriber(AsrSettings(cpu_threads=2))
    for kind, phrase in PHRASES:
        for voice in VOICES[:args.voices]:
            text = phrase.format(**{f"d{n}": " ".join(rng.choice(DIGITS) for _ in range(n)) for n in (5, 6, 10, 16)})
            x = tts(text, voice, rng.choice([130, 145, 160, 175]), rng.choice([35, 50, 65]))
            band = rng.random() < 0.5
            if band:
                x = phone_band(x, rng)
            pad = np.zeros(4000, np.float32)
            heard = " ".join(s.text for s in asr.transcribe_channel(np.concatenate([pad, x, pad])))
            print(json.dumps(dict(seed=args.seed, kind=kind, voice=voice, band=band, said=text, heard=heard)),
                  flush=True)


if __name__ == "__main__":
    main()
