"""Duplicate detection (identity): precision and recall on generated pairs, and its cost against ingest.

Audio: calls spoken by espeak-ng (bench/dedup_set.py), each delivered again as one or two of eleven variants
(re-encodes, resampling, gain, trims, pads, mono mix): recall is the share of variants that join their
call's group; precision counts every pair of distinct calls (same agent voice, every other pair opening with
the same script) that must not join. Text: chats re-exported with new ids, numbers, case and an edit
(positives), and chats of the same template with other customer turns (hard negatives).

Cost, in the same run: fingerprinting + indexing per hour of audio against bare faster-whisper (tiny.en,
int8, the pipeline's offline default) transcribing the same calls, the dominant cost of ingest; and text
identity per 10,000 chats against the text ingest of the same chats (scripts/make_corpus.py chats through
the text import, `tag_upload`, and the redaction, `redact_upload`), in CPU seconds of the process and its
children: identity indexes the redacted records as validation does (`index_record`, texts matched a batch at a
time) into the index of an earlier delivery, as a new upload is checked (the index is made once per dataset,
not per upload); both warm (a small upload goes through the ingest and the index first, so imports, packs and
models are paid once per process on both sides); each the median of five runs on fresh copies.
"""

from __future__ import annotations

import itertools
import tempfile
import time
from pathlib import Path


def _audio_rows(quick: bool, tmp: Path) -> list[dict]:
    from vak_pipeline.identity import ContentIndex, audio_print

    from .dedup_set import make_calls

    n = 12 if quick else 100
    pairs = list(make_calls(tmp / "calls", n))
    bases = sorted({p.a for p in pairs})
    seconds = 0.0
    t0, c0 = time.perf_counter(), _cpu()
    with ContentIndex.open(tmp / "audio.sqlite") as index:
        groups = {}
        for b in bases:
            m = index.add_audio(b, "bench", b, lambda b=b: audio_print(Path(b)))
            groups[b] = m.group
            seconds += index.item(b)[1]
        hits = total = 0
        for p in pairs:
            if not p.same:
                continue
            m = index.add_audio(p.b, "resent", p.b, lambda p=p: audio_print(Path(p.b)))
            seconds += index.item(p.b)[1]
            total += 1
            hits += m.group == groups[p.a]
    cost, cpu = time.perf_counter() - t0, _cpu() - c0
    files = [*bases, *(p.b for p in pairs if p.same)]
    norm_cpu, normalized = _normalize_reference(files, tmp / "normalized")
    c0 = _cpu()
    with ContentIndex.open(tmp / "audio-normalized.sqlite") as index:  # what validation fingerprints
        for f in normalized:
            index.add_audio(f.name, "bench", f.name, lambda f=f: audio_print(f))
    pipeline_cpu = _cpu() - c0
    neg_pairs = list(itertools.combinations(bases, 2))
    false = sum(groups[a] == groups[b] for a, b in neg_pairs)
    same_opening = sum(1 for p in pairs if not p.same)
    asr_s, asr_audio = _asr_reference(bases[: 3 if quick else 10])
    per_hour = cost / seconds * 3600  # per hour of recording (every channel and the mix)
    asr_per_hour = asr_s / asr_audio * 3600
    return [
        {"bench": "dedup", "metric": "audio recall (variants joined)", "value": hits / max(total, 1), "unit": "",
         "note": f"{hits}/{total} positive pairs over {len(bases)} calls"},
        {"bench": "dedup", "metric": "audio precision (distinct calls kept apart)",
         "value": 1 - false / max(len(neg_pairs), 1), "unit": "",
         "note": f"{false} false joins of {len(neg_pairs)} pairs, {same_opening} of them with the same opening"},
        {"bench": "dedup", "metric": "audio identity s per hour of audio", "value": per_hour, "unit": "s/h",
         "reference": asr_per_hour, "ratio": per_hour / asr_per_hour,
         "note": "reference: bare faster-whisper tiny.en int8 (beam 5, VAD, words) transcribing every channel of "
                 "the same calls (ingest's main cost)"},
        {"bench": "dedup", "metric": "audio identity CPU s per hour of audio", "value": pipeline_cpu / seconds * 3600,
         "unit": "s/h", "reference": norm_cpu / seconds * 3600, "ratio": pipeline_cpu / norm_cpu,
         "note": f"identity of the audio stage's 24 kHz WAVs (what validation indexes) against the stage's "
                 f"normalize_recording (decode, resample, inspect, write) of the same {len(files)} delivered "
                 f"files, CPU s; on the delivered files themselves {cpu / seconds * 3600:.1f} s/h "
                 f"({cpu / norm_cpu:.1%}); ASR comes on top"},
    ]


def _normalize_reference(files: list[str], out: Path) -> tuple[float, list[Path]]:
    """CPU seconds of the audio stage's per-file work (audio.normalize.normalize_recording) on `files`, and
    the WAVs it wrote."""
    from vak_pipeline.audio.normalize import normalize_recording

    out.mkdir(parents=True, exist_ok=True)
    normalize_recording(Path(files[0]), out / "warm.wav")  # imports once, not per file
    written = [out / f"{i}.wav" for i in range(len(files))]
    c0 = _cpu()
    for f, w in zip(files, written, strict=True):
        normalize_recording(Path(f), w)
    return _cpu() - c0, written


def _asr_reference(files: list[str]) -> tuple[float, float]:
    import soundfile as sf
    from faster_whisper import WhisperModel

    from vak_pipeline.speech.asr import AsrSettings

    model = WhisperModel(AsrSettings().model_ref(), device="cpu", compute_type="int8", cpu_threads=2)
    t0, audio = time.perf_counter(), 0.0
    for f in files:
        x, sr = sf.read(f, dtype="float32", always_2d=True)
        audio += len(x) / sr  # per hour of recording: ingest transcribes each channel
        for ch in range(x.shape[1]):
            import soxr

            segs, _ = model.transcribe(soxr.resample(x[:, ch], sr, 16000), beam_size=5, word_timestamps=True,
                                       vad_filter=True)
            list(segs)
    return time.perf_counter() - t0, audio


# The text cost is measured on a set of each size, quick or not: indexing 300 chats takes ~30 ms, whose scheduling
# noise on shared cores is larger than the margin to the aim; 2,000 chats take ~0.3 s against ~9 s of ingest.
COST_SIZES = (300, 2000)


def _text_rows(quick: bool, tmp: Path) -> list[dict]:
    from vak_pipeline.identity import ContentIndex, text_print
    from vak_pipeline.locales import get_pack
    from vak_pipeline.pii import scan_pii

    from .dedup_set import make_chats

    n = 200 if quick else 2000
    pairs = list(make_chats(n))

    def turns(ms: list[dict]) -> list[tuple[str, str]]:
        return [("user" if m["role"] == "user" else "agent", m["content"]) for m in ms]

    tp = fp = fn = tn = 0
    chats = 0
    text_print(turns(pairs[0][1]))  # imports and permutations: once per process, not per chat
    with ContentIndex.open(tmp / "text.sqlite") as index:
        for k, (id_a, a, id_b, b, same, _v) in enumerate(pairs):
            ga = index.add_text(f"{k}a-{id_a}", "u", f"{k}a", lambda a=a: text_print(turns(a))).group
            gb = index.add_text(f"{k}b-{id_b}", "v", f"{k}b", lambda b=b: text_print(turns(b))).group
            chats += 2
            joined = ga == gb
            tp += same and joined
            fn += same and not joined
            fp += (not same) and joined
            tn += (not same) and not joined
            index.remove([f"{k}a-{id_a}", f"{k}b-{id_b}"])  # each pair judged on its own
    pack = get_pack("en-US")
    texts = [m["content"] for _, a, _, b, _, _ in pairs for m in (*a, *b)]
    t1 = time.perf_counter()
    for t in texts:
        scan_pii(pack, t)
    pii10k = (time.perf_counter() - t1) / chats * 10_000
    rows = [
        {"bench": "dedup", "metric": "text recall (re-exports joined)", "value": tp / max(tp + fn, 1), "unit": "",
         "note": f"{tp}/{tp + fn} positive pairs"},
        {"bench": "dedup", "metric": "text precision (template siblings kept apart)",
         "value": tn / max(tn + fp, 1), "unit": "", "note": f"{fp} false joins of {tn + fp} hard negatives"},
    ]
    for size in COST_SIZES:  # both, quick or not: on 300 chats identity is ~30 ms, so the larger set is the figure
        n, ingest, identity = _text_cost(size, tmp / f"cost-{size}")
        per10k, ref10k = identity / n * 10_000, ingest / n * 10_000
        rows.append({"bench": "dedup", "metric": f"text identity CPU s per 10,000 chats ({n} chats)", "value": per10k,
                     "unit": "s", "reference": ref10k, "ratio": per10k / ref10k,
                     "note": f"identity {identity * 1000:.0f} ms CPU for the {n} chats; reference: text ingest (text "
                             f"import + redaction) of the same chats, each the median of 5 runs; the PII scan alone "
                             f"is {pii10k:.1f} s per 10,000"})
    return rows


def _cpu() -> float:
    import resource

    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _text_cost(n: int, tmp: Path, repeats: int = 5) -> tuple[int, float, float]:
    """(chats, CPU s of their text ingest, CPU s of indexing their redacted records by content), each the median
    of `repeats` runs on fresh copies (a fresh data root per ingest, a copy of the earlier delivery's index per
    indexing): indexing 300 chats takes about 30 ms, so a single run on shared cores is mostly scheduling noise."""
    import shutil
    import statistics
    import subprocess
    import sys

    from vak_pipeline.identity import ContentIndex
    from vak_pipeline.identity.records import index_record
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.redaction.stage import redact_upload
    from vak_pipeline.speech.stage import tag_upload
    from vak_pipeline.storage import iter_jsonl

    tmp.mkdir(parents=True, exist_ok=True)
    root = tmp / "ingest"
    subprocess.run([sys.executable, str(Path(__file__).resolve().parent.parent / "scripts" / "make_corpus.py"),
                    str(root), "--calls", "0", "--texts", str(n)], check=True, capture_output=True)
    shutil.rmtree(root / "raw" / "corpus-calls", ignore_errors=True)
    subprocess.run([sys.executable, str(Path(__file__).resolve().parent.parent / "scripts" / "make_corpus.py"),
                    str(root), "--calls", "0", "--texts", "20", "--seed", "7", "--upload", "warm-chats"],
                   check=True, capture_output=True)
    layout = DataLayout.at(root)
    tag_upload(layout, "warm-chats")  # imports, packs and models once per process, as identity's below
    redact_upload(layout, "warm-chats")
    ingests = []
    for i in range(repeats):
        copy = DataLayout.at(tmp / f"ingest-{i}")
        shutil.copytree(root / "raw" / "corpus-chats", copy.root / "raw" / "corpus-chats")
        c0 = _cpu()
        tag_upload(copy, "corpus-chats")
        redact_upload(copy, "corpus-chats")
        ingests.append(_cpu() - c0)
    records = [jl.value for jl in iter_jsonl(copy.redacted("corpus-chats")) if isinstance(jl.value, dict)]

    def index_upload(upload: str, path: Path, recs: list[dict], release_root: Path) -> float:
        c0 = _cpu()
        with ContentIndex.open(path) as index:
            for r in recs:
                index_record(index, r, upload, release_root)
        return _cpu() - c0

    # a delivery is checked against the index of what came before (made once per dataset, not per upload): the
    # warm upload is that earlier delivery, and each run starts from a copy of its index
    warm = [jl.value for jl in iter_jsonl(layout.redacted("warm-chats")) if isinstance(jl.value, dict)]
    index_upload("warm-chats", tmp / "earlier.sqlite", warm, layout.release_root)  # identity's imports once too
    identities = []
    for i in range(repeats):
        shutil.copy(tmp / "earlier.sqlite", tmp / f"index-{i}.sqlite")
        identities.append(index_upload("corpus-chats", tmp / f"index-{i}.sqlite", records, copy.release_root))
    return len(records), statistics.median(ingests), statistics.median(identities)


def run(quick: bool = False) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        return _audio_rows(quick, Path(tmp)) + _text_rows(quick, Path(tmp))


if __name__ == "__main__":
    from .__main__ import print_table

    print_table(run(quick=True))
