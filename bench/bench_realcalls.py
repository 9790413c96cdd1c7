"""Real-call damage (issue 15): bleed, hallucinations on silence, offline diarization, transcription input.

Sets: the generated calls of scripts/make_real_calls.py (vak_pipeline_tests/fixtures/realcalls: espeak-ng,
phone band, cross-talk -30..-10 dB, hold music), the English sample calls (data/raw/sample-calls), and the
one real two-speaker telephone excerpt that pyannote.audio ships (pyannote/audio/sample/sample.wav with
sample.rttm and sample.stm). Every reference below is measured in the same run:
- duplicate-turn rate (a turn whose words are mostly a line of the other speaker said at the same time)
  and script lines kept (turns of the right speaker cover >= 50% of the line), with bleed handling vs the
  same ASR segments without it;
- words on channels that carry only silence or hold music: the pipeline (Silero VAD + hallucination
  filter) vs bare faster-whisper without VAD;
- DER (pyannote.metrics, collar 0 and 0.25 s, overlap scored) of the offline diarizer on the mono mixes
  and on pyannote's sample; pyannote's published DER on CALLHOME telephone speech printed beside it;
- WER: the pipeline's transcripts vs bare faster-whisper on the original files (same model, settings),
  and bare faster-whisper on the pipeline's 24 kHz copy vs on the original file (does the copy hurt?).
"""

from __future__ import annotations

import csv
import importlib.util
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .common import row

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "vak_pipeline_tests" / "fixtures" / "realcalls"
SAMPLE = ROOT / "data" / "raw" / "sample-calls"
STEREO = ("xtalk_16db.ogg", "xtalk_10db.ogg", "xtalk_30db.ogg", "hold_music.ogg", "ulaw_call.wav")
MONO = ("xtalk_16db.mono.ogg", "xtalk_10db.mono.ogg", "xtalk_30db.mono.ogg")
# pyannote.audio 4.0.7 README (package METADATA), "Benchmark" table, last updated 2025-09, DER in %:
# CALLHOME part 2 (two-party telephone): 28.5 for speaker-diarization-3.1, 26.7 for community-1.
PYANNOTE_CALLHOME_DER = {"pyannote 3.1": 0.285, "pyannote community-1": 0.267}


def _crosstalk_rows() -> list[dict]:
    """Measured leak level and lag vs the ones injected by scripts/make_real_calls.py."""
    import soundfile as sf

    from vak_pipeline.audio.crosstalk import measure_crosstalk

    level_err, lag_err, found, n = [], [], 0, 0
    t0, audio_s = time.perf_counter(), 0.0
    for name in STEREO:
        want = _ref(name)["crosstalk"]
        x, sr = sf.read(REAL / name, dtype="float32", always_2d=True)
        audio_s += len(x) / sr
        for leak in measure_crosstalk(x, sr).leaks:
            n += 1
            if leak.detected:
                found += 1
                level_err.append(abs(leak.level_db - want["leak_db"]))
                lag_err.append(abs(leak.lag_ms - want["lag_ms"]))
    secs = time.perf_counter() - t0
    return [
        row(
            "realcalls",
            "crosstalk_level_error",
            round(float(np.max(level_err)), 2),
            "dB",
            None,
            None,
            f"max |measured - injected| over {found}/{n} channels with a leak (-30..-10 dB); lag error max "
            f"{np.max(lag_err):.1f} ms (0..50 ms); {secs / audio_s * 1000:.1f} ms per audio s",
        )
    ]


def _settings(quick: bool):
    from vak_pipeline.speech.asr import AsrSettings

    return AsrSettings(beam_size=1 if quick else 5, cpu_threads=2, device="cpu")


def _pyannote_sample() -> Path | None:
    spec = importlib.util.find_spec("pyannote.audio")
    if spec is None or not spec.submodule_search_locations:
        return None
    d = Path(next(iter(spec.submodule_search_locations))) / "sample"
    return d if (d / "sample.wav").is_file() else None


def _ref(name: str) -> dict:
    return json.loads((REAL / f"{name.split('.')[0]}.json").read_text(encoding="utf-8"))


def _turns(segments, channel_map: dict[str, str]) -> list[dict]:
    from vak_pipeline.speech.turns import build_turns

    segs = [s.model_copy(update={"speaker": channel_map[str(s.channel)]}) for s in segments]
    return [t.model_dump() for t in build_turns(segs).turns if t.text]


def _bleed_rows(quick: bool, layout, rows_by_file: dict, transcriber) -> tuple[list[dict], dict]:
    """Duplicate-turn rate and lines kept, with and without bleed handling, on the same ASR segments."""
    from vak_pipeline.speech.asr import read_channels
    from vak_pipeline.speech.bleed import BleedSettings
    from vak_pipeline.speech.cleanup import CleanupSettings, clean_segments
    from vak_pipeline.speech.metrics import bleed_duplicates, script_lines_found

    stats = {"with": [0, 0, 0, 0], "without": [0, 0, 0, 0]}  # dup turns, turns, lines kept, lines
    raw_by_file = {}
    for name in STEREO[:2] if quick else STEREO:
        r = rows_by_file[name]
        data, sr = read_channels(layout.root / r.path)
        raw = [s for ch in (0, 1) for s in transcriber.transcribe_channel(data[:, ch], sr, channel=ch)]
        raw_by_file[name] = (raw, data, sr)
        ref = _ref(name)
        for label, enabled in (("with", True), ("without", False)):
            cleaned = clean_segments(raw, data, sr, None, CleanupSettings(bleed=BleedSettings(enabled=enabled)))
            turns = _turns(cleaned.segments, ref["channel_map"])
            s = stats[label]
            s[0] += len(bleed_duplicates(turns, ref["turns"]))
            s[1] += len(turns)
            found = script_lines_found(turns, ref["turns"])
            s[2] += sum(found)
            s[3] += len(found)
    w, wo = stats["with"], stats["without"]
    n = len(raw_by_file)
    note = f"{n} generated stereo calls (-30..-10 dB cross-talk); reference = same ASR segments, bleed handling off"
    return [
        row(
            "realcalls",
            "duplicate_turn_rate",
            round(w[0] / max(w[1], 1), 3),
            "share",
            round(wo[0] / max(wo[1], 1), 3),
            None,
            note + f"; {w[0]}/{w[1]} vs {wo[0]}/{wo[1]} turns; aim <= 0.02",
        ),
        row(
            "realcalls",
            "script_lines_kept",
            round(w[2] / max(w[3], 1), 3),
            "share",
            round(wo[2] / max(wo[3], 1), 3),
            None,
            f"{w[2]}/{w[3]} lines (backchannels included) on their own speaker; aim >= 0.98",
        ),
    ], raw_by_file


def _silence_rows(quick: bool, transcriber) -> list[dict]:
    """Words on stretches that hold only music or silence/line noise: pipeline vs bare Whisper without VAD."""
    import soundfile as sf

    from vak_pipeline.speech.asr import AsrSettings, Transcriber
    from vak_pipeline.speech.hallucination import ChannelLevels, drop_hallucinations

    audio, sr = sf.read(REAL / "hold_music.ogg", dtype="float32", always_2d=True)
    pieces = []
    for span in _ref("hold_music.ogg")["no_speech"]:
        pieces.append((span["kind"], audio[int(span["start"] * sr) : int(span["end"] * sr), span["channel"]]))
    rng = np.random.default_rng(15)
    pieces.append(("line_noise", (0.003 * rng.standard_normal(10 * sr)).astype(np.float32)))
    pieces.append(("digital_silence", np.zeros(10 * sr, dtype=np.float32)))
    bare = Transcriber(AsrSettings(**(transcriber.settings.model_dump() | {"vad_filter": False})))
    ours_words = bare_words = 0
    kinds = []
    for kind, x in pieces:
        segs = transcriber.transcribe_channel(x, sr, channel=0)
        kept, _ = drop_hallucinations(segs, {0: ChannelLevels(x, sr)})
        ours_words += sum(len(s.words) for s in kept)
        raw = bare.transcribe_channel(x, sr, channel=0)
        bare_words += sum(len(s.words) for s in raw)
        kinds.append(f"{kind}: {' | '.join(s.text for s in raw)[:40] or '-'}")
    return [
        row(
            "realcalls",
            "hallucinated_words_on_non_speech",
            ours_words,
            "words",
            bare_words,
            None,
            f"{len(pieces)} stretches ({sum(len(x) for _, x in pieces) / sr:.0f} s: hold music, silence, noise); "
            f"reference = bare Whisper without VAD: {'; '.join(kinds)}; aim 0",
        )
    ]


def _rttm(path: Path):
    from pyannote.core import Annotation, Segment

    ann = Annotation()
    for line in path.read_text(encoding="utf-8").splitlines():
        f = line.split()
        if f and f[0] == "SPEAKER":
            ann[Segment(float(f[3]), float(f[3]) + float(f[4]))] = f[7]
    return ann


def _der(ref, segments, duration: float) -> tuple[float, float]:
    """DER with no collar, and with +-0.25 s around reference boundaries forgiven (pyannote's collar=0.5)."""
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.diarization import DiarizationErrorRate

    hyp = Annotation()
    for s in segments:
        hyp[Segment(s.start, s.end)] = s.label
    uem = Timeline([Segment(0.0, duration)])
    return DiarizationErrorRate(collar=0.0)(ref, hyp, uem=uem), DiarizationErrorRate(collar=0.5)(ref, hyp, uem=uem)


def _diarization_rows(quick: bool) -> list[dict]:
    import soundfile as sf

    from vak_pipeline.speech.diarize_offline import OfflineDiarizer

    d = OfflineDiarizer()
    warm = np.random.default_rng(0).standard_normal(16000 * 4).astype(np.float32) * 0.1
    d.diarize(warm, 16000)  # load the encoder and compile librosa's kernels outside the timing
    out = []
    ders, ders_c, secs, audio_s = [], [], 0.0, 0.0
    for name in MONO:
        x, sr = sf.read(REAL / name, dtype="float32")
        t0 = time.perf_counter()
        res = d.diarize(x, sr)
        secs += time.perf_counter() - t0
        audio_s += len(x) / sr
        der, der_c = _der(_rttm(REAL / name.replace(".ogg", ".rttm")), res.segments, len(x) / sr)
        ders.append(der)
        ders_c.append(der_c)
    ref_der = PYANNOTE_CALLHOME_DER["pyannote community-1"]
    out.append(
        row(
            "realcalls",
            "offline_der_generated_mono",
            round(float(np.mean(ders)), 3),
            "DER",
            ref_der,
            None,
            f"{len(MONO)} mono mixes: {', '.join(f'{v:.2f}' for v in ders)} (collar 0; +-0.25 s collar "
            f"{np.mean(ders_c):.3f}); reference = pyannote community-1 published CALLHOME DER; "
            f"{secs / audio_s:.3f} s per audio s",
        )
    )
    sample = _pyannote_sample()
    if sample is None:
        out.append(
            row(
                "realcalls",
                "offline_der_pyannote_sample",
                None,
                "DER",
                None,
                None,
                "pyannote.audio's sample.wav is not installed here (pip install 'vak_pipeline[diarization]')",
            )
        )
        return out
    x, sr = sf.read(sample / "sample.wav", dtype="float32")
    res = d.diarize(x, sr)
    der, der_c = _der(_rttm(sample / "sample.rttm"), res.segments, len(x) / sr)
    published = ", ".join(f"{k} {v:.3f}" for k, v in PYANNOTE_CALLHOME_DER.items())
    out.append(
        row(
            "realcalls",
            "offline_der_pyannote_sample",
            round(der, 3),
            "DER",
            ref_der,
            None,
            f"real 2-speaker phone excerpt ({len(x) / sr:.0f} s), collar 0 (+-0.25 s collar: {der_c:.3f}); "
            f"published CALLHOME DER: {published}; aim <= 0.20",
        )
    )
    return out


def _stm_text(path: Path) -> str:
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        f = line.split(maxsplit=5)
        if len(f) == 6:
            lines.append((float(f[3]), f[5]))
    return " ".join(t for _, t in sorted(lines))


def _bare_text(model, x: np.ndarray, sr: int, settings) -> str:
    from vak_pipeline.speech.asr import to_asr_rate

    lang = "en" if not model.model.is_multilingual else settings.language
    segs, _ = model.transcribe(
        to_asr_rate(x, sr),
        language=lang,
        beam_size=settings.beam_size,
        word_timestamps=True,
        vad_filter=settings.vad_filter,
    )
    return " ".join(s.text.strip() for s in segs)


def _sample_call_scripts() -> dict[str, tuple[dict[str, str], dict[int, str]]]:
    """file -> (channel map, channel -> script text) of the English sample calls (make_speech_fixtures.CALLS)."""
    spec = importlib.util.spec_from_file_location("make_speech_fixtures", ROOT / "scripts" / "make_speech_fixtures.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    out = {}
    for name in ("call_001", "call_003"):
        call = mod.CALLS[name]
        ch_of = {role: int(ch) for ch, role in call["channel_map"].items()}
        out[f"{name}.flac"] = (
            call["channel_map"],
            {ch_of[r]: " ".join(ln.text for ln in call["lines"] if ln.speaker == r) for r in ("agent", "user")},
        )
    return out


def _wer_rows(quick: bool, settings) -> list[dict]:
    """Pipeline transcripts vs bare faster-whisper on the original files; bare on the 24 kHz copy vs original."""
    import soundfile as sf

    from vak_pipeline.audio.stage import normalize_upload, read_audio_index
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.speech.asr import Transcriber
    from vak_pipeline.speech.diarize_offline import OfflineDiarizer
    from vak_pipeline.speech.metrics import wer
    from vak_pipeline.speech.stage import tag_upload, transcribe_upload

    scripts: dict[str, tuple[dict[str, str], dict[int, str]]] = {}
    for name in STEREO[:1] if quick else STEREO:
        ref = _ref(name)
        scripts[name] = (
            ref["channel_map"],
            {ch: " ".join(t["text"] for t in ref["turns"] if t["channel"] == ch) for ch in (0, 1)},
        )
    sample_scripts = _sample_call_scripts()
    scripts |= sample_scripts
    tmp = Path(tempfile.mkdtemp(prefix="bench_realcalls_wer_"))
    try:
        up = tmp / "raw" / "wer"
        up.mkdir(parents=True)
        with open(up / "recordings.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["file", "channel_map"])
            for name, (cmap, _) in scripts.items():
                shutil.copy((SAMPLE if name in sample_scripts else REAL) / name, up / name)
                w.writerow([name, json.dumps(cmap)])
        (up / "upload.yaml").write_text("locale: en-US\nsource: synthetic\nconsent: synthetic\n", encoding="utf-8")
        sample = _pyannote_sample()
        if sample is not None:
            shutil.copy(sample / "sample.wav", up / "pyannote_sample.wav")
        layout = DataLayout.at(tmp)
        normalize_upload(layout, "wer")
        tr = Transcriber(settings)
        transcribe_upload(layout, "wer", settings, OfflineDiarizer(), transcriber=tr)
        tag_upload(layout, "wer")
        recs = {
            json.loads(x)["meta"]["source_file"]: json.loads(x)
            for x in layout.conversations("wer").read_text().splitlines()
        }
        rows_by_file = {r.source_file: r for r in read_audio_index(layout, "wer")}
        ours, bare, copy, clean = [], [], [], []
        for name, (_, per_ch) in scripts.items():
            rec = recs[name]
            cmap = rec["audio"]["channel_map"]
            orig, osr = sf.read(up / name, dtype="float32", always_2d=True)
            norm, nsr = sf.read(layout.root / rows_by_file[name].path, dtype="float32", always_2d=True)
            for ch, text in per_ch.items():
                said = " ".join(t["text"] for t in rec["turns"] if t.get("text") and t["speaker"] == cmap[str(ch)])
                ours.append(wer(text, said))
                bare.append(wer(text, _bare_text(tr.model, orig[:, ch], osr, settings)))
                copy.append(wer(text, _bare_text(tr.model, norm[:, ch], nsr, settings)))
                clean.append(name in sample_scripts)

        def mean(values, only=None):
            picked = [v for v, c in zip(values, clean, strict=True) if only is None or c == only]
            return round(float(np.mean(picked)), 3)

        n, k = len(ours), sum(clean)
        out = [
            row(
                "realcalls",
                "wer_pipeline",
                mean(ours),
                "WER",
                mean(bare),
                None,
                f"{n} channels of {len(scripts)} stereo calls (generated with cross-talk + English sample calls); "
                "reference = bare faster-whisper on the original files, same model/settings (the other side's bleed "
                "counts as insertions there)",
            ),
            row(
                "realcalls",
                "wer_pipeline_clean_calls",
                mean(ours, True),
                "WER",
                mean(bare, True),
                None,
                f"{k} channels of the English sample calls (no cross-talk); reference = bare faster-whisper on the "
                "original files",
            ),
            row(
                "realcalls",
                "wer_bare_on_24k_copy",
                mean(copy),
                "WER",
                mean(bare),
                None,
                f"bare faster-whisper on the pipeline's 24 kHz 16-bit copy; reference = the same on the original "
                f"file (clean calls only: {mean(copy, True)} vs {mean(bare, True)})",
            ),
        ]
        if sample is not None:
            rec = recs["pyannote_sample.wav"]
            ref_text = _stm_text(sample / "sample.stm")
            said = " ".join(t["text"] for t in sorted(rec["turns"], key=lambda t: t["start"]) if t.get("text"))
            x, sr = sf.read(sample / "sample.wav", dtype="float32")
            b = wer(ref_text, _bare_text(tr.model, x, sr, settings))
            out.append(
                row(
                    "realcalls",
                    "wer_pyannote_sample",
                    round(wer(ref_text, said), 3),
                    "WER",
                    round(b, 3),
                    None,
                    f"real phone excerpt vs sample.stm, mono through the pipeline (offline diarizer, "
                    f"{settings.model_name()}); reference = bare faster-whisper on sample.wav",
                )
            )
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(quick: bool) -> list[dict]:
    from vak_pipeline.audio.stage import normalize_upload, read_audio_index
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.speech.asr import Transcriber

    settings = _settings(quick)
    tr = Transcriber(settings)
    tmp = Path(tempfile.mkdtemp(prefix="bench_realcalls_"))
    try:
        up = tmp / "raw" / "real"
        up.mkdir(parents=True)
        for name in STEREO:
            shutil.copy(REAL / name, up / name)
        (up / "upload.yaml").write_text("locale: en-US\nsource: synthetic\nconsent: synthetic\n", encoding="utf-8")
        layout = DataLayout.at(tmp)
        normalize_upload(layout, "real")
        rows_by_file = {r.source_file: r for r in read_audio_index(layout, "real")}
        out, _ = _bleed_rows(quick, layout, rows_by_file, tr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out += _crosstalk_rows()
    out += _silence_rows(quick, tr)
    out += _diarization_rows(quick)
    out += _wer_rows(quick, settings)
    return out
