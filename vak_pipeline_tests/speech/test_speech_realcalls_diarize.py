"""Mono calls offline (issue 15): the default diarizer needs no hub download (Silero VAD from faster-whisper,
the resemblyzer wheel's speaker encoder, scikit-learn clustering), so a mono call becomes two speakers' turns on
a fresh machine; pyannote stays one setting away; the agent rule and moshi_lora's refusal of mono stay."""

import json
import shutil
from pathlib import Path

import pytest
import soundfile as sf

from vak_pipeline.audio.stage import normalize_upload
from vak_pipeline.layout import DataLayout
from vak_pipeline.speech.asr import AsrSettings
from vak_pipeline.speech.diarize import Diarizer, DiarizerSettings
from vak_pipeline.speech.diarize_offline import OfflineDiarizer, select_diarizer
from vak_pipeline.speech.stage import tag_upload, transcribe_upload

pytestmark = pytest.mark.slow  # real models (tiny.en, resemblyzer): seconds, still run in CI

FIX = Path(__file__).parents[1] / "fixtures" / "realcalls"
FAST = AsrSettings(beam_size=1, cpu_threads=2, device="cpu")


def rttm(path: Path) -> list[tuple[str, float, float]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        f = line.split()
        out.append((f[7], float(f[3]), float(f[3]) + float(f[4])))
    return out


def frame_error(ref: list[tuple[str, float, float]], hyp, step: float = 0.05) -> float:
    """Share of reference speech time (one speaker at a time) given to the wrong speaker or missed, under the
    best one-to-one mapping of the two hypothesis labels: a DER without false alarm, for the test."""
    import itertools

    end = max(e for _, _, e in ref)
    times = [i * step for i in range(int(end / step))]

    def who(segs, t):
        names = {s for s, a, b in segs if a <= t < b}
        return names.pop() if len(names) == 1 else None

    pairs = [(who(ref, t), who([(s.label, s.start, s.end) for s in hyp], t)) for t in times]
    pairs = [(r, h) for r, h in pairs if r is not None]
    ref_names = sorted({r for r, _ in pairs})
    hyp_names = sorted({s.label for s in hyp})
    best = 1.0
    for perm in itertools.permutations(hyp_names, len(ref_names)):
        mapping = dict(zip(perm, ref_names, strict=True))
        wrong = sum(1 for r, h in pairs if mapping.get(h) != r)
        best = min(best, wrong / len(pairs))
    return best


def test_the_offline_engine_finds_the_two_speakers_of_a_mono_call():
    audio, sr = sf.read(FIX / "xtalk_16db.mono.ogg", dtype="float32")
    diarizer = OfflineDiarizer()
    res = diarizer.diarize(audio, sr)
    assert res.labels == ["SPEAKER_00", "SPEAKER_01"]
    assert frame_error(rttm(FIX / "xtalk_16db.mono.rttm"), res.segments) < 0.2
    assert 0.0 < diarizer.last_confidence <= 1.0
    assert diarizer.diarize(audio, sr).segments == res.segments  # same input, same speakers


def test_auto_falls_back_to_offline_when_pyannote_weights_are_absent(tmp_path):
    d, why = select_diarizer(DiarizerSettings(pipeline="pyannote/speaker-diarization-community-1"))
    assert isinstance(d, OfflineDiarizer) and "not on this machine" in why
    assert isinstance(select_diarizer()[0], OfflineDiarizer)
    local = tmp_path / "pipe"
    local.mkdir()
    (local / "config.yaml").write_text("pipeline: {}\n", encoding="utf-8")
    assert isinstance(select_diarizer(DiarizerSettings(pipeline=str(local)))[0], Diarizer)  # weights here: pyannote
    assert isinstance(select_diarizer(DiarizerSettings(engine="pyannote", pipeline="some/hub-id"))[0], Diarizer)
    assert select_diarizer(DiarizerSettings(engine="none"))[0] is None
    with pytest.raises(ValueError, match="engine"):
        DiarizerSettings(engine="magic")


def test_a_mono_call_becomes_agent_and_user_turns_offline(tmp_path):
    up = tmp_path / "raw" / "mono"
    up.mkdir(parents=True)
    shutil.copy(FIX / "xtalk_16db.mono.ogg", up / "call.ogg")
    (up / "upload.yaml").write_text("locale: en-US\nsource: synthetic\nconsent: synthetic\n", encoding="utf-8")
    layout = DataLayout.at(tmp_path)
    assert normalize_upload(layout, "mono").recordings == 1
    res = transcribe_upload(layout, "mono", FAST, OfflineDiarizer())
    assert (res.transcribed, res.needs_diarization, res.issues) == (1, 0, [])
    tr = json.loads(layout.transcripts("mono").read_text())
    assert tr["diarization"]["engine"] == "offline:resemblyzer" and tr["diarization"]["agent_rule"] == "first"
    assert tr["diarization"]["num_speakers"] == 2 and tr["diarization"]["confidence"] > 0.5
    tag_upload(layout, "mono")
    rec = json.loads(layout.conversations("mono").read_text())
    speakers = [t["speaker"] for t in rec["turns"]]
    assert set(speakers) == {"agent", "user"} and speakers[0] == "agent"  # the agent opens the call
    assert rec["meta"]["diarization"]["engine"] == "offline:resemblyzer"


def test_the_offline_engine_gives_the_same_speakers_whatever_the_process_thread_setting():
    """The speaker encoder runs on a fixed thread count, so a Dask worker (one thread) and a laptop (all
    cores) cut the same segments with the same confidence: part of same bytes on every executor."""
    import torch

    audio, sr = sf.read(FIX / "xtalk_16db.mono.ogg", dtype="float32")
    before = torch.get_num_threads()
    results = []
    try:
        for n in (1, 2, 4):
            torch.set_num_threads(n)
            d = OfflineDiarizer()
            res = d.diarize(audio, sr)
            results.append(([(s.label, s.start, s.end) for s in res.segments], d.last_confidence))
            assert torch.get_num_threads() == n  # the caller's setting is given back
    finally:
        torch.set_num_threads(before)
    assert results[0] == results[1] == results[2]
