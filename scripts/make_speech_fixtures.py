"""Build the shipped sample upload and the speech test fixtures with espeak-ng (two voices).

    python scripts/make_speech_fixtures.py            # writes data/raw/sample-calls/ and test fixtures
    python scripts/make_speech_fixtures.py --check    # only prints what would be written and sizes

Why TTS: real calls cannot be committed, yet the speech stage must be tested end to end on audio
whose words are known. espeak-ng is deterministic, so re-running this script reproduces the same
files. Each call is written with its script (who said what, when) so tests can score WER.

Audio is kept small: 16 kHz (one 8 kHz mono "phone" WAV), FLAC for the stereo calls (a channel is
silent while the other speaks, which FLAC compresses well).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_UPLOAD = ROOT / "data" / "raw" / "sample-calls"
TEST_FIXTURES = ROOT / "vak_pipeline_tests" / "fixtures" / "speech"

AGENT_VOICE = ("en-us+f2", 180, 60)  # voice, words per minute, pitch
USER_VOICE = ("en-us+m3", 170, 35)


@dataclass
class Line:
    speaker: str  # "agent" | "user"
    text: str
    gap: float = 0.4  # seconds of silence before this line starts (negative: overlaps the previous line)


def tts(text: str, voice: tuple[str, int, int], sr: int) -> np.ndarray:
    """Speak `text` with espeak-ng and return float32 mono at `sr`."""
    name, wpm, pitch = voice
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t.wav"
        subprocess.run(["espeak-ng", "-v", name, "-s", str(wpm), "-p", str(pitch), "-w", str(out), text],
                       check=True, capture_output=True)
        audio, in_sr = sf.read(out, dtype="float32")
    if audio.ndim > 1:
        audio = audio.mean(axis=1)
    audio = soxr.resample(audio, in_sr, sr) if in_sr != sr else audio
    # trim espeak's leading/trailing near-silence so script times match the speech
    idx = np.flatnonzero(np.abs(audio) > 0.01)
    if idx.size:
        audio = audio[max(idx[0] - int(0.02 * sr), 0): idx[-1] + int(0.05 * sr)]
    return (audio * 0.8).astype(np.float32)


def render(lines: list[Line], sr: int, channel_map: dict[str, str] | None) -> tuple[np.ndarray, list[dict]]:
    """Place each line on a timeline. Stereo when `channel_map` is given, else one mixed channel."""
    pieces = []
    t = 0.3
    prev_end = 0.0
    script = []
    for ln in lines:
        voice = AGENT_VOICE if ln.speaker == "agent" else USER_VOICE
        audio = tts(ln.text, voice, sr)
        start = max(prev_end + ln.gap, 0.0) if script else t
        end = start + len(audio) / sr
        pieces.append((start, ln.speaker, audio))
        script.append({"speaker": ln.speaker, "start": round(start, 3), "end": round(end, 3), "text": ln.text,
                       "voice": voice[0]})
        prev_end = end
    total = int((prev_end + 0.4) * sr)
    if channel_map:
        ch_of = {role: int(ch) for ch, role in channel_map.items()}
        out = np.zeros((total, 2), dtype=np.float32)
        for (start, spk, audio), row in zip(pieces, script, strict=True):
            i = int(start * sr)
            out[i:i + len(audio), ch_of[spk]] += audio
            row["channel"] = ch_of[spk]
    else:
        out = np.zeros(total, dtype=np.float32)
        for start, _spk, audio in pieces:
            i = int(start * sr)
            out[i:i + len(audio)] += audio
    return np.clip(out, -1.0, 1.0), script


CALLS: dict[str, dict] = {
    "call_001": {
        "channel_map": {"0": "agent", "1": "user"}, "sr": 16000, "ext": "flac",
        "lines": [
            Line("agent", "Thank you for calling SunCare Solar support, this is Anjali. How can I help you today?"),
            Line("user", "Hi, my name is Rahul Verma. My inverter stopped working yesterday.", 0.5),
            Line("agent", "I am sorry to hear that. Can I have the phone number on your account?", 0.4),
            Line("user", "Sure, it is nine eight seven six five four three two one zero.", 0.5),
            Line("agent", "Thank you. I have booked a technician for tomorrow morning.", 0.4),
            Line("user", "Great, thanks a lot.", 0.3),
        ],
    },
    "call_002": {
        "channel_map": {"0": "user", "1": "agent"}, "sr": 16000, "ext": "flac",
        "lines": [
            Line("agent", "Namaste, SunCare Solar se Anjali bol rahi hoon. How can I help you?"),
            Line("user", "Haan ji, mera inverter kal se off hai. Please check karo.", 0.4),
            Line("agent", "Ek minute, main check karti hoon. Aapka email kya hai?", 0.5),
            Line("user", "Email hai priya dot sharma at example dot com.", 0.4),
            Line("agent", "Theek hai, technician kal subah aayega.", 0.5),
            Line("user", "Nahi, bas itna hi. Thank you so much.", 0.3),
        ],
    },
    "call_003": {
        "channel_map": {"0": "user", "1": "agent"}, "sr": 16000, "ext": "flac",
        "lines": [
            Line("agent", "Good afternoon, SunCare Solar, Anjali speaking."),
            Line("user", "Hello, I want to check the status of my installation. My customer number is four four "
                         "seven one.", 0.4),
            Line("agent", "One moment please, let me look that up.", 0.4),
            Line("agent", "Your installation is complete and the system was inspected on the second of June.", 1.0),
            Line("user", "Okay, perfect.", -0.4),
            Line("user", "Thank you, goodbye.", 0.4),
        ],
        # tool call right after "let me look that up" (line 2), result 0.3 s later
        "events_after_line": 2,
        "events": [
            {"tool_call": {"id": "call_1", "name": "check_status", "arguments": {"customer_id": "4471"}}},
            {"tool_result": {"id": "call_1", "content": {"status": "complete", "last_service": "2026-06-02"}}},
        ],
    },
    "call_004": {
        "channel_map": None, "sr": 8000, "ext": "wav",
        "lines": [
            Line("agent", "Hello, you have reached SunCare Solar billing. How can I help?"),
            Line("user", "I was charged twice on my last bill.", 0.5),
            Line("agent", "I can see the duplicate charge. I will refund it today.", 0.5),
            Line("user", "Thank you very much.", 0.4),
        ],
    },
}

TEST_CALLS: dict[str, dict] = {
    "stereo_two_voices": {
        "channel_map": {"0": "user", "1": "agent"}, "sr": 16000, "ext": "flac",
        "lines": [
            Line("agent", "Good morning, thank you for calling. How can I help you today?"),
            Line("user", "Hello, I would like to check my order status please.", 0.4),
            Line("agent", "Of course. Your order was shipped this morning.", 0.5),
            Line("user", "Thank you very much.", 0.4),
        ],
    },
    "mono_two_voices": {
        "channel_map": None, "sr": 16000, "ext": "flac",
        "lines": [
            Line("agent", "Good evening, this is the support desk. What can I do for you?"),
            Line("user", "My internet connection is not working since this morning.", 0.6),
            Line("agent", "I am sorry about that. I will restart your line now.", 0.6),
        ],
    },
}

UPLOAD_YAML = """\
# Sample upload: four synthetic-voice calls (espeak-ng) standing in for real call-centre recordings.
# Built by scripts/make_speech_fixtures.py. Treated as `source: real` on purpose, so the privacy stage
# has planted fake PII (phone spoken as digits, a spelled email, a name) to find and redact.
locale: en-IN
source: real
consent: recorded_verbal
consent_ref: policy-v3-2026
voice_consent_ref: voice-consent-v1-2026
license: proprietary-internal
condition: phone
domain: field_service_support
scenario: inverter_fault
system_prompt: >-
  You are Anjali from SunCare Solar support. Verify the customer, check the installation status and book a
  technician visit if needed. Speak Hinglish if the customer does.
channel_map: {"0": "agent", "1": "user"}
agent_speaker_hint: first
speakers: {"agent": "anjali"}
tools:
  - name: check_status
    description: Look up the current status of a customer's installation
    parameters:
      type: object
      properties: {customer_id: {type: string}}
      required: [customer_id]
  - name: book_appointment
    description: Book a technician visit
    parameters:
      type: object
      properties:
        customer_id: {type: string}
        date: {type: string, format: date}
        slot: {type: string, enum: [morning, afternoon]}
      required: [customer_id, date, slot]
"""

RECORDINGS_CSV = """\
file,conv_id,channel_map,user_speaker,scenario,names
call_001.flac,sample_call_001,"{""0"": ""agent"", ""1"": ""user""}",cust-rahul,inverter_fault,"[""Rahul Verma""]"
call_002.flac,sample_call_002,"{""0"": ""user"", ""1"": ""agent""}",cust-priya,inverter_fault,"[""Priya Sharma""]"
call_003.flac,sample_call_003,"{""0"": ""user"", ""1"": ""agent""}",cust-4471,check_status,
call_004.wav,sample_call_004,,cust-billing-9,billing_refund,
"""


def write_call(name: str, spec: dict, out_dir: Path, with_script: bool) -> list[Path]:
    audio, script = render(spec["lines"], spec["sr"], spec["channel_map"])
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.{spec['ext']}"
    sf.write(path, audio, spec["sr"], subtype="PCM_16", format=spec["ext"].upper())
    written = [path]
    if "events" in spec:
        t = script[spec["events_after_line"]]["end"] + 0.1
        ev_path = out_dir / f"{name}.events.jsonl"
        with open(ev_path, "w", encoding="utf-8") as fh:
            for k, ev in enumerate(spec["events"]):
                fh.write(json.dumps({"t": round(t + 0.3 * k, 3), **ev}) + "\n")
        written.append(ev_path)
    if with_script:
        meta = {"file": path.name, "sample_rate": spec["sr"], "channels": 2 if spec["channel_map"] else 1,
                "channel_map": spec["channel_map"], "duration_s": round(len(audio) / spec["sr"], 3),
                "turns": script}
        sp = out_dir / f"{name}.script.json"
        sp.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        written.append(sp)
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="build into a temp dir and print sizes only")
    args = ap.parse_args()
    if not shutil.which("espeak-ng"):
        raise SystemExit("espeak-ng is not installed (apt-get install espeak-ng)")
    tmp = Path(tempfile.mkdtemp()) if args.check else None
    upload = (tmp / "sample-calls") if tmp else SAMPLE_UPLOAD
    fixtures = (tmp / "speech") if tmp else TEST_FIXTURES
    written: list[Path] = []
    for name, spec in CALLS.items():
        written += write_call(name, spec, upload, with_script=False)
    for name, spec in TEST_CALLS.items():
        written += write_call(name, spec, fixtures, with_script=True)
    (upload / "upload.yaml").write_text(UPLOAD_YAML, encoding="utf-8")
    (upload / "recordings.csv").write_text(RECORDINGS_CSV, encoding="utf-8")
    audio_bytes = sum(p.stat().st_size for p in written if p.suffix in (".wav", ".flac"))
    for p in written:
        print(f"{p.stat().st_size:>9}  {p}")
    print(f"audio total: {audio_bytes / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
