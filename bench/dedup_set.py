"""A generated duplicate-detection set: calls spoken by espeak-ng and chats from templates, each with the
variants deliveries produce (positives) and look-alikes that are different conversations (hard negatives).

    python -m bench.dedup_set --out /tmp/dedup --calls 20     # writes the files and pairs.jsonl

Deterministic: the same arguments give the same files. Positives: WAV/FLAC of the same PCM, resampled to 8,
44.1 and 48 kHz, +-3 dB gain, 300 ms trimmed, 400 ms of silence added, MP3 and Ogg re-encodes, the mono mix
of a stereo call, low hiss (-50 dBFS) over everything (every third call has seconds of silence on each
channel between turns); chats re-exported with new ids, timestamps, case, punctuation and whitespace, and one word
edited. Hard negatives: two calls of the same agent voice opening with the same script; two chats from one
template with different customer turns.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

SR = 16000
AGENT = ("en-us+f2", 175, 55, 50)
USERS = [("en-us+m3", 165, 35, 40), ("en-GB-x-rp+m1", 170, 40, 50), ("en-us+m7", 160, 45, 45)]
OPENINGS = ["Thank you for calling Acme support, my name is Dana, how can I help you today?",
            "Hello, you are through to the billing team, this call may be recorded."]
TOPICS = ["my parcel has not arrived and the tracking page has not changed since Monday",
          "I was charged twice for the same order last week", "the router keeps dropping the connection at night",
          "I would like to change the delivery address on my account", "the app crashes when I open my statements",
          "I want to cancel the premium plan before it renews", "the replacement card never came in the post",
          "my meter reading looks far too high this month", "the technician did not turn up this morning",
          "I cannot log in after resetting my password"]
REPLIES = ["I am sorry to hear that, let me look into it for you.", "I can see the order here, one moment please.",
           "Thanks for waiting, I have fixed that now.", "Is there anything else I can help with today?"]
CLOSINGS = ["No, that is everything, thank you.", "That is great, thanks for your help.", "Okay, bye for now."]


def _speak(text: str, voice: tuple[str, int, int, int]) -> np.ndarray:
    from vak_pipeline.synth.espeak import library

    u = library().synth(text, *voice)
    x = u.samples.astype(np.float32) / 32768.0
    return soxr.resample(x, u.rate, SR) if u.rate != SR else x


def render_call(rng: random.Random, opening: str, gap: float = 0.3) -> np.ndarray:
    """A two-channel call: agent on channel 0 with the opening script, a customer on channel 1, `gap` seconds
    of silence around each turn (a long gap leaves each channel silent most of the time)."""
    user = rng.choice(USERS)
    lines = [("agent", opening), ("user", f"Hi, {rng.choice(TOPICS)}."), ("agent", rng.choice(REPLIES)),
             ("user", f"Also {rng.choice(TOPICS)}."), ("agent", rng.choice(REPLIES)), ("user", rng.choice(CLOSINGS))]
    chunks: list[tuple[int, np.ndarray]] = []
    for who, text in lines:
        audio = _speak(text, AGENT if who == "agent" else user)
        chunks.append((0 if who == "agent" else 1, audio))
    total = sum(len(a) for _, a in chunks) + int(gap * SR) * (len(chunks) + 1)
    out = np.zeros((total, 2), dtype=np.float32)
    pos = int(gap * SR)
    for ch, audio in chunks:
        out[pos:pos + len(audio), ch] = audio * 0.8
        pos += len(audio) + int(gap * SR)
    return out


AUDIO_VARIANTS = ("flac", "resample8k", "resample44k", "resample48k", "gain+3", "gain-3", "trim300", "pad400",
                  "mp3", "ogg", "mono", "noise-50")
LONG_GAP = 4.0  # every third bench call: each side silent for seconds while the other talks


def write_variant(x: np.ndarray, kind: str, path_stem: Path) -> Path:
    """`x` (a call at SR) delivered as `kind`; returns the file written."""
    if kind == "flac":
        p = path_stem.with_suffix(".flac")
        sf.write(p, x, SR)
    elif kind.startswith("resample"):
        rate = {"resample8k": 8000, "resample44k": 44100, "resample48k": 48000}[kind]
        p = path_stem.with_suffix(".wav")
        sf.write(p, soxr.resample(x, SR, rate), rate, subtype="PCM_16")
    elif kind.startswith("gain"):
        p = path_stem.with_suffix(".wav")
        sf.write(p, x * 10 ** (int(kind[4:]) / 20), SR, subtype="PCM_16")
    elif kind == "trim300":
        p = path_stem.with_suffix(".wav")
        sf.write(p, x[int(0.3 * SR):], SR, subtype="PCM_16")
    elif kind == "pad400":
        p = path_stem.with_suffix(".wav")
        sf.write(p, np.concatenate([np.zeros((int(0.4 * SR), x.shape[1]), np.float32), x]), SR, subtype="PCM_16")
    elif kind == "mp3":
        p = path_stem.with_suffix(".mp3")
        sf.write(p, x, SR, format="MP3")
    elif kind == "ogg":
        p = path_stem.with_suffix(".ogg")
        sf.write(p, x, SR, format="OGG", subtype="VORBIS")
    elif kind.startswith("noise"):  # a recorder's low hiss (independent per channel) over the silences too
        p = path_stem.with_suffix(".wav")
        noise = np.random.default_rng(len(x)).normal(0.0, 10 ** (int(kind[5:]) / 20), x.shape)
        sf.write(p, x + noise.astype(np.float32), SR, subtype="PCM_16")
    elif kind == "mono":
        p = path_stem.with_suffix(".wav")
        sf.write(p, x.mean(axis=1), SR, subtype="PCM_16")
    else:
        raise ValueError(kind)
    return p


@dataclass
class Pair:
    kind: str  # audio | text
    a: str
    b: str
    same: bool
    variant: str


def make_calls(out: Path, n: int, seed: int = 7) -> Iterator[Pair]:
    """`n` base calls as WAV, each with one or two variant files; every other call shares its agent opening
    with the next (hard negatives); every third has long silences on each channel."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    bases: list[Path] = []
    for i in range(n):
        x = render_call(rng, OPENINGS[(i // 2) % len(OPENINGS)], LONG_GAP if i % 3 == 2 else 0.3)
        base = out / f"call{i:03d}.wav"
        sf.write(base, x, SR, subtype="PCM_16")
        bases.append(base)
        kind = AUDIO_VARIANTS[i % len(AUDIO_VARIANTS)]
        for k in sorted({kind, AUDIO_VARIANTS[(i + 5) % len(AUDIO_VARIANTS)]}):
            yield Pair("audio", str(base), str(write_variant(x, k, out / f"call{i:03d}_{k}")), True, k)
    for i in range(0, n - 1, 2):  # same agent, same opening script, other customer and content
        yield Pair("audio", str(bases[i]), str(bases[i + 1]), False, "same_opening")


def _chat(rng: random.Random, template: int) -> list[dict]:
    t = random.Random(template)
    agent = [OPENINGS[template % 2], t.choice(REPLIES), t.choice(REPLIES)]
    return [{"role": "assistant", "content": agent[0]},
            {"role": "user", "content": f"Hi, {rng.choice(TOPICS)}, order {rng.randint(10000, 99999)}."},
            {"role": "assistant", "content": agent[1]},
            {"role": "user", "content": f"Also {rng.choice(TOPICS)}."},
            {"role": "assistant", "content": agent[2]},
            {"role": "user", "content": rng.choice(CLOSINGS)}]


def re_export(rng: random.Random, messages: list[dict], edit: bool) -> list[dict]:
    """The same chat as a CRM re-export writes it: other case, spacing, punctuation, numbers; maybe an edit."""
    out = []
    for m in messages:
        text = m["content"]
        text = text.upper() if rng.random() < 0.3 else text
        text = "  ".join(text.split()) if rng.random() < 0.5 else text.replace(",", " ,")
        text = "".join(str(rng.randint(0, 9)) if c.isdigit() else c for c in text)
        out.append({"role": m["role"], "content": text})
    if edit:
        i = rng.randrange(len(out))
        words = out[i]["content"].split()
        words[rng.randrange(len(words))] = "actually"
        out[i] = {"role": out[i]["role"], "content": " ".join(words)}
    return out


def make_chats(n: int, seed: int = 11) -> Iterator[tuple[str, list[dict], str, list[dict], bool, str]]:
    """(id a, messages a, id b, messages b, same, variant): one re-export and one look-alike per chat."""
    rng = random.Random(seed)
    for i in range(n):
        base = _chat(rng, i % 4)
        yield f"chat{i:04d}", base, f"crm-{rng.randint(10**8, 10**9)}", re_export(rng, base, edit=i % 2 == 1), \
            True, "re-export+edit" if i % 2 else "re-export"
        yield f"chat{i:04d}", base, f"chat{i:04d}-other", _chat(rng, i % 4), False, "same_template"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--chats", type=int, default=100)
    args = ap.parse_args()
    with (args.out / "pairs.jsonl").open("w") if args.out.mkdir(parents=True, exist_ok=True) is None else None as f:
        for p in make_calls(args.out / "calls", args.calls):
            f.write(json.dumps(p.__dict__) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
