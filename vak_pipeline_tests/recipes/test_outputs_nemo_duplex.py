"""duplex_s2s read back with Lhotse, checking every field NeMo's DuplexS2SDataset reads.

NeMo does not install offline, so what its dataset does with a batch of cuts is replicated here (no code
copied), from NVIDIA/NeMo nemo/collections/speechlm2/data/s2s_dataset.py @ 77fdbbc215395eabcdc24328959ed69d5b420083:
  __getitem__: cuts.transform_text(...) on supervision text; collate_audio(cuts.resample(source_sample_rate));
    collate_audio(cuts.resample(target_sample_rate), recording_field="target_audio");
    target_texts = " ".join(s.text for s in cut.supervisions if s.speaker in output_roles)
  build_token_channel: total = compute_num_frames(cut.duration, frame_length, cut.sampling_rate); per
    supervision of a role, pos = compute_num_frames(s.start, ...) (warned and skipped when > total) and the
    EOS frame compute_num_frames(s.end, ...).
lhotse's collate_audio and compute_num_frames are called for real (lhotse is the `nemo` extra).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from vak_pipeline.recipes.duplex_s2s import DuplexS2SConfig, export_duplex_s2s
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import (
    make_audio,
    make_record,
    tone,
    turn,
    write_manifest,
    write_phone_redaction_log,
    write_wav,
)

lhotse = pytest.importorskip("lhotse")
MASK = (1.5, 2.3)


def call(root: Path, n: int, lang: str = "en", locale: str = "en-US", engine: str | None = None):
    agent = tone(300, 4.0)
    a, b = int(MASK[0] * 24000), int(MASK[1] * 24000)
    agent[a:b] = tone(1000, MASK[1] - MASK[0])[: b - a]
    write_wav(root / "audio" / f"c{n}.wav", [tone(500, 4.0), agent], sample_rate=24000)  # ch0 user, ch1 agent
    write_phone_redaction_log(root, f"c{n}", 13, 22, MASK, channel=1)
    turns = [
        turn("user", 0.0, 1.0, "hello there", lang=lang),
        turn("agent", 1.1, 2.5, "my number is <PHONE_1>"),
        turn("user", 2.4, 3.0, "ok", lang=lang),
        turn("agent", 3.1, 4.0, "anything else"),
    ]
    meta = {"transcription": {"engine": engine}} if engine else {}
    return make_record(
        f"c{n}",
        {"agent": f"agent{n}", "user": f"user{n}"},
        turns,
        locale=locale,
        audio=make_audio(f"c{n}", 4.0, channel_map={"0": "user", "1": "agent"}),
        redaction_log=f"redactions/c{n}.json",
        **meta,
    )


@pytest.fixture
def export(tmp_path):
    records = [call(tmp_path, n) for n in range(3)] + [make_record(f"t{n}", {"user": f"tu{n}"}) for n in range(5)]
    write_manifest(tmp_path / "vakforge.jsonl", records)
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json")
    return export_duplex_s2s(tmp_path)


def nemo_batch(cuts, config: DuplexS2SConfig) -> dict:
    """The fields of DuplexS2SDataset.__getitem__ that depend on the data (tokenizer-free)."""
    from lhotse.dataset.collation import collate_audio

    source, source_lens = collate_audio(cuts.resample(config.source_sample_rate))
    target, target_lens = collate_audio(cuts.resample(config.target_sample_rate), recording_field="target_audio")
    return {
        "source_audio": source,
        "source_audio_lens": source_lens,
        "target_audio": target,
        "target_audio_lens": target_lens,
        "target_texts": [" ".join(s.text for s in c.supervisions if s.speaker in {config.agent_role}) for c in cuts],
    }


def token_frames(cut, frame_length: float, roles: set[str]) -> list[tuple[int, int]]:
    """(BOS frame, EOS frame) per supervision of `roles`, as build_token_channel places them."""
    total = lhotse.utils.compute_num_frames(cut.duration, frame_length, cut.sampling_rate)
    out = []
    for s in cut.supervisions:
        if s.speaker in roles:
            pos = lhotse.utils.compute_num_frames(s.start, frame_length, cut.sampling_rate)
            assert pos <= total, "NeMo would warn and drop this supervision"
            out.append((pos, lhotse.utils.compute_num_frames(s.end, frame_length, cut.sampling_rate)))
    return out


def test_every_split_is_lhotse_shar_nemo_can_batch(export):
    config = DuplexS2SConfig()
    block = yaml.safe_load((export.out_dir / "nemo_data.yaml").read_text())["data"]
    assert block["input_roles"] == ["user"] and block["output_roles"] == ["assistant"]  # NeMo defaults differ
    assert block["train_ds"]["input_cfg"] == [{"type": "lhotse_shar", "shar_path": "train"}]
    shar_paths = ["train"] + [d["shar_path"] for d in block["validation_ds"]["datasets"].values()]
    assert sorted(shar_paths) == ["test", "train", "validation"]
    for shar in shar_paths:
        cuts = lhotse.CutSet.from_shar(in_dir=str(export.out_dir / shar)).to_eager()
        assert len(cuts) == 1
        cut = cuts[0]
        assert cut.recording.sampling_rate == config.source_sample_rate
        assert cut.target_audio.sampling_rate == config.target_sample_rate
        assert {s.speaker for s in cut.supervisions} == {"user", "assistant"}
        assert all(s.channel == 0 and s.text and s.language == "en" for s in cut.supervisions)
        batch = nemo_batch(cuts, config)
        assert int(batch["source_audio_lens"][0]) == 4 * config.source_sample_rate
        assert int(batch["target_audio_lens"][0]) == 4 * config.target_sample_rate
        assert batch["target_texts"] == ["my number is anything else"]  # the placeholder is not in the text
        frames = token_frames(cut, block["frame_length"], {"assistant"})
        assert frames == [(14, 31), (39, 50)]  # 1.1 s / 0.08 -> 13.75 -> frame 14 (lhotse rounds)
        target = batch["target_audio"][0].numpy()
        a, b = int(MASK[0] * config.target_sample_rate), int(MASK[1] * config.target_sample_rate)
        assert np.abs(target[a + 50 : b - 50]).max() < 1e-3  # silence, not the beep
        assert np.abs(batch["source_audio"][0].numpy()).max() > 0.1


def test_a_transcript_from_a_model_without_the_language_is_left_out(tmp_path):
    records = [
        call(tmp_path, 0, lang="hi-Latn", locale="hi-Latn-IN", engine="faster-whisper-tiny.en"),
        call(tmp_path, 1, engine="faster-whisper-tiny.en"),
        call(tmp_path, 2, lang="hi-Latn", locale="hi-Latn-IN", engine="large-v3"),
    ]
    write_manifest(tmp_path / "vakforge.jsonl", records)
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json")
    result = export_duplex_s2s(tmp_path)
    skipped = [json.loads(x) for x in result.skipped_path.read_text().splitlines()]
    assert [(s["id"], s["code"]) for s in skipped] == [("c0", "asr_language_unfit")]
    assert "tiny.en" in skipped[0]["reason"] and "large-v3" in skipped[0]["reason"]
    assert result.counts["conversations"] == 2 and result.counts["asr_language_unfit_turns"] == 4


def test_by_reference_the_cuts_point_at_the_release_audio_and_nemo_batches_the_same_streams(tmp_path):
    """audio="reference": no tars; an unmasked call's file is a hard link to the release's recording, a masked
    one is its re-masked copy; NeMo's collation reads each stream at its rate from those files."""
    import os

    records = [call(tmp_path, 0)]
    write_wav(tmp_path / "audio" / "c9.wav", [tone(500, 4.0), tone(300, 4.0)])  # no redaction: linked
    records.append(make_record("c9", {"agent": "agent9", "user": "user9"},
                               [turn("user", 0.0, 1.0, "hello there"), turn("agent", 1.1, 2.5, "how can I help")],
                               audio=make_audio("c9", 4.0, channel_map={"0": "user", "1": "agent"})))
    write_manifest(tmp_path / "vakforge.jsonl", records)
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json",
                   SplitConfig(ratios={"train": 1.0, "validation": 0.0, "test": 0.0}))
    config = DuplexS2SConfig(audio="reference")
    res = export_duplex_s2s(tmp_path, config)
    assert not list(res.out_dir.rglob("*.tar")) and not res.counts.get("audio_bytes_embedded")
    linked = res.out_dir / "audio/train/c9.wav"
    assert os.stat(linked).st_ino == os.stat(tmp_path / "audio/c9.wav").st_ino
    assert os.stat(res.out_dir / "audio/train/c0.wav").st_ino != os.stat(tmp_path / "audio/c0.wav").st_ino
    cuts = lhotse.CutSet.from_shar(in_dir=str(res.out_dir / "train")).to_eager()
    by_id = {c.id: c for c in cuts}
    batch = nemo_batch(lhotse.CutSet.from_cuts([by_id["c0"]]), config)
    assert int(batch["source_audio_lens"][0]) == 4 * config.source_sample_rate
    assert int(batch["target_audio_lens"][0]) == 4 * config.target_sample_rate
    target = batch["target_audio"][0].numpy()
    a, b = int(MASK[0] * config.target_sample_rate), int(MASK[1] * config.target_sample_rate)
    assert np.abs(target[a + 200 : b - 200]).max() < 1e-2  # the agent's re-masked span: silence, not the beep
    assert np.abs(target[: a - 200]).max() > 0.1 and np.abs(batch["source_audio"][0].numpy()).max() > 0.1
    embedded = export_duplex_s2s(tmp_path, DuplexS2SConfig(), out_dir=tmp_path / "embedded")
    assert embedded.counts["audio_bytes_embedded"] > 0
