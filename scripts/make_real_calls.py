"""Build telephone-like test calls with espeak-ng: cross-talk, line noise, holds, backchannels, mu-law, mono mixes.

    python scripts/make_real_calls.py            # writes vak_pipeline_tests/fixtures/realcalls/
    python scripts/make_real_calls.py --check    # prints what would be written, writes nothing

Why: studio TTS calls whose channels never hear each other hide the failures of real contact-centre
audio (issue 15). Each call here is built from a script (who says what, when) and then damaged the
way phone lines damage it:
- cross-talk: each channel also carries the other side, `leak_db` quieter and `lag_ms` late (a headset
  hearing the line), -30..-10 dB and 0..50 ms across the set;
- telephone band (300-3400 Hz), 8 kHz, seeded line noise and mains hum;
- backchannels ("mm-hm", "okay", "haan") said over the other speaker, and a real interruption with
  different words (a true overlap);
- a hold: music on the agent channel and silence on the customer channel for several seconds;
- stored as Ogg Vorbis (lossy, like most call archives), one call as 8 kHz mu-law WAV (the usual PBX
  export) and one as A-law;
- a mono mix of every stereo call with its reference speaker timeline (RTTM).

Needs the Debian tools espeak-ng (apt-get install espeak-ng) and numpy/soundfile/soxr/scipy. Tests
only read the committed outputs. Deterministic: espeak-ng is, and every noise source is seeded.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr
from scipy import signal

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "vak_pipeline_tests" / "fixtures" / "realcalls"
SR = 8000
TTS_SR = 16000
OGG_LEVEL = 0.6  # Vorbis compression (0 best quality .. 1 smallest): keeps the committed fixtures small
VOICES = {  # voice, words per minute, pitch (two different voices per call: diarization must tell them apart)
    "agent_f": ("en-us+f2", 175, 60),
    "agent_m": ("en-gb+m1", 165, 45),
    "user_m": ("en-us+m3", 170, 35),
    "user_f": ("en-gb+f4", 170, 70),
}


@dataclass
class Line:
    speaker: str  # "agent" | "user"
    text: str
    gap: float = 0.45  # silence before this line (negative: starts before the previous main line ends)
    over: float | None = None  # a backchannel: starts at this fraction of the previous main line, timeline unchanged


@dataclass
class Call:
    name: str
    voices: tuple[str, str]  # agent voice key, user voice key
    lines: list[Line]
    leak_db: float | None = -16.0  # other channel's level in this channel (None = no cross-talk)
    lag_ms: float = 12.0
    noise_dbfs: float = -62.0
    hold_s: float = 0.0  # hold after the line whose text ends with "hold." (music on agent, silence on user)
    channel_map: dict[str, str] = field(default_factory=lambda: {"0": "agent", "1": "user"})
    subtype: str = "VORBIS"  # stored as: VORBIS (OGG, lossy like most call archives), ULAW or ALAW (WAV)
    mono: bool = True  # also write a mono mix with RTTM
    seed: int = 0


def tts(text: str, voice: tuple[str, int, int]) -> np.ndarray:
    """espeak-ng speech of `text` at TTS_SR, trimmed of leading/trailing silence."""
    name, wpm, pitch = voice
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t.wav"
        subprocess.run(
            ["espeak-ng", "-v", name, "-s", str(wpm), "-p", str(pitch), "-w", str(out), text],
            check=True,
            capture_output=True,
        )
        audio, in_sr = sf.read(out, dtype="float32")
    if audio.ndim > 1:
        audio = audio.mean(axis=1)
    audio = soxr.resample(audio, in_sr, TTS_SR) if in_sr != TTS_SR else audio
    idx = np.flatnonzero(np.abs(audio) > 0.01)
    if idx.size:
        audio = audio[max(idx[0] - int(0.02 * TTS_SR), 0) : idx[-1] + int(0.05 * TTS_SR)]
    return audio.astype(np.float32)


def telephone(x: np.ndarray) -> np.ndarray:
    """300-3400 Hz band at 8 kHz: what a phone line keeps of a voice."""
    y = soxr.resample(x, TTS_SR, SR)
    sos = signal.butter(4, [300, 3400], btype="bandpass", fs=SR, output="sos")
    return signal.sosfilt(sos, y).astype(np.float32)


def hold_music(seconds: float, rng: np.random.Generator) -> np.ndarray:
    """Synthetic hold music: a slow chord progression of soft square-ish tones, phone band, about -22 dBFS."""
    t = np.arange(int(seconds * SR)) / SR
    out = np.zeros_like(t)
    chords = [(261.6, 329.6, 392.0), (220.0, 261.6, 329.6), (174.6, 220.0, 261.6), (196.0, 246.9, 293.7)]
    beat = 0.5
    for i in range(int(seconds / beat) + 1):
        a, b = int(i * beat * SR), int(min((i + 1) * beat, seconds) * SR)
        if a >= b:
            break
        tt = t[a:b] - t[a]
        env = np.exp(-3.0 * tt)
        for f in chords[(i // 4) % len(chords)]:
            out[a:b] += env * (np.sin(2 * np.pi * f * tt) + 0.3 * np.sin(2 * np.pi * 3 * f * tt))
    sos = signal.butter(4, [300, 3400], btype="bandpass", fs=SR, output="sos")
    out = signal.sosfilt(sos, out)
    out *= 10 ** (-22 / 20) / (np.sqrt(np.mean(out**2)) + 1e-9)
    return out.astype(np.float32)


def line_noise(n: int, dbfs: float, rng: np.random.Generator) -> np.ndarray:
    """Band-limited hiss plus faint 150 Hz hum (a harmonic of the mains that survives the phone band)."""
    hiss = rng.standard_normal(n)
    sos = signal.butter(2, [200, 3600], btype="bandpass", fs=SR, output="sos")
    hiss = signal.sosfilt(sos, hiss)
    hiss *= 10 ** (dbfs / 20) / (np.sqrt(np.mean(hiss**2)) + 1e-12)
    hum = 10 ** ((dbfs - 6) / 20) * np.sqrt(2) * np.sin(2 * np.pi * 150 * np.arange(n) / SR)
    return (hiss + hum).astype(np.float32)


def delay(x: np.ndarray, seconds: float) -> np.ndarray:
    k = int(round(seconds * SR))
    return np.concatenate([np.zeros(k, dtype=x.dtype), x[: len(x) - k]]) if k else x


def render(call: Call) -> tuple[np.ndarray, dict]:
    """(frames x 2 float32 at 8 kHz, reference) for one call."""
    rng = np.random.default_rng(call.seed)
    voice = {"agent": VOICES[call.voices[0]], "user": VOICES[call.voices[1]]}
    ch_of = {role: int(ch) for ch, role in call.channel_map.items()}
    placed: list[tuple[float, str, np.ndarray, Line]] = []
    t, prev_main = 0.4, None
    holds: list[dict] = []
    for ln in call.lines:
        audio = telephone(tts(ln.text, voice[ln.speaker]))
        if ln.over is not None and prev_main is not None:
            p_start, p_len = prev_main
            start = p_start + ln.over * p_len
        else:
            start = max(t + ln.gap, 0.0) if placed else t
            prev_main = (start, len(audio) / SR)
            t = max(t, start + len(audio) / SR)
        placed.append((start, ln.speaker, audio, ln))
        if call.hold_s and ln.text.endswith("hold."):
            holds.append({"start": round(t + 0.3, 3), "end": round(t + 0.3 + call.hold_s, 3)})
            t += call.hold_s + 0.6
    total = int((t + 0.5) * SR)
    clean = np.zeros((total, 2), dtype=np.float32)
    turns = []
    for start, spk, audio, ln in placed:
        i = int(round(start * SR))
        clean[i : i + len(audio), ch_of[spk]] += 0.5 * audio / (np.abs(audio).max() + 1e-9)
        kind = "backchannel" if ln.over is not None else ("interruption" if ln.gap < 0 else "line")
        turns.append(
            {
                "speaker": spk,
                "channel": ch_of[spk],
                "start": round(start, 3),
                "end": round(start + len(audio) / SR, 3),
                "text": ln.text,
                "kind": kind,
            }
        )
    no_speech = []
    for h in holds:  # music on the agent side, nothing but the line on the customer side
        a, b = int(h["start"] * SR), int(h["end"] * SR)
        clean[a:b, ch_of["agent"]] += hold_music((b - a) / SR, rng)
        no_speech += [
            h | {"channel": ch_of["agent"], "kind": "hold_music"},
            h | {"channel": ch_of["user"], "kind": "silence"},
        ]
    out = clean.copy()
    if call.leak_db is not None:
        g = 10 ** (call.leak_db / 20)
        out[:, 0] += g * delay(clean[:, 1], call.lag_ms / 1000)
        out[:, 1] += g * delay(clean[:, 0], call.lag_ms / 1000)
    for ch in range(2):
        out[:, ch] += line_noise(total, call.noise_dbfs, rng)
    ref = {
        "file": f"{call.name}.{'ogg' if call.subtype == 'VORBIS' else 'wav'}",
        "sample_rate": SR,
        "channels": 2,
        "subtype": call.subtype,
        "channel_map": call.channel_map,
        "duration_s": round(total / SR, 3),
        "crosstalk": {"leak_db": call.leak_db, "lag_ms": call.lag_ms if call.leak_db is not None else None},
        "noise_dbfs": call.noise_dbfs,
        "voices": {k: v[0] for k, v in voice.items()},
        "turns": sorted(turns, key=lambda r: r["start"]),
        "no_speech": no_speech,
    }
    return np.clip(out, -1.0, 1.0), ref


def mono_mix(stereo: np.ndarray) -> np.ndarray:
    """What a mono recorder of the same line hears: both sides summed (each side's echo included)."""
    return np.clip(0.7 * stereo.sum(axis=1), -1.0, 1.0).astype(np.float32)


def rttm(uri: str, turns: list[dict]) -> str:
    return "".join(
        f"SPEAKER {uri} 1 {t['start']:.3f} {t['end'] - t['start']:.3f} <NA> <NA> {t['speaker']} <NA> <NA>\n"
        for t in turns
    )


CALLS = [
    Call(
        "xtalk_16db",
        ("agent_f", "user_m"),
        leak_db=-16.0,
        lag_ms=12.0,
        seed=1,
        lines=[
            Line("agent", "Thank you for calling Northwind Energy, this is Maya. How can I help you today?"),
            Line("user", "Hi, my heating has been making a loud noise since Monday morning."),
            Line("agent", "I am sorry about that. Does the noise come back every few minutes or only at night?"),
            Line("user", "mm-hm", over=0.35),
            Line("user", "Yes, every few minutes."),
            Line("agent", "Then I will send an engineer on Thursday between eight and twelve."),
            Line("user", "Wait, could it be Friday instead?", gap=-1.2),
            Line("agent", "Friday works too. You will get a text message tomorrow."),
        ],
    ),
    Call(
        "xtalk_10db",
        ("agent_m", "user_f"),
        leak_db=-10.0,
        lag_ms=50.0,
        seed=2,
        channel_map={"0": "user", "1": "agent"},
        lines=[
            Line("agent", "Good morning, you are through to the parcel desk. What is the tracking number?"),
            Line("user", "It is seven four two one, and the parcel never arrived."),
            Line("agent", "Let me look that up. The driver marked it as delivered yesterday at four."),
            Line("user", "okay", over=0.5),
            Line("user", "Nobody was home yesterday, so that cannot be right."),
            Line("agent", "Understood, I will open a claim and call you back."),
            Line("user", "haan", over=0.6),
        ],
    ),
    Call(
        "xtalk_30db",
        ("agent_f", "user_f"),
        leak_db=-30.0,
        lag_ms=0.0,
        seed=3,
        lines=[
            Line("agent", "Hello, this is the bank's card team. Are you calling about a blocked card?"),
            Line("user", "Yes, my card was declined at the shop this afternoon."),
            Line("agent", "I can see a security block. I will remove it now."),
            Line("user", "Thank you, that is a relief.", gap=-0.6),
        ],
    ),
    Call(
        "hold_music",
        ("agent_m", "user_m"),
        leak_db=-20.0,
        lag_ms=25.0,
        hold_s=9.0,
        seed=4,
        mono=False,
        lines=[
            Line("agent", "Thanks for calling, I need to check your account, please stay on the line and hold."),
            Line("agent", "Thank you for waiting. Your refund was approved this morning."),
            Line("user", "Great, how long until it shows up?"),
            Line("agent", "About three working days."),
        ],
    ),
    Call(
        "ulaw_call",
        ("agent_f", "user_m"),
        leak_db=-18.0,
        lag_ms=8.0,
        subtype="ULAW",
        seed=5,
        mono=False,
        lines=[
            Line("agent", "Water services, how can I help?"),
            Line("user", "There is no water pressure in my kitchen since this morning."),
            Line("agent", "We are repairing a main on your street. It should be back by six."),
        ],
    ),
    Call(
        "alaw_call",
        ("agent_m", "user_f"),
        leak_db=None,
        noise_dbfs=-58.0,
        subtype="ALAW",
        seed=6,
        mono=False,
        lines=[
            Line("agent", "Library renewals, good afternoon."),
            Line("user", "I would like to renew two books please."),
        ],
    ),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="print what would be written, write nothing")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    total = 0
    for call in CALLS:
        audio, ref = render(call)
        written = []
        if not args.check:
            if call.subtype == "VORBIS":
                sf.write(args.out / ref["file"], audio, SR, subtype="VORBIS", format="OGG", compression_level=OGG_LEVEL)
            else:
                sf.write(args.out / ref["file"], audio, SR, subtype=call.subtype, format="WAV")
            written.append(args.out / ref["file"])
            if call.mono:
                ref["mono"] = {"file": f"{call.name}.mono.ogg", "rttm": f"{call.name}.mono.rttm"}
                sf.write(
                    args.out / ref["mono"]["file"],
                    mono_mix(audio),
                    SR,
                    subtype="VORBIS",
                    format="OGG",
                    compression_level=OGG_LEVEL,
                )
                (args.out / ref["mono"]["rttm"]).write_text(rttm(f"{call.name}.mono", ref["turns"]), encoding="utf-8")
                written += [args.out / ref["mono"]["file"], args.out / ref["mono"]["rttm"]]
            path = args.out / f"{call.name}.json"
            path.write_text(json.dumps(ref, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            written.append(path)
        size = sum(p.stat().st_size for p in written)
        total += size
        print(f"{call.name}: {ref['duration_s']:.1f} s, {len(ref['turns'])} turns, {size / 1024:.0f} KiB")
    print(f"total {total / 1024:.0f} KiB in {args.out}")


if __name__ == "__main__":
    main()
