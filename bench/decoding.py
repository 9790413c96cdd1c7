"""Where the transcription time goes: the stage's decoding against the previous default and bare faster-whisper.

Measured in one process, alternating (round 1: every method, round 2: every method, ...), so machine load
hits all of them alike; the model is loaded once, outside the timings. Per method: x real time (channel
audio seconds / decode seconds, best round), the process CPU seconds it took (best round) and their ratio to the
previous default's (on a shared machine under load the wall ratio swings with the neighbours' work, 0.4x-1.9x for
the same two decodings in two runs; CPU seconds much less), and WER against the calls' script text:
- previous default (the "before" of issue 33, and the reference of every ratio): the stage as it decoded
  before batching, i.e. `Transcriber.transcribe_channels` at batch_size 1 and beam 5 (faster-whisper's
  sequential `WhisperModel.transcribe` per channel, its default Silero VAD, word timestamps, the seeded
  temperature fallback), no bleed gate, then the stage's clean-up;
- bare sequential: `WhisperModel.transcribe` per channel, beam 5, word timestamps, default VAD: the same
  decoding as the previous default without the clean-up;
- bare batched: `BatchedInferencePipeline.transcribe` per channel, batch 8, beam 5, word timestamps, its own
  VAD (160 ms silences, no temperature fallback): the issue's "batched" row;
- stage: `Transcriber.transcribe_channels` with the settings given (default: both channels of a call in one
  batched pass, bleed-only stretches left out by `speech.gate`), then the stage's clean-up (bleed words,
  hallucinations); on calls with a leak, also without the gate, to show its share.
Also per channel: audio seconds handed to the decoder against seconds of own speech (50 ms frames above
-40 dBFS where the channel is not 6 dB below the other one: on a clean or leaky channel, the speaker's own
voice).

Why the issue's table showed 2.16x for batching alone and these rows less on the clean sample calls: not the
reference (bare sequential is the previous default's decoding: same VAD, words, beam). Re-measured on the
issue's own 7 channels (bare tiny.en, 2 threads, one round, load 2): sequential beam 5 14.3x, batched 15.3x,
no window falling back to sampling on either side, so the 2.16x does not reproduce with this code and
faster-whisper 1.2.1. Every sample channel is one window (12-24 s of audio), so batching has nothing to run
side by side but a call's two windows; it pays on long calls (several windows) and where sequential windows
fall back (the cross-talk fixtures), and the gate pays where there is bleed.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .common import row


@dataclass
class Call:
    path: Path
    refs: dict[int, str]  # channel -> script text of the speaker on it


def own_speech_seconds(data: np.ndarray, sr: int, ch: int, frame_s: float = 0.05) -> float:
    n = int(frame_s * sr)
    frames = data[: data.shape[0] // n * n].reshape(-1, n, data.shape[1])
    db = 10 * np.log10(np.maximum((frames.astype(np.float64) ** 2).mean(axis=1), 1e-12))
    own = db[:, ch]
    other = db[:, 1 - ch] if data.shape[1] == 2 else np.full_like(own, -120.0)
    return float(((own > -40) & (own >= other - 6)).sum() * frame_s)


def label(settings) -> str:
    """The decoding settings a stage row is named by (and any decoding field that differs from its default)."""
    from vak_pipeline.speech.asr import AsrSettings

    named = {"batch_size", "beam_size", "timestamp_tokens", "device", "cpu_threads", "model", "compute_type"}
    base = AsrSettings()
    more = [f"{k} {v}" for k, v in settings.model_dump().items() if k not in named and v != getattr(base, k)]
    return ", ".join([f"batch {settings.batch_size}, beam {settings.beam_size}"]
                     + (["timestamp tokens"] if settings.batch_size > 1 and settings.timestamp_tokens else []) + more)


def decoding_rows(bench: str, calls: list[Call], settings=None, repeats: int = 2, variants=()) -> list[dict]:
    """The rows above for `calls`; `variants`: more AsrSettings decoded as the stage (gate, clean-up) in the
    same alternating rounds, to try a setting against the previous default on equal terms."""
    from faster_whisper import BatchedInferencePipeline

    from vak_pipeline.audio.crosstalk import measure_crosstalk
    from vak_pipeline.speech.asr import AsrSettings, Transcriber, read_channels, to_asr_rate
    from vak_pipeline.speech.gate import bleed_only_regions
    from vak_pipeline.speech.metrics import wer

    settings = settings or AsrSettings(device="cpu", cpu_threads=2)
    tr = Transcriber(settings)
    model = tr.model
    opts = dict(language=tr.language(), beam_size=5, word_timestamps=True)
    loaded = []
    for c in calls:
        data, sr = read_channels(c.path)
        chs = sorted(c.refs)
        # measured once per call, outside the timings: the stage takes it from the normalized audio's inspection
        xt = measure_crosstalk(data, sr) if data.shape[1] == 2 else None
        gate = bleed_only_regions(data, sr, xt) if xt is not None else {}
        loaded.append((c, data, sr, chs, [to_asr_rate(data[:, ch], sr) for ch in chs], gate, xt))
    audio_s = sum(x.size / 16000 for *_, xs, _g, _x in loaded for x in xs)

    def bare_sequential():
        return [[" ".join(s.text for s in model.transcribe(x, vad_filter=True, **opts)[0]) for x in xs]
                for *_, xs, _g, _x in loaded]

    def bare_batched():
        pipe = BatchedInferencePipeline(model)
        return [[" ".join(s.text for s in pipe.transcribe(x, batch_size=8, vad_filter=True, **opts)[0]) for x in xs]
                for *_, xs, _g, _x in loaded]

    inputs: list = []

    def stage(gated: bool = True, transcriber=None):
        """The stage's decoding and clean-up (the bleed word filter included), as text per channel; as in
        `speech.stage.transcribe_and_clean`, the gate and the clean-up share the call's one cross-talk measure."""
        from vak_pipeline.speech.cleanup import clean_segments
        from vak_pipeline.speech.hallucination import ChannelLevels

        if transcriber is None:  # what the stage decodes now: its seconds are the ones reported below
            inputs.clear()
        out = []
        for _c, data, sr, chs, _xs, _gate, xt in loaded:
            levels = {c: ChannelLevels(data[:, c], sr) for c in range(data.shape[1])} if xt is not None else None
            gate = bleed_only_regions(data, sr, xt, None, levels) if gated and xt is not None else {}
            cuts = [gate.get(ch, []) for ch in chs]
            segs, inp = (transcriber or tr).transcribe_channels([data[:, ch] for ch in chs], sr, cuts, chs)
            if xt is not None:
                segs = clean_segments(segs, data, sr, xt, None, levels).segments
            if transcriber is None:
                inputs.append(inp)
            out.append([" ".join(s.text for s in segs if s.channel == ch) for ch in chs])
        return out

    previous = settings.model_copy(update={"batch_size": 1, "beam_size": 5})

    def previous_default():
        """The stage before issue 33: sequential beam 5, default VAD, no gate, clean-up."""
        return stage(False, Transcriber(previous))

    tag = label(settings)
    before = "previous default (sequential, beam 5, no gate, clean-up)"
    methods = {before: previous_default, "bare sequential (beam 5)": bare_sequential,
               "bare batched (batch 8, beam 5)": bare_batched}
    if any(loaded_gate for *_, loaded_gate, _x in loaded):  # a leak somewhere: the gate's own share, same run
        methods[f"stage ({tag}, no gate, clean-up)"] = lambda: stage(False)
    methods[f"stage ({tag}, gate, clean-up)"] = stage
    for v in variants:
        methods[f"variant ({label(v)}, gate, clean-up)"] = lambda v=v: stage(True, Transcriber(v))
    times: dict[str, list[float]] = {k: [] for k in methods}
    cpu: dict[str, list[float]] = {k: [] for k in methods}  # process CPU seconds: what load on a shared machine hides
    texts: dict[str, list] = {}
    for _ in range(repeats):
        for name, fn in methods.items():
            t0, c0 = time.perf_counter(), time.process_time()
            texts[name] = fn()
            times[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    ref = " ".join(c.refs[ch] for c, *_ in loaded for ch in sorted(c.refs))
    base, base_cpu = min(times[before]), min(cpu[before])
    note = f"{len(calls)} calls, {audio_s:.0f} s channel audio, {settings.engine()} {settings.resolved_device()}"
    rows = []
    for name in methods:
        hyp = " ".join(t for call in texts[name] for t in call)
        best = min(times[name])
        rows.append(row(bench, f"decoding: {name}", round(audio_s / best, 2), "x real time",
                        round(audio_s / base, 2), round(base / best, 2),
                        f"WER {wer(ref, hyp):.4f}; CPU {min(cpu[name]):.1f} s, {base_cpu / min(cpu[name]):.2f}x the "
                        f"previous default's; reference = previous default; {note}"))
    own = [own_speech_seconds(data, sr, ch) for _c, data, sr, chs, _x, _g, _xt in loaded for ch in chs]
    per = [x for inp in inputs for x in inp]
    decoded, speech, skipped = (sum(getattr(x, k) for x in per) for k in ("decoded_s", "speech_s", "skipped_s"))
    rows.append(row(bench, "decoding: audio seconds decoded", round(decoded, 1), "s", round(sum(own), 1),
                    round(decoded / max(sum(own), 1e-9), 3),
                    f"reference = own speech; VAD speech {speech:.1f} s, bleed skipped {skipped:.1f} s; per channel "
                    + ", ".join(f"{x.decoded_s:.1f}/{o:.1f}" for x, o in zip(per, own, strict=True))[:300]))
    return rows


def gpu_memory_mib() -> float | None:
    """Memory in use on GPU 0 (nvidia-smi), None without one."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=30, check=True)
        return float(out.stdout.split()[0])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def gpu_rows(bench: str, calls: list[Call]) -> list[dict]:
    """x real time and GPU memory of large-v3 float16 batch 16 on CUDA; one row saying why not without a GPU."""
    try:
        import ctranslate2

        gpus = ctranslate2.get_cuda_device_count()
    except Exception:  # no CUDA runtime
        gpus = 0
    if not gpus:
        return [row(bench, "gpu: large-v3 float16 batch 16", "skipped", note="no CUDA device in this process")]
    from vak_pipeline.speech.asr import AsrSettings, ModelNotAvailable

    settings = AsrSettings(model="large-v3", device="cuda", batch_size=16)
    try:
        rows = decoding_rows(bench + "_gpu", calls, settings, repeats=1)
    except ModelNotAvailable as exc:
        return [row(bench, "gpu: large-v3 float16 batch 16", "skipped", note=str(exc)[:200])]
    mem = gpu_memory_mib()
    rows.append(row(bench, "gpu: memory used after decoding", mem, "MiB", note="nvidia-smi, GPU 0, model loaded"))
    return rows


def _script_module(name: str):
    """A module of scripts/ (not a package), loaded by path."""
    import importlib.util
    import sys

    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up while the file runs
    spec.loader.exec_module(mod)
    return mod


def sample_calls(sample_dir: Path, names: tuple[str, ...]) -> list[Call]:
    """Shipped sample calls (scripts/make_speech_fixtures.py) with the script text per channel."""
    calls = _script_module("make_speech_fixtures").CALLS
    out = []
    for name in names:
        spec = calls[name]
        refs = {int(ch): " ".join(ln.text for ln in spec["lines"] if ln.speaker == role)
                for ch, role in spec["channel_map"].items()}
        out.append(Call(sample_dir / f"{name}.{spec['ext']}", refs))
    return out


def corpus_calls(upload_dir: Path, n: int, seed: int = 0) -> list[Call]:
    """The first `n` calls of a scripts/make_corpus.py upload, with their script text per channel (the generator
    is seeded, so the lines are re-derived)."""
    import random

    mc = _script_module("make_corpus")
    out = []
    for i in range(n):
        lines, _ = mc.call_script(random.Random(seed * 1_000_003 + i))
        cmap = {"0": "agent", "1": "user"} if i % 3 else {"0": "user", "1": "agent"}  # as write_calls sets it
        refs = {int(ch): " ".join(t for spk, t in lines if spk == role) for ch, role in cmap.items()}
        out.append(Call(upload_dir / f"call_{i:04d}.flac", refs))
    return out


def pyannote_sample_call() -> Call | None:
    """pyannote.audio's shipped `sample.wav` (mono, two speakers, 30 s) with its reference transcript
    (`sample.stm`, the words of every turn in time order); None where pyannote.audio is not installed."""
    import importlib.util

    try:  # located, not imported: importing pyannote.audio loads torch and its audio codecs
        spec = importlib.util.find_spec("pyannote.audio")
    except ImportError:
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "sample"
    if not (folder / "sample.stm").exists():
        return None
    lines = sorted((float(x.split()[3]), " ".join(x.split()[5:]))
                   for x in (folder / "sample.stm").read_text(encoding="utf-8").splitlines() if x.strip())
    return Call(folder / "sample.wav", {0: " ".join(text for _start, text in lines)})
