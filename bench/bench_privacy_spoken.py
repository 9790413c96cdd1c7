"""The spoken path end to end: PII planted in generated calls, spoken by espeak-ng, transcribed by the
real faster-whisper tiny.en, redacted by the redaction stage's own record path (redact_record_full:
recognizers, word alignment -> audio masks), the masked audio written by write_masked and transcribed
again.

Per planted type it prints:
- spoken_recall: the planted value was redacted in the ASR transcript (a span of its type covers where
  it was said), over every planted value, ASR errors included;
- heard: how many planted values the ASR wrote readably at all (the ceiling for text redaction);
- readable_after_redaction: planted values still readable in the redacted transcript;
- audible_after_masking: planted values that tiny.en still transcribes from the masked audio (aim 0).

A value is "readable"/"audible" when its digits appear in order in the transcript's digits (spoken
digit words included), or, for names and emails, when any name token of three letters or more does.
English only: tiny.en is an English model. Needs the Debian `espeak-ng` binary.

The held-out set (`heldout/...` rows) is a second generator, written apart from the one the
recognizers were tuned on: other phrasings, no question before most values, other voices, and the shapes
the typed recognizers miss (an e-mail at a provider no list has, a spelled code of letters and digits,
a digit run nobody asked for, a spelled surname). Its `audible_after_masking` is the figure to watch.

    python -m bench privacy_spoken [--quick]
    python bench/bench_privacy_spoken.py --heldout     # the held-out set alone (about a minute)
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

RATE = 16000
R = random.Random(1616)
EN_D = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]

# hand-written for this bench (not the recognizers' lists): first, last
NAMES = [
    ("Tanmay", "Kulkarni"),
    ("Imogen", "Pritchard"),
    ("Declan", "Hargreaves"),
    ("Nandini", "Iyer"),
    ("Rupert", "Thornton"),
    ("Ishita", "Banerjee"),
    ("Harriet", "Caldwell"),
    ("Kunal", "Deshpande"),
]


def _say(d: str) -> str:
    return " ".join(EN_D[int(c)] for c in d)


def _luhn(prefix: str, n: int) -> str:
    body = prefix + "".join(R.choice("0123456789") for _ in range(n - len(prefix) - 1))
    for c in "0123456789":
        s = body + c
        if (
            sum(int(x) if i % 2 == 0 else (2 * int(x)) // 10 + (2 * int(x)) % 10 for i, x in enumerate(reversed(s)))
            % 10
            == 0
        ):
            return s
    raise AssertionError


def plants(n: int) -> list[dict]:
    """n planted utterances: (locale, agent prompt, customer line, type, value) in rotation over types."""
    kinds = ["phone", "person_name", "email", "payment_card", "us_zip", "in_pin", "address", "person_name"]
    out = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        first, last = R.choice(NAMES)
        if kind == "phone":
            d = R.choice("6789") + "".join(R.choice("0123456789") for _ in range(9))
            out.append(
                dict(
                    locale="en-IN",
                    ask="Can I have your mobile number please?",
                    line=f"Sure, my mobile number is {_say(d)}.",
                    type="phone",
                    value=d,
                )
            )
        elif kind == "person_name":
            out.append(
                dict(
                    locale=R.choice(["en-US", "en-GB", "en-IN"]),
                    ask="Who am I speaking with?",
                    line=f"Yeah it's {first} {last}, I called yesterday about the router.",
                    type="person_name",
                    value=f"{first} {last}",
                )
            )
        elif kind == "email":
            out.append(
                dict(
                    locale="en-US",
                    ask="What email should we use?",
                    line=f"It is {first.lower()} dot {last.lower()} at gmail dot com.",
                    type="email",
                    value=f"{first.lower()}.{last.lower()}@gmail.com",
                )
            )
        elif kind == "payment_card":
            d = _luhn("4", 16)
            out.append(
                dict(
                    locale="en-US",
                    ask="Which card would you like to use?",
                    line=f"The card number is {_say(d)}.",
                    type="payment_card",
                    value=d,
                )
            )
        elif kind == "us_zip":
            d = "".join(R.choice("123456789") for _ in range(5))
            out.append(
                dict(
                    locale="en-US",
                    ask="And your billing details?",
                    line=f"My zip code is {_say(d)}.",
                    type="us_zip",
                    value=d,
                )
            )
        elif kind == "in_pin":
            d = R.choice("1234567") + "".join(R.choice("0123456789") for _ in range(5))
            out.append(
                dict(
                    locale="en-IN",
                    ask="Which area are you in?",
                    line=f"The pin code is {_say(d)}.",
                    type="in_pin",
                    value=d,
                )
            )
        else:
            no = R.randint(12, 98)
            street = R.choice(["Maple Street", "Harbor Road", "Cedar Lane"])
            out.append(
                dict(
                    locale="en-US",
                    ask="Where should we send the engineer?",
                    line=f"I live at {no} {street}, Springfield.",
                    type="address",
                    value=f"{no} {street}",
                )
            )
    return out


# the held-out generator's own material (not the tuned set's): providers no list has, codes, surnames
HELDOUT_PROVIDERS = ["jeemail", "zoomail", "post box", "inbox lane", "quick mail"]
HELDOUT_NAMES = [("Ottoline", "Fairweather"), ("Bhavesh", "Raghunathan"), ("Solenne", "Achterberg"),
                 ("Kwame", "Ofori-Atta")]
HELDOUT_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"


def plants_heldout(n: int, seed: int = 2929) -> list[dict]:
    """n held-out utterances, in rotation: garbled e-mail, spelled code, unasked digit run, spelled name."""
    r = random.Random(seed)
    out = []
    for i in range(n):
        first, last = r.choice(HELDOUT_NAMES)
        kind = ("email", "code", "digits", "spelled_name")[i % 4]
        if kind == "email":
            provider = r.choice(HELDOUT_PROVIDERS)
            out.append(dict(locale="en-GB", ask="Right, I will send you the confirmation.",
                            line=f"Send it to {first.lower()} at {provider} dot com if you would.",
                            type="email", value=f"{first.lower()}@{provider.replace(' ', '')}.com"))
        elif kind == "code":
            letters = "".join(r.choice(HELDOUT_LETTERS) for _ in range(2))
            d = "".join(r.choice("123456789") for _ in range(5))
            spoken = " ".join(letters) + ", " + " ".join(d)
            out.append(dict(locale="en-GB", ask="Okay, go ahead when you are ready.",
                            line=f"The reference on my letter is {spoken}, I think.", type="spelled_code",
                            value=letters + d))
        elif kind == "digits":
            d = "".join(r.choice("123456789") for _ in range(7))
            out.append(dict(locale="en-US", ask="Thanks for holding.",
                            line=f"Yeah so my account is {_say(d)} and it stopped working.",
                            type="unsure_number", value=d))
        else:
            spelled = " ".join(last.replace("-", "").upper()[:6])
            out.append(dict(locale="en-US", ask="Let me pull that up.",
                            line=f"My surname is spelled {spelled}, like it sounds.", type="spelled_code",
                            value=last.replace("-", "").upper()[:6]))
    return out


def tts(text: str, voice: str = "en-us", wpm: int = 150) -> np.ndarray:
    import soundfile as sf
    import soxr

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t.wav"
        subprocess.run(
            ["espeak-ng", "-v", voice, "-s", str(wpm), "-w", str(out), text], check=True, capture_output=True
        )
        audio, sr = sf.read(out, dtype="float32")
    if audio.ndim > 1:
        audio = audio.mean(axis=1)
    return soxr.resample(audio, sr, RATE).astype(np.float32) * 0.8


def _digits_of_text(text: str) -> str:
    """Digits in order, spoken digit words included ("nine 8 seven" -> "987")."""
    out = []
    for tok in re.findall(r"[A-Za-z]+|\d", text.lower()):
        if tok.isdigit():
            out.append(tok)
        elif tok in EN_D:
            out.append(str(EN_D.index(tok)))
        elif tok == "oh":
            out.append("0")
        elif tok in ("double", "triple"):
            out.append("*" + tok)
    s = "".join(out)
    for word, times in (("*double", 2), ("*triple", 3)):  # "double five" -> "55"
        s = re.sub(re.escape(word) + r"(\d)", lambda m, t=times: m.group(1) * t, s)
    return s.replace("*double", "").replace("*triple", "")


def readable(value: str, ptype: str, text: str) -> bool:
    if ptype == "spelled_code":  # its digits in order, or (letters only) its letters in a row
        digits = "".join(c for c in value if c.isdigit())
        if digits:
            return digits in _digits_of_text(text)
        return value.lower() in re.sub(r"[^a-z]", "", text.lower())
    if ptype in ("person_name", "email"):
        toks = [t for t in re.split(r"[^a-z]+", value.lower()) if len(t) >= 3 and t not in ("gmail", "com")]
        low = text.lower()
        return any(re.search(rf"\b{re.escape(t)}\b", low) for t in toks)
    if ptype == "address":
        m = re.match(r"(\d+) (\w+)", value)
        return bool(m) and m.group(2).lower() in text.lower() and m.group(1) in _digits_of_text(text)
    return value in _digits_of_text(text)


def run_calls(n: int, workdir: Path, planted: list[dict] | None = None,
              voices: tuple[str, str] = ("en-gb", "en-us")) -> list[dict]:
    import soundfile as sf

    from vak_pipeline.locales import get_pack
    from vak_pipeline.redaction.audio import AudioSettings, write_masked
    from vak_pipeline.redaction.redact import redact_record_full
    from vak_pipeline.schema import SCHEMA_VERSION, Alignment, Audio, Language, Meta, Turn, VakRecord, Word
    from vak_pipeline.speech.asr import AsrSettings, Transcriber

    asr = Transcriber(AsrSettings(cpu_threads=2))
    results = []
    for i, p in enumerate(planted if planted is not None else plants(n)):
        ask, line = tts(p["ask"], voices[0], 160), tts(p["line"], voices[1], 145)
        gap = np.zeros(int(0.4 * RATE), dtype=np.float32)
        start_user = (len(ask) + len(gap)) / RATE
        stereo = np.zeros((len(ask) + len(gap) + len(line), 2), dtype=np.float32)
        stereo[: len(ask), 0] = ask
        stereo[len(ask) + len(gap) :, 1] = line
        src = workdir / f"call{i}.wav"
        sf.write(src, stereo, RATE, subtype="PCM_16")
        segs = asr.transcribe_channel(src, channel=1)
        heard = " ".join(s.text for s in segs)
        words = [
            Word(word=w.word, start=w.start, end=w.end, speaker="user", turn=1, channel=1)
            for s in segs
            for w in s.words
        ]
        dur = len(stereo) / RATE
        rec = VakRecord(
            id=f"spoken-{i}",
            schema_version=SCHEMA_VERSION,
            locale=p["locale"],
            audio=Audio(
                path=f"audio/spoken-{i}.wav",
                sample_rate=RATE,
                channels=2,
                channel_map={"0": "agent", "1": "user"},
                duration_s=round(dur, 3),
            ),
            language=Language(primary="en", mix=["en"]),
            system_prompt="You are a support agent.",
            turns=[
                Turn(speaker="agent", start=0.0, end=len(ask) / RATE, text=p["ask"], lang="en"),
                Turn(speaker="user", start=round(start_user, 3), end=round(dur, 3), text=heard or "...", lang="en"),
            ],
            meta=Meta(source="synthetic", consent="synthetic"),
        )
        out = redact_record_full(
            rec,
            get_pack(p["locale"]),
            audio_settings=AudioSettings(method="tone"),
            alignment=Alignment(conversation_id=rec.id, words=words),
        )
        redacted_text = out.record.turns[1].text or ""
        caught = any((s.type == p["type"] or p["type"] == "spelled_code") and s.turn == 1 for s in out.log.spans)
        masked = workdir / f"call{i}.masked.wav"
        write_masked(src, masked, out.masks, AudioSettings(method="tone"))
        again = " ".join(s.text for s in asr.transcribe_channel(masked, channel=1))
        results.append(
            dict(
                type=p["type"],
                heard=readable(p["value"], p["type"], heard),
                caught=caught,
                readable_after=readable(p["value"], p["type"], redacted_text),
                audible_after=readable(p["value"], p["type"], again),
                transcripts=(heard, redacted_text, again),  # synthetic values: for looking at misses
            )
        )
    return results


def run(quick: bool, heldout_only: bool = False) -> list[dict]:
    from bench.common import row

    if shutil.which("espeak-ng") is None:
        return [row("privacy_spoken", "SKIPPED", None, note="espeak-ng not installed (apt-get install espeak-ng)")]
    n = 16 if quick else 48
    rows = [] if heldout_only else _rows(n, "", None, ("en-gb", "en-us"))
    return rows + _rows(8 if quick or heldout_only else 16, "heldout/", plants_heldout, ("en-us+m3", "en-gb+f2"))


def _rows(n: int, prefix: str, generator, voices: tuple[str, str]) -> list[dict]:
    from bench.common import row

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        res = run_calls(n, Path(tmp), generator(n) if generator else None, voices)
    took = time.perf_counter() - t0
    rows = []
    for t in sorted({r["type"] for r in res}):
        rs = [r for r in res if r["type"] == t]
        k = len(rs)
        rows.append(
            row(
                "privacy_spoken",
                f"{prefix}spoken_recall/{t}",
                round(sum(r["caught"] for r in rs) / k, 3),
                f"fraction of {k} planted",
                note=f"ASR wrote {sum(r['heard'] for r in rs)}/{k} readably",
            )
        )
        rows.append(
            row(
                "privacy_spoken",
                f"{prefix}readable_after_redaction/{t}",
                sum(r["readable_after"] for r in rs),
                f"of {k} planted (aim 0)",
            )
        )
        rows.append(
            row(
                "privacy_spoken",
                f"{prefix}audible_after_masking/{t}",
                sum(r["audible_after"] for r in rs),
                f"of {k} planted (aim 0)",
            )
        )
    rows.append(
        row(
            "privacy_spoken",
            f"{prefix}spoken_recall/all",
            round(sum(r["caught"] for r in res) / len(res), 3),
            f"fraction of {len(res)} planted",
            note=f"{len(res)} calls, espeak-ng + tiny.en, {took:.0f} s",
        )
    )
    rows.append(
        row(
            "privacy_spoken",
            f"{prefix}audible_after_masking/all",
            sum(r["audible_after"] for r in res),
            f"of {len(res)} planted (aim 0)",
        )
    )
    return rows


if __name__ == "__main__":
    import json
    import sys

    for r in run("--quick" in sys.argv, heldout_only="--heldout" in sys.argv):
        print(json.dumps(r, ensure_ascii=False))
