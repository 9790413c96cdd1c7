"""Mono calls: pyannote.audio 4 diarization (real code path, tiny random-weight models built here), words to
the speaker that overlaps them most, and the documented agent rule."""

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from vak_pipeline.speech.diarize import (
    AgentHintError,
    DiarizationResult,
    Diarizer,
    agent_label,
    attribute_words,
    speaker_of,
)
from vak_pipeline.speech.models import Segment, SpeakerSegment, WordTiming

pytestmark = pytest.mark.slow  # real models (tiny.en, pyannote): seconds, still run in CI

FIX = Path(__file__).parents[1] / "fixtures" / "speech"


def spk(label, start, end):
    return SpeakerSegment(label=label, start=start, end=end)


DIAR = DiarizationResult(segments=[spk("SPEAKER_01", 0.0, 3.0), spk("SPEAKER_00", 3.2, 6.0),
                                   spk("SPEAKER_01", 6.1, 9.0), spk("SPEAKER_00", 8.5, 9.5)],
                         labels=["SPEAKER_00", "SPEAKER_01"])


def test_a_word_goes_to_the_speaker_whose_segment_overlaps_it_most():
    assert speaker_of(2.8, 3.6, DIAR.segments) == ("SPEAKER_00", pytest.approx(0.5))
    assert speaker_of(8.0, 9.0, DIAR.segments)[0] == "SPEAKER_01"  # overlapped talk: 1.0 s of 01 vs 0.5 s of 00
    assert speaker_of(8.4, 9.2, DIAR.segments)[0] == "SPEAKER_00"  # 0.6 s of 01 vs 0.7 s of 00
    assert speaker_of(9.8, 10.0, DIAR.segments) == ("SPEAKER_00", 0.0)  # no overlap: nearest, coverage 0


def test_agent_rule_hint_label_then_most_then_first():
    assert agent_label(DIAR.segments, None) == ("SPEAKER_01", "first")  # agents open calls
    assert agent_label(DIAR.segments, "first") == ("SPEAKER_01", "first")
    assert agent_label(DIAR.segments, "most") == ("SPEAKER_01", "most")
    assert agent_label(DIAR.segments, "SPEAKER_00") == ("SPEAKER_00", "label")
    with pytest.raises(AgentHintError):
        agent_label(DIAR.segments, "SPEAKER_07")


def test_segments_are_split_where_the_speaker_changes_inside_them():
    words = [WordTiming(word=w, start=s, end=s + 0.4) for w, s in
             [("hello", 0.2), ("there", 2.0), ("hi", 3.4), ("yes", 4.0)]]
    seg = Segment(start=0.2, end=4.4, text="hello there hi yes", words=words, channel=0)
    out, roles, conf, rule = attribute_words([seg], DIAR, None)
    assert [(s.speaker, s.text) for s in out] == [("agent", "hello there"), ("user", "hi yes")]
    assert roles == {"SPEAKER_01": "agent", "SPEAKER_00": "user"} and rule == "first" and conf == 1.0


# --- the real pyannote pipeline, from a local directory (how an air-gapped cluster configures it)

pytest.importorskip("pyannote.audio")


def build_tiny_pipeline(d: Path) -> Path:
    """A pyannote SpeakerDiarization directory (config.yaml + segmentation/embedding/plda) with tiny random
    weights: the production code path (segmentation -> embeddings -> VBx clustering) without gated weights."""
    os.environ.setdefault("PYANNOTE_METRICS_ENABLED", "false")
    import lightning
    import torch
    import yaml
    from pyannote.audio.core.task import Problem, Resolution, Specifications
    from pyannote.audio.models.embedding import XVectorMFCC
    from pyannote.audio.models.segmentation import PyanNet

    def save(model, path: Path) -> None:
        ckpt = {"state_dict": model.state_dict(), "hyper_parameters": dict(model.hparams),
                "pytorch-lightning_version": lightning.__version__}
        model.on_save_checkpoint(ckpt)  # adds pyannote.audio versions/architecture/specifications
        path.mkdir(parents=True, exist_ok=True)
        torch.save(ckpt, path / "pytorch_model.bin")

    torch.manual_seed(0)
    seg = PyanNet(sincnet={"stride": 10}, lstm={"hidden_size": 16, "num_layers": 1},
                  linear={"hidden_size": 16, "num_layers": 1})
    seg.specifications = Specifications(problem=Problem.MONO_LABEL_CLASSIFICATION, resolution=Resolution.FRAME,
                                        duration=5.0, classes=["speaker#1", "speaker#2"], powerset_max_classes=2,
                                        permutation_invariant=True)
    seg.build()
    save(seg, d / "segmentation")
    emb = XVectorMFCC(dimension=16)
    emb.specifications = Specifications(problem=Problem.REPRESENTATION, resolution=Resolution.CHUNK, duration=5.0)
    emb.build()
    save(emb, d / "embedding")
    rng = np.random.default_rng(0)
    (d / "plda").mkdir()
    np.savez(d / "plda" / "xvec_transform.npz", mean1=rng.normal(size=16), mean2=rng.normal(size=8) * 0.1,
             lda=rng.normal(size=(16, 8)))
    np.savez(d / "plda" / "plda.npz", mu=np.zeros(8), tr=np.eye(8) + 0.1 * rng.normal(size=(8, 8)),
             psi=np.linspace(2, 0.5, 8))
    cfg = {"pipeline": {"name": "pyannote.audio.pipelines.SpeakerDiarization",
                        "params": {"segmentation": "$model/segmentation", "embedding": "$model/embedding",
                                   "plda": "$model/plda", "clustering": "VBxClustering"}},
           "params": {"segmentation": {"min_duration_off": 0.0},
                      "clustering": {"threshold": 0.6, "Fa": 0.07, "Fb": 0.8}}}
    (d / "config.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def tiny_pipeline(tmp_path_factory) -> Path:
    return build_tiny_pipeline(tmp_path_factory.mktemp("pyannote") / "tiny-diarization")


def test_pyannote_pipeline_from_a_local_directory_yields_labelled_segments(tiny_pipeline):
    audio, sr = sf.read(FIX / "mono_two_voices.flac", dtype="float32")
    d = Diarizer(pipeline=str(tiny_pipeline), device="cpu")
    res = d.diarize(audio, sr)
    assert res.segments and set(res.labels) == {s.label for s in res.segments}
    assert all(s.label.startswith("SPEAKER_") and 0 <= s.start <= s.end <= len(audio) / sr + 0.1
               for s in res.segments)
    assert [s.start for s in res.segments] == sorted(s.start for s in res.segments)
    assert d.engine == "pyannote:tiny-diarization"


def test_mono_call_through_the_stage_uses_the_diarizer_and_records_engine_and_confidence(tiny_pipeline, tmp_path):
    from vak_pipeline.audio.stage import normalize_upload
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.speech.asr import AsrSettings
    from vak_pipeline.speech.stage import tag_upload, transcribe_upload

    up = tmp_path / "raw" / "mono"
    up.mkdir(parents=True)
    shutil.copy(FIX / "mono_two_voices.flac", up / "call.flac")
    (up / "upload.yaml").write_text("locale: en-US\nsource: synthetic\nconsent: synthetic\nagent_speaker_hint: first\n",
                                    encoding="utf-8")
    layout = DataLayout.at(tmp_path)
    assert normalize_upload(layout, "mono").recordings == 1
    res = transcribe_upload(layout, "mono", AsrSettings(beam_size=1, cpu_threads=2),
                            Diarizer(pipeline=str(tiny_pipeline), device="cpu"))
    assert (res.transcribed, res.issues) == (1, [])
    tr = json.loads(layout.transcripts("mono").read_text())
    assert tr["attribution"] == "diarization"
    assert tr["diarization"]["engine"] == "pyannote:tiny-diarization" and tr["diarization"]["agent_rule"] == "first"
    assert 0.0 <= tr["diarization"]["confidence"] <= 1.0
    assert {s["speaker"] for s in tr["segments"]} <= {"agent", "user"} and tr["segments"][0]["speaker"] == "agent"
    assert set(tr["speaker_labels"].values()) <= {"agent", "user"}
    tag = tag_upload(layout, "mono")
    rec = json.loads(layout.conversations("mono").read_text())
    assert tag.from_audio == 1 and rec["audio"]["channels"] == 1 and "channel_map" not in rec["audio"]
    assert rec["meta"]["diarization"]["engine"] == "pyannote:tiny-diarization"


def test_an_agent_hint_naming_an_unknown_label_is_an_issue_not_a_guess(tiny_pipeline, tmp_path):
    from vak_pipeline.audio.stage import normalize_upload
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.speech.asr import AsrSettings
    from vak_pipeline.speech.stage import transcribe_upload

    up = tmp_path / "raw" / "mono"
    up.mkdir(parents=True)
    shutil.copy(FIX / "mono_two_voices.flac", up / "call.flac")
    (up / "upload.yaml").write_text("locale: en-US\nsource: synthetic\nconsent: synthetic\n"
                                    "agent_speaker_hint: SPEAKER_09\n", encoding="utf-8")
    layout = DataLayout.at(tmp_path)
    normalize_upload(layout, "mono")
    res = transcribe_upload(layout, "mono", AsrSettings(beam_size=1, cpu_threads=2),
                            Diarizer(pipeline=str(tiny_pipeline), device="cpu"))
    assert [i.code for i in res.issues] == ["agent_hint_unknown_label"] and res.conversations == 0


def test_pyannote_on_cuda_is_built_on_the_gpu_and_its_device_is_part_of_the_cache_key(tiny_pipeline, monkeypatch):
    """GPU ready without a GPU: `device: cuda` (or `auto` where torch sees one) moves the real pipeline to
    cuda, and the transcript cache key names the device, since GPU kernels can round speakers differently."""
    import torch
    from pyannote.audio import Pipeline

    moved: list[str] = []

    def to(self, device):
        moved.append(str(device))
        return self

    monkeypatch.setattr(Pipeline, "to", to)
    on_cpu = Diarizer(pipeline=str(tiny_pipeline), device="cpu")
    on_gpu = Diarizer(pipeline=str(tiny_pipeline), device="cuda")
    assert on_gpu.load() is not None and moved[-1] == "cuda"
    assert on_gpu.fingerprint() != on_cpu.fingerprint()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    auto = Diarizer(pipeline=str(tiny_pipeline), device="auto")
    assert auto.resolved_device() == "cuda" and auto.fingerprint() == on_gpu.fingerprint()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert Diarizer(pipeline=str(tiny_pipeline)).fingerprint() == on_cpu.fingerprint()
