"""Synth stage: throughput against the espeak-ng command line, intelligibility (tiny.en WER) and word-time
accuracy (our word starts vs faster-whisper's on the rendered audio).

References measured in the same run:
- throughput: the `espeak-ng` command line (Debian package) speaking the same turns, one process per turn,
  to WAV at its native 22.05 kHz (no resampling, no word timings, no stereo mix); ours is the whole stage
  (`synth_upload`, one render process at a time) from redacted.jsonl to published WAVs, alignments and
  manifest. Both in audio seconds per wall second on one core.
- WER: tiny.en on every rendered turn (cut from its speaker's channel) against the turn's text; reference =
  the command line's default voice (en) on the same turns. Aim <= 0.25.
- word times: median |our word start - faster-whisper's word start| over words matched in order;
  reference = the same median for word times spread evenly over each turn (what an export without
  alignments falls back to). Aim <= 80 ms.
The dialogues are written here for the bench (other sentences than the sample upload and the tests) and
carry no placeholders, so the text is what is said.
"""

from __future__ import annotations

import difflib
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from .common import row

USER = [
    "Hello, I am calling about the washing machine I bought last month.",
    "It makes a loud noise when the drum starts spinning.",
    "Yes, I still have the receipt from the shop.",
    "Could someone come and look at it this week?",
    "Thursday afternoon would suit me better than Friday.",
    "My bill this quarter is much higher than usual.",
    "I think I was charged for a service I never asked for.",
    "The internet keeps dropping out every evening around eight.",
    "I already restarted the router twice today.",
    "Can you tell me how long the refund will take?",
    "That sounds fine, thank you for sorting it out.",
    "No, that is everything for now, goodbye.",
]
AGENT = [
    "Good morning, thank you for calling customer support.",
    "I am sorry to hear that, let me pull up your account.",
    "I can see the purchase here, and it is still under warranty.",
    "Our engineer has a free slot on Thursday between two and four.",
    "I have booked that visit and sent a confirmation by text message.",
    "You are right, there is an extra charge on your latest invoice.",
    "I have removed the charge and the correction will appear next month.",
    "I am running a line test on your connection now.",
    "The test shows a fault outside your home, so we will fix it remotely.",
    "Refunds usually reach your bank within five working days.",
    "Is there anything else I can help you with today?",
    "Thank you for your patience, have a lovely evening.",
]


def _dialogues(n: int) -> list[list[tuple[str, str]]]:
    rng = random.Random(7)
    out = []
    for _ in range(n):
        turns = [("agent", AGENT[0])]
        for _k in range(rng.randrange(2, 4)):
            turns += [("user", rng.choice(USER[:-1])), ("agent", rng.choice(AGENT[1:-1]))]
        turns += [("user", USER[-1]), ("agent", AGENT[-1])]
        out.append(turns)
    return out


def _records(dialogues: list[list[tuple[str, str]]]):
    from vak_pipeline.schema import SCHEMA_VERSION, Language, Meta, Turn, VakRecord

    recs = []
    for i, d in enumerate(dialogues):
        locale = ("en-GB", "en-US")[i % 2]
        turns = [Turn(speaker=s, start=0, end=0, text=t, lang=locale) for s, t in d]
        recs.append(VakRecord(id=f"bench-{i:03d}", schema_version=SCHEMA_VERSION, locale=locale,
                              language=Language(primary=locale, mix=["en"]), turns=turns,
                              meta=Meta(source="synthetic", consent="synthetic")))
    return recs


def _cli_seconds(texts: list[str], tmp: Path) -> tuple[float, float, list[Path]]:
    """The CLI speaking each text in its own process: (wall s, audio s, files)."""
    import soundfile as sf

    files = []
    t0 = time.perf_counter()
    for k, text in enumerate(texts):
        f = tmp / f"cli_{k:04d}.wav"
        subprocess.run(["espeak-ng", "-v", "en", "-s", "165", "-w", str(f), text], check=True)
        files.append(f)
    wall = time.perf_counter() - t0
    audio = sum(sf.info(str(f)).duration for f in files)
    return wall, audio, files


def cli_per_conversation(conversations: list[list[str]], tmp: Path) -> tuple[float, float]:
    """The CLI with one process per conversation (its turns as the lines of one text file): (wall s, audio s)."""
    import soundfile as sf

    wall = audio = 0.0
    for k, turns in enumerate(conversations):
        txt, wav = tmp / f"conv_{k:04d}.txt", tmp / f"conv_{k:04d}.wav"
        txt.write_text("\n".join(turns) + "\n", encoding="utf-8")
        t0 = time.perf_counter()
        subprocess.run(["espeak-ng", "-v", "en", "-s", "165", "-f", str(txt), "-w", str(wav)], check=True)
        wall += time.perf_counter() - t0
        audio += sf.info(str(wav)).duration
    return wall, audio


def cli_startup_s(tmp: Path, n: int = 10) -> float:
    """Seconds one espeak-ng process costs before it says anything (a one-word text, mean of `n`)."""
    t0 = time.perf_counter()
    for k in range(n):
        subprocess.run(["espeak-ng", "-v", "en", "-w", str(tmp / f"start_{k}.wav"), "a"], check=True)
    return (time.perf_counter() - t0) / n


def _noop() -> int:
    return 0


def ours_startup_s(n: int = 10) -> float:
    """Seconds the synth stage's pool costs per conversation before rendering: each conversation runs in a
    fresh process forked from the warm forkserver (max_tasks_per_child=1); mean of `n` no-op tasks."""
    from vak_pipeline.synth.stage import _pool

    with _pool(1) as pool:
        pool.submit(_noop).result()  # the forkserver itself: once per stage run, not per conversation
        t0 = time.perf_counter()
        for _ in range(n):
            pool.submit(_noop).result()
        return (time.perf_counter() - t0) / n


def _norm(text: str) -> list[str]:
    from vak_pipeline.speech.metrics import normalize_words

    return normalize_words(text)


def _errors(ref: str, hyp: str) -> tuple[int, int]:
    from vak_pipeline.speech.metrics import wer

    n = len(_norm(ref))
    return round(wer(ref, hyp) * n), n


def run(quick: bool) -> list[dict]:
    if shutil.which("espeak-ng") is None:
        return [row("synth", "SKIPPED", None, note="no espeak-ng command line: apt-get install -y espeak-ng")]
    import numpy as np
    import soundfile as sf

    from vak_pipeline.layout import DataLayout
    from vak_pipeline.schema import Alignment, VakRecord
    from vak_pipeline.speech.asr import AsrSettings, load_model, to_asr_rate
    from vak_pipeline.storage import JsonlWriter
    from vak_pipeline.synth import SynthSettings, synth_upload

    dialogues = _dialogues(4 if quick else 24)
    records = _records(dialogues)
    tmp = Path(tempfile.mkdtemp(prefix="bench_synth_"))
    try:
        layout = DataLayout.at(tmp)
        layout.upload_dir("bench").mkdir(parents=True)
        layout.work("bench").mkdir(parents=True)
        with JsonlWriter(layout.redacted("bench")) as w:
            for r in records:
                w.write(r.dump())
        warm = DataLayout.at(tmp / "warm")  # start the render forkserver outside the timing (once per process)
        warm.upload_dir("bench").mkdir(parents=True)
        warm.work("bench").mkdir(parents=True)
        with JsonlWriter(warm.redacted("bench")) as w:
            w.write(records[0].dump())
        t0 = time.perf_counter()
        synth_upload(warm, "bench", SynthSettings(workers=1))
        cold_s = time.perf_counter() - t0  # one conversation, the render forkserver started for it
        t0 = time.perf_counter()
        res = synth_upload(layout, "bench", SynthSettings(workers=1))
        ours_wall = time.perf_counter() - t0
        assert res.rendered == len(records), res.issues
        speech_s = 0.0  # seconds of speech (turn audio), comparable with the command line's output
        rendered = [VakRecord.model_validate_json(x) for x in layout.synthesized("bench").read_text().splitlines()]
        for rec in rendered:
            speech_s += sum(t.end - t.start for t in rec.turns if t.text)
        texts = [t for d in dialogues for _, t in d]
        cli_wall, cli_audio, cli_files = _cli_seconds(texts, tmp)
        conv_wall, conv_audio = cli_per_conversation([[t for _, t in d] for d in dialogues], tmp)
        cli_start, ours_start = cli_startup_s(tmp), ours_startup_s()

        model = load_model(AsrSettings(cpu_threads=2, device="cpu"))
        err = n = cli_err = 0
        gaps, even_gaps, signed = [], [], []
        for rec in rendered:
            files = layout.release_files("bench")  # where synth leaves them until a release places them
            stereo, sr = sf.read(str(files / rec.audio.path), dtype="float32")
            words = Alignment.model_validate_json((files / layout.alignment_rel(rec.id)).read_bytes()).words
            for i, t in enumerate(rec.turns):
                ch = int(next(c for c, r in rec.audio.channel_map.items() if r == t.speaker))
                seg = stereo[int(t.start * sr):int(t.end * sr), ch]
                segs, _ = model.transcribe(to_asr_rate(seg, sr), language="en", beam_size=1, word_timestamps=True)
                heard = [w for s in segs for w in (s.words or [])]
                e, k = _errors(t.text, " ".join(w.word for w in heard))
                err, n = err + e, n + k
                ours = [w for w in words if w.turn == i]
                a = [_norm(w.word)[0] if _norm(w.word) else "" for w in ours]
                b = [_norm(w.word)[0] if _norm(w.word) else "" for w in heard]
                step = (t.end - t.start) / max(1, len(ours))
                for blk in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_matching_blocks():
                    for j in range(blk.size):
                        whisper_start = t.start + heard[blk.b + j].start
                        gaps.append(abs(ours[blk.a + j].start - whisper_start))
                        signed.append(ours[blk.a + j].start - whisper_start)
                        even_gaps.append(abs(t.start + (blk.a + j) * step - whisper_start))
        for f, text in zip(cli_files, texts, strict=True):
            x, sr = sf.read(str(f), dtype="float32")
            segs, _ = model.transcribe(to_asr_rate(x, sr), language="en", beam_size=1)
            cli_err += _errors(text, " ".join(s.text for s in segs))[0]
        ours_rate, cli_rate = speech_s / ours_wall, cli_audio / cli_wall
        med, even = statistics.median(gaps), statistics.median(even_gaps)
        conv_rate = conv_audio / conv_wall
        note = (f"{len(records)} dialogues, {len(texts)} turns, {speech_s:.0f} s of speech; one core, forkserver "
                "warm, a process per conversation counted")
        return [
            row("synth", "throughput_audio_s_per_s_per_core", round(ours_rate, 1), "audio s/s", round(cli_rate, 1),
                round(ours_rate / cli_rate, 3), note + "; reference = espeak-ng CLI, one process per turn"),
            row("synth", "throughput_vs_cli_per_conversation", round(ours_rate, 1), "audio s/s", round(conv_rate, 1),
                round(ours_rate / conv_rate, 3), "reference = espeak-ng CLI, one process per conversation (its turns "
                                                 "as lines of one text file, one WAV)"),
            row("synth", "process_startup_per_conversation_ms", round(1000 * ours_start, 1), "ms",
                round(1000 * cli_start, 1), round(ours_start / cli_start, 3),
                f"ours: a process forked per conversation ({len(records)} here, "
                f"{100 * ours_start * len(records) / ours_wall:.0f}% of our wall); reference = one espeak-ng "
                f"process start (one-word text; the per-turn CLI pays it {len(texts)} times)"),
            row("synth", "cold_start_one_conversation_s", round(cold_s, 2), "s", None, None,
                "the first synth run of a process: the render forkserver started, one conversation rendered"),
            row("synth", "wer_tiny_en", round(err / n, 3), "WER", round(cli_err / n, 3),
                round((err / n) / max(cli_err / n, 1e-9), 3),
                f"{n} words; our voice pool vs the CLI's default voice; aim <= 0.25"),
            row("synth", "word_start_median_gap_ms", round(1000 * med, 1), "ms", round(1000 * even, 1),
                round(med / even, 3), f"{len(gaps)} matched words vs faster-whisper word timestamps; reference = "
                                      "words spread evenly over the turn; aim <= 80 ms"),
            row("synth", "word_start_signed_median_ms", round(1000 * statistics.median(signed), 1), "ms", None,
                None, "ours minus faster-whisper's: negative = whisper's word starts come later (docs/synth.md)"),
            row("synth", "word_start_gap_around_bias_ms",
                round(1000 * statistics.median(abs(g - statistics.median(signed)) for g in signed), 1), "ms",
                None, None, "median |gap - signed median|: the jitter once whisper's constant lag is removed"),
            row("synth", "word_start_p90_gap_ms", round(1000 * float(np.percentile(gaps, 90)), 1), "ms",
                round(1000 * float(np.percentile(even_gaps, 90)), 1), None, "90th percentile, same words"),
        ]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    import sys

    for r in run("--quick" in sys.argv):
        print(r)
