"""Speech stage: ASR stage time vs bare faster-whisper on the same files/model/settings, CPU real-time factor,
turn-level LID accuracy on the hand-labelled set (per language and kind).

References measured in the same run:
- ASR: bare faster-whisper (`WhisperModel.transcribe` per channel on the same 16 kHz arrays, generator
  consumed, nothing written), same model object and settings, over the English stereo sample calls. The
  stage's time includes reading the wavs, soxr resampling, word models, cache keys and the JSONL write.
  Overhead % = (stage - bare) / bare. The model is loaded once before either timing; best of N runs.
  The Hinglish sample call is left out of the timing: on an English-only model its segments fall back to
  temperature sampling (random), which makes its decode time vary 2x run to run for both sides alike.
- LID: the fallback-only tagger (every turn = the conversation's language), the placeholder it replaced.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from .common import row

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "raw" / "sample-calls"
ENGLISH_STEREO = ("call_001.flac", "call_003.flac")
REALCALLS = ROOT / "vak_pipeline_tests" / "fixtures" / "realcalls"  # scripts/make_real_calls.py: leaks, 8 kHz
LID_SET = ROOT / "vak_pipeline_tests" / "fixtures" / "speech" / "lid_labelled.jsonl"


def _asr_rows(quick: bool) -> list[dict]:
    from vak_pipeline.audio.stage import normalize_upload, read_audio_index
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.speech.asr import AsrSettings, Transcriber, read_channels, to_asr_rate
    from vak_pipeline.speech.stage import transcribe_upload

    settings = AsrSettings(beam_size=1 if quick else 5, cpu_threads=2, device="cpu")
    tmp = Path(tempfile.mkdtemp(prefix="bench_speech_"))
    try:
        up = tmp / "raw" / "sample-calls"
        up.mkdir(parents=True)
        for name in ENGLISH_STEREO + ("upload.yaml", "call_003.events.jsonl"):
            shutil.copy(SAMPLE / name, up / name)
        csv = (SAMPLE / "recordings.csv").read_text(encoding="utf-8").splitlines()
        (up / "recordings.csv").write_text("\n".join(x for x in csv if x.startswith(("file,",) + ENGLISH_STEREO))
                                           + "\n", encoding="utf-8")
        layout = DataLayout.at(tmp)
        normalize_upload(layout, "sample-calls")
        rows = [r for r in read_audio_index(layout, "sample-calls") if r.channels == 2]
        audio_s = sum(r.duration_s for r in rows)
        tr = Transcriber(settings)
        model = tr.model  # load once, outside both timings
        kwargs = dict(language=tr.language(), beam_size=settings.beam_size, word_timestamps=True,
                      vad_filter=settings.vad_filter)
        repeats = 1 if quick else 3
        arrays = []
        for r in rows:
            data, sr = read_channels(tmp / r.path)
            arrays += [to_asr_rate(data[:, c], sr) for c in range(data.shape[1])]
        bare, ours = [], []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for x in arrays:  # the same decoding as the stage's: batched when batch_size > 1
                if settings.batch_size > 1:
                    from faster_whisper import BatchedInferencePipeline

                    segs, _info = BatchedInferencePipeline(model).transcribe(x, batch_size=settings.batch_size,
                                                                            **kwargs)
                else:
                    segs, _info = model.transcribe(x, **kwargs)
                list(segs)
            bare.append(time.perf_counter() - t0)
            layout.transcripts("sample-calls").unlink(missing_ok=True)  # force a full stage run
            t0 = time.perf_counter()
            res = transcribe_upload(layout, "sample-calls", settings, transcriber=tr)
            ours.append(time.perf_counter() - t0)
            assert res.transcribed == len(rows)
        b, o = min(bare), min(ours)
        t0 = time.perf_counter()
        cached = transcribe_upload(layout, "sample-calls", settings, transcriber=tr)
        cached_s = time.perf_counter() - t0
        note = (f"{len(rows)} stereo calls, {audio_s:.1f} s audio, tiny.en int8 beam {settings.beam_size}, batch "
            f"{settings.batch_size}, 2 threads")
        return [
            row("speech_asr", "stage_seconds", round(o, 3), "s", round(b, 3), round(o / b, 3),
                note + "; reference = bare faster-whisper"),
            row("speech_asr", "stage_overhead_pct", round(100 * (o - b) / b, 1), "%", 0.0, None, note),
            row("speech_asr", "real_time_factor_cpu", round(o / audio_s, 4), "x", round(b / audio_s, 4),
                round(o / b, 3), "processing seconds per audio second (both channels); reference = bare"),
            row("speech_asr", "unchanged_rerun_seconds", round(cached_s, 4), "s", round(o, 3),
                round(cached_s / o, 4), f"incremental: {cached.skipped} skipped, {cached.transcribed} redone"),
        ]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _lid_rows() -> list[dict]:
    from vak_pipeline.locales import get_pack
    from vak_pipeline.locales.lid import detect_lang

    items = [json.loads(x) for x in LID_SET.read_text(encoding="utf-8").splitlines() if x.strip()]
    ok = base_ok = 0
    by_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    t0 = time.perf_counter()
    preds = [detect_lang(get_pack(r["locale"]), r["text"], r["fallback"]) for r in items]
    dt = time.perf_counter() - t0
    for r, p in zip(items, preds, strict=True):
        hit, base = int(p == r["lang"]), int(r["fallback"] == r["lang"])
        ok += hit
        base_ok += base
        for table, key in ((by_lang, r["lang"]), (by_kind, r["kind"])):
            table[key][0] += hit
            table[key][1] += base
            table[key][2] += 1
    n = len(items)
    out = [row("speech_lid", "turn_accuracy", round(ok / n, 4), "acc", round(base_ok / n, 4),
               round((ok / n) / max(base_ok / n, 1e-9), 3), f"{n} hand-labelled turns; reference = fallback-only"),
           row("speech_lid", "turns_per_second", round(n / dt), "turns/s", None, None, "detect_lang, one core")]
    for name, table in (("lang", by_lang), ("kind", by_kind)):
        for key, (hit, base, cnt) in sorted(table.items()):
            out.append(row("speech_lid", f"accuracy_{name}={key}", round(hit / cnt, 4), "acc", round(base / cnt, 4),
                           round((hit / cnt) / max(base / cnt, 1e-9), 3) if base else None, f"n={cnt}"))
    mistakes = Counter((r["lang"], p) for r, p in zip(items, preds, strict=True) if p != r["lang"])
    out.append(row("speech_lid", "confusions", len(sum(([k] * v for k, v in mistakes.items()), [])), "turns",
                   None, None, "; ".join(f"{a}->{b}: {c}" for (a, b), c in mistakes.most_common())))
    return out


def _decoding_rows(quick: bool) -> list[dict]:
    """Bare faster-whisper sequential and batched against the stage's decoding, WER, seconds decoded
    (bench/decoding.py), and the GPU mode (large-v3 float16 batch 16) when this process sees a CUDA device."""
    from .decoding import Call, decoding_rows, gpu_rows, pyannote_sample_call, sample_calls

    calls = sample_calls(SAMPLE, tuple(n.split(".")[0] for n in ENGLISH_STEREO))
    leaky = [Call(REALCALLS / f"{n}.ogg", {int(c): " ".join(t["text"] for t in sc["turns"] if t["speaker"] == role)
                                           for c, role in sc["channel_map"].items()})
             for n in ("xtalk_16db", "xtalk_10db")
             for sc in [json.loads((REALCALLS / f"{n}.json").read_text(encoding="utf-8"))]]
    repeats = 1 if quick else 2
    pyannote = pyannote_sample_call()  # pyannote.audio's sample.wav against its own transcript (sample.stm)
    return (decoding_rows("speech_asr", calls, repeats=repeats) + decoding_rows("speech_asr_crosstalk", leaky,
                                                                                 repeats=repeats)
            + (decoding_rows("speech_asr_pyannote_sample", [pyannote], repeats=repeats) if pyannote else
               [row("speech_asr_pyannote_sample", "decoding", "skipped", note="pyannote.audio not installed")])
            + gpu_rows("speech_asr", calls))


def run(quick: bool) -> list[dict]:
    return _lid_rows() + _asr_rows(quick) + _decoding_rows(quick)


if __name__ == "__main__":
    import sys

    for r in run("--quick" in sys.argv):
        print(r)
