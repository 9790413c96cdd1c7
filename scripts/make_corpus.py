"""Generate a benchmark corpus: stereo call-centre calls spoken by espeak-ng plus chat conversations.

    python scripts/make_corpus.py OUT --calls 200 --texts 100000            # OUT/raw/corpus-calls, corpus-chats
    python scripts/make_corpus.py OUT --calls 1 --texts 1000 --upload delta  # one more upload (both kinds)

Why generated: real calls cannot be shipped, yet the pipeline must be measured end to end on audio
whose length, speakers and PII are realistic. Each call is two voices (agent and customer) on separate
channels, scripted from random call-centre lines (greeting, verification, the issue, resolution,
goodbye) with fake PII planted in them: a customer name, a phone number read out as digits, an
email spelled out, an account number. Chats are `*.messages.jsonl` (OpenAI chat format), some with a
tool call and some with a phone number or email in them. Everything is deterministic for a given seed.
Output is large (about 150 MB of FLAC per 200 calls): write it outside the repository.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

RATE = 16_000
AGENT_VOICES = [("en-us+f2", 180, 60), ("en-us+f4", 175, 55), ("en-us+m1", 170, 45)]
USER_VOICES = [("en-us+m3", 170, 35), ("en-us+f3", 165, 50), ("en-us+m7", 175, 40)]
COMPANY = ["Northwind Energy", "Bluewater Telecom", "Summit Home Insurance", "Clearpath Broadband"]
AGENTS = ["Sarah", "Daniel", "Maria", "James", "Olivia", "Ethan", "Grace", "Lucas", "Emma", "Noah"]
FIRST = ["Robert", "Linda", "Michael", "Susan", "David", "Karen", "Thomas", "Nancy", "Kevin", "Laura", "Brian",
         "Angela", "George", "Helen", "Steven", "Rachel", "Paul", "Megan", "Mark", "Julia"]
LAST = ["Johnson", "Miller", "Garcia", "Anderson", "Thompson", "Martinez", "Robinson", "Walker", "Young", "Hughes",
        "Bennett", "Foster", "Sullivan", "Reed", "Porter"]
DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
ISSUES = {
    "billing": ("my last bill, it is much higher than usual", [
        "I can see the bill. It includes an estimated reading from last month.",
        "If you give me a meter reading now, I can correct the estimate.",
        "I have corrected it. The new amount will show on your account within two days."]),
    "outage": ("a power cut at my house since this morning", [
        "I am sorry about that. Let me check for any faults in your area.",
        "There is a known fault on your street and engineers are on site.",
        "The expected restore time is around four this afternoon."]),
    "move": ("moving house next month and I need to move my account", [
        "Congratulations on the move. What date do you get the keys?",
        "I will close the old account on that date and open the new one the same day.",
        "You will get a confirmation by email within the hour."]),
    "refund": ("a double charge on my card this month", [
        "Let me look at the payments. Yes, I can see two payments on the same day.",
        "I have raised a refund for the second payment.",
        "It usually takes three to five working days to reach your card."]),
    "plan": ("setting up a payment plan because money is tight right now", [
        "Of course. We can spread the balance over six or twelve months.",
        "Six months would be about forty dollars a month on top of your usual payment.",
        "I have set that up. The first payment goes out on the first of next month."]),
}
FILLER_USER = ["Okay, that makes sense.", "Right, thank you.", "Sorry, could you say that again?",
               "Is there anything I need to do on my side?", "That is a relief, thanks."]
FILLER_AGENT = ["No problem at all.", "Bear with me one moment while I check that.",
                "Thank you for your patience.", "Let me just note that on your account."]


def spoken_digits(digits: str) -> str:
    return " ".join(DIGITS[int(d)] for d in digits)


def call_script(rnd: random.Random) -> tuple[list[tuple[str, str]], dict]:
    """(speaker, text) lines of one call and what was planted in it."""
    first, last = rnd.choice(FIRST), rnd.choice(LAST)
    agent = rnd.choice(AGENTS)
    phone = "555" + "".join(str(rnd.randrange(10)) for _ in range(7))
    account = "".join(str(rnd.randrange(10)) for _ in range(8))
    key = rnd.choice(sorted(ISSUES))
    issue, answers = ISSUES[key]
    lines = [("agent", f"{rnd.choice(COMPANY)}, {agent} speaking. How can I help?"),
             ("user", f"Hi, I am calling about {issue}."),
             ("agent", "Sure. Can I take your full name please?"),
             ("user", f"{first} {last}."),
             ("agent", "And the phone number on the account?"),
             ("user", f"It is {spoken_digits(phone)}.")]
    if rnd.random() < 0.5:
        lines += [("agent", "And could you confirm the email address we have for you?"),
                  ("user", f"Sure, it is {first.lower()} dot {last.lower()} at example dot com.")]
    else:
        lines += [("agent", "Could you read me your account number from the top of the bill?"),
                  ("user", f"The account number is {spoken_digits(account)}.")]
    for ans in rnd.sample(answers, 2):
        lines.append(("agent", ans))
        if rnd.random() < 0.3:
            lines.append(("user", rnd.choice(FILLER_USER)))
    lines += [("user", "That is everything, thanks."), ("agent", f"You are welcome, {first}. Goodbye.")]
    return lines, {"scenario": key, "names": [f"{first} {last}"], "agent": agent}


def tts(text: str, voice: tuple[str, int, int]) -> np.ndarray:
    name, wpm, pitch = voice
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t.wav"
        subprocess.run(["espeak-ng", "-v", name, "-s", str(wpm), "-p", str(pitch), "-w", str(out), text],
                       check=True, capture_output=True)
        audio, sr = sf.read(out, dtype="float32")
    if audio.ndim > 1:
        audio = audio.mean(axis=1)
    if sr != RATE:
        audio = soxr.resample(audio, sr, RATE)
    idx = np.flatnonzero(np.abs(audio) > 0.01)
    if idx.size:
        audio = audio[max(idx[0] - 320, 0): idx[-1] + 800]
    return (audio * 0.8).astype(np.float32)


def render_call(job: tuple[Path, int, int, dict[str, str]]) -> float:
    """Write one stereo FLAC (agent and user on the channels `channel_map` names); returns its seconds."""
    path, seed, agent_idx, channel_map = job
    rnd = random.Random(seed)
    lines, _ = call_script(rnd)
    agent_voice = AGENT_VOICES[agent_idx % len(AGENT_VOICES)]
    user_voice = USER_VOICES[seed % len(USER_VOICES)]
    ch = {role: int(c) for c, role in channel_map.items()}
    pieces, t = [], 0.3
    for spk, text in lines:
        audio = tts(text, agent_voice if spk == "agent" else user_voice)
        pieces.append((t, ch[spk], audio))
        gap = -0.3 if rnd.random() < 0.05 else rnd.uniform(0.25, 0.9)  # now and then they talk over each other
        t = max(t + len(audio) / RATE + gap, 0.0)
    total = int((t + 0.5) * RATE)
    out = np.zeros((total, 2), dtype=np.float32)
    for start, c, audio in pieces:
        i = int(start * RATE)
        out[i:i + len(audio), c] += audio[: total - i]
    noise = np.random.default_rng(seed).normal(0, 0.0007, out.shape).astype(np.float32)  # line hiss
    sf.write(path, np.clip(out + noise, -1, 1), RATE, format="FLAC", subtype="PCM_16")
    return total / RATE


UPLOAD_YAML = """# Generated by scripts/make_corpus.py: synthetic voices standing in for real calls and chats.
# Declared `source: real` so the privacy stage redacts the planted fake PII like real data.
locale: en-US
source: real
consent: recorded_verbal
consent_ref: corpus-consent-2026
voice_consent_ref: corpus-voice-consent-2026
license: proprietary-internal
condition: phone
domain: utility_support
scenario: customer_call
system_prompt: >-
  You are a support agent of a utility company. Verify the caller, look the account up and resolve the issue.
channel_map: {"0": "agent", "1": "user"}
tools:
  - name: lookup_account
    description: Look up a customer account by account number
    parameters:
      type: object
      properties: {account_id: {type: string}}
      required: [account_id]
"""


def write_calls(upload: Path, n: int, seed: int, workers: int = 2) -> float:
    """n calls with recordings.csv (conv ids, speakers, channel maps, planted names); returns total seconds."""
    rows, jobs = [], []
    for i in range(n):
        s = seed * 1_000_003 + i
        rnd = random.Random(s)
        _, planted = call_script(rnd)
        agent_idx = AGENTS.index(planted["agent"])
        cmap = {"0": "agent", "1": "user"} if i % 3 else {"0": "user", "1": "agent"}
        name = f"call_{i:04d}.flac"
        jobs.append((upload / name, s, agent_idx, cmap))
        rows.append({"file": name, "conv_id": f"{upload.name}-{i:04d}",
                     "agent_speaker": f"agent-{planted['agent'].lower()}",
                     "user_speaker": f"cust-{s % 100_000:05d}", "scenario": planted["scenario"],
                     "channel_map": json.dumps(cmap),
                     "names": json.dumps(planted["names"]) if i % 2 == 0 else ""})  # half named in the descriptor
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        seconds = sum(pool.map(render_call, jobs, chunksize=4))
    with open(upload / "recordings.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return seconds


CHAT_USER = ["Hi, my bill this month is much higher than usual, can you check it?",
             "My internet keeps dropping every evening.", "I want to move my account to a new address.",
             "I was charged twice for the same month.", "Can I set up a payment plan?",
             "When will the engineer arrive?", "Please cancel my appointment for tomorrow."]
CHAT_AGENT = ["I can look into that for you.", "Thanks, I have found the account.",
              "I have raised a refund; it takes three to five working days.",
              "The engineer is booked for Thursday morning.", "Is there anything else I can help with?",
              "I am sorry about the trouble, let me fix that."]


def chat_line(rnd: random.Random, i: int) -> dict:
    msgs = [{"role": "user", "content": rnd.choice(CHAT_USER)}]
    if rnd.random() < 0.2:  # planted PII in about one chat in five
        phone = f"+1 415 555 {rnd.randrange(10000):04d}"
        who = f"{rnd.choice(FIRST).lower()}.{rnd.choice(LAST).lower()}@example.com"
        msgs.append({"role": "user", "content": rnd.choice([f"You can call me back on {phone}.",
                                                            f"My email is {who} if you need it."])})
    if rnd.random() < 0.3:
        acct = f"{rnd.randrange(10**8):08d}"
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "lookup_account", "arguments": json.dumps({"account_id": acct})}}]})
        msgs.append({"role": "tool", "tool_call_id": "call_1", "content": json.dumps({"status": "active"})})
    for _ in range(rnd.randint(1, 3)):
        msgs.append({"role": "assistant", "content": rnd.choice(CHAT_AGENT)})
        msgs.append({"role": "user", "content": rnd.choice(["Thanks.", "Okay, great.", "That works for me."])})
    return {"id": f"chat-{i:07d}", "domain": "utility_support", "messages": msgs}


def write_chats(upload: Path, n: int, seed: int) -> int:
    rnd = random.Random(seed)
    path = upload / "chats.messages.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps(chat_line(rnd, i), separators=(",", ":")) + "\n")
    return path.stat().st_size


def make_upload(root: Path, name: str, calls: int, texts: int, seed: int = 0, workers: int = 2) -> dict:
    """One upload folder root/raw/<name> with `calls` stereo calls and `texts` chats; returns a summary."""
    upload = Path(root) / "raw" / name
    upload.mkdir(parents=True, exist_ok=True)
    (upload / "upload.yaml").write_text(UPLOAD_YAML, encoding="utf-8")
    t0 = time.perf_counter()
    seconds = write_calls(upload, calls, seed, workers) if calls else 0.0
    chat_bytes = write_chats(upload, texts, seed) if texts else 0
    return {"upload": name, "calls": calls, "audio_seconds": round(seconds, 1), "texts": texts,
            "chat_bytes": chat_bytes, "seconds_to_make": round(time.perf_counter() - t0, 1)}


def make_corpus(root: Path, calls: int, texts: int, seed: int = 0, workers: int = 2) -> list[dict]:
    """The benchmark corpus: one upload of calls, one of chats."""
    return [make_upload(root, "corpus-calls", calls, 0, seed, workers),
            make_upload(root, "corpus-chats", 0, texts, seed + 1, workers)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, help="data directory to write raw/<upload>/ under")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--texts", type=int, default=100_000)
    ap.add_argument("--upload", help="write one upload of this name holding both calls and chats")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="TTS processes")
    args = ap.parse_args()
    if args.upload:
        out = [make_upload(args.out, args.upload, args.calls, args.texts, args.seed, args.workers)]
    else:
        out = make_corpus(args.out, args.calls, args.texts, args.seed, args.workers)
    for s in out:
        print(json.dumps(s))


if __name__ == "__main__":
    main()
