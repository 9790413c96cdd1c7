"""Full-duplex export for NVIDIA NeMo speechlm2 DuplexS2S, written with Lhotse itself (Lhotse Shar).

exports/duplex_s2s/
  <split>/cuts.000000.jsonl.gz          one MonoCut per conversation (Lhotse Shar, `shard_size` cuts a shard)
  <split>/recording.000000.tar          the user's channel, mono FLAC (`audio_format`) at `source_sample_rate`
                                        (cut.recording)
  <split>/target_audio.000000.tar       the agent's channel, mono FLAC at `target_sample_rate`
                                        (cut.custom["target_audio"], read by NeMo with recording_field="target_audio")
  nemo_data.yaml                        the `data:` block for NeMo's s2s_duplex.yaml: lhotse_shar input_cfg per split,
                                        frame_length, sample rates and the roles used here
  build.json skipped.jsonl flagged.jsonl

With `audio="reference"` the tars are not written: each cut's recording and target_audio point (absolute
path, where this export is published) at audio/<split>/<conv>.wav, the conversation's stereo file: a hard
link to the release's recording when nothing is re-masked (a copy where the file system cannot link), else
its re-masked copy. Lhotse picks the channel (the cut's channel; `target_audio_channel_selector`) and
resamples on load (a Resample transform in each recording), so the export adds no audio bytes of its own;
moving the data directory breaks those paths (rebuild the export). The default, "embed", keeps the Shar
self-contained and counts the audio bytes it embeds (build.json `audio_bytes_embedded`): lossless FLAC by
default (`audio_format`; lhotse decodes it with libsndfile, as it does its own Shar), or WAV.

Each spoken turn is a SupervisionSegment on channel 0 with `speaker` "user" or `agent_role` ("assistant"),
its text, start, duration and language. NeMo's DuplexS2SDataset places each supervision's tokens at
frame floor(start / frame_length) and its EOS at the frame of its end, per role; NeMo's default
output_roles are ["agent", "Assistant"], so nemo_data.yaml sets output_roles to `agent_role`.

Both streams are written at the rate NeMo asks for, because lhotse's Cut.resample resamples the cut's
recording but not its custom target_audio. Redacted spans are re-masked (`redacted_audio`, silence by
default) and placeholders such as <PHONE_1> are dropped from the supervision text, or, in a synthesized
call, replaced by the surrogate the audio speaks (recipes/spoken.py), so text and audio agree;
conversations transcribed by an ASR model that does not cover their language are left out.
Mono recordings are refused unless `allow_synthetic_stereo` (flagged). One process: Shar shards are
numbered in order and a sharded build would interleave them.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from ..schema import VakRecord
from .audio_io import (
    AudioProblem,
    EmbeddedFormat,
    audio_file,
    encoded_bytes,
    linkable_wav,
    read_audio,
    resample_int16,
    role_channels,
)
from .common import BuildResult, ExportBuild, safe_name
from .incremental import part_name
from .masking import RedactedAudio, apply_masks, load_masks
from .moshi_lora import synthetic_stereo
from .shards import run_recipe
from .spoken import SpokenForms, spoken_forms

RECIPE = "duplex_s2s"
# bump when the output for the same inputs and settings would change (the asset's code_version);
# 2: the Shar tars hold FLAC by default (audio_format)
RECIPE_VERSION = "2"


class DuplexS2SConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source_sample_rate: int = 16000  # NeMo s2s_duplex.yaml data.source_sample_rate (user audio)
    target_sample_rate: int = 22050  # data.target_sample_rate (agent audio; the audio codec's rate)
    frame_length: float = 0.08  # data.frame_length, written into nemo_data.yaml
    user_role: str = "user"
    agent_role: str = "assistant"
    redacted_audio: RedactedAudio = "silence"
    placeholder_text: Literal["drop", "keep"] = "drop"  # <PHONE_1> in supervision text
    asr_language_unfit: Literal["exclude", "keep"] = "exclude"
    allow_synthetic_stereo: bool = False
    shard_size: int = 1000
    batch_size: int = 4  # nemo_data.yaml train_ds.batch_size (NeMo's lhotse loader refuses a block without one)
    splits: list[str] = ["train", "validation", "test"]
    # embed: audio bytes in the Shar tars (a second copy of the audio, counted as audio_bytes_embedded);
    # reference: the cuts point at the conversation's file, linked to the release's recording (module docstring)
    audio: Literal["embed", "reference"] = "embed"
    # how `embed` encodes each stream in the tars: flac (lossless: lhotse reads the 16-bit samples back bit for
    # bit; lhotse's own Shar default) or wav
    audio_format: EmbeddedFormat = "flac"


def export_duplex_s2s(
    data_root: str | Path, config: DuplexS2SConfig | None = None, out_dir: str | Path | None = None
) -> BuildResult:
    return run_recipe(RECIPE, data_root, config or DuplexS2SConfig(), _export_records, out_dir, finish=_finish,
                      incremental=True, version=RECIPE_VERSION, part_name=SharNumbers())


class SharNumbers:
    """Names a manifest shard's Shar files after the earlier shards' (recipes.incremental): every shard is
    built from Shar shard 0, so its `<split>/<field>.NNNNNN.<ext>` files move up by the number of Shar shards
    the shards before it wrote to that split (what lhotse's `shard_offset` would have named them)."""

    _NAME = re.compile(r"^(?P<split>[^/]+)/(?P<field>[A-Za-z_]+)\.(?P<n>[0-9]{6})\.(?P<ext>[^/]+)$")

    def __init__(self) -> None:
        self.part = 0
        self.offset: Counter = Counter()  # split -> Shar shards written by the manifest shards placed so far
        self.here: Counter = Counter()  # split -> Shar shards of the manifest shard being placed

    def __call__(self, rel: str, part: int) -> str:
        if part != self.part:
            self.offset.update(self.here)
            self.here, self.part = Counter(), part
        m = self._NAME.match(rel)
        if m is None:
            return part_name(rel, part)
        n = int(m["n"])
        self.here[m["split"]] = max(self.here[m["split"]], n + 1)
        return f"{m['split']}/{m['field']}.{n + self.offset[m['split']]:06d}.{m['ext']}"


def _memory_recording(samples: np.ndarray, rate: int, recording_id: str):
    """A Recording held in memory as WAV bytes (the cheapest to decode): SharWriter encodes it in the tars as
    `audio_format` says."""
    from lhotse import Recording

    return Recording.from_bytes(encoded_bytes(samples, rate, "wav"), recording_id)


def supervision_text(text: str, config: DuplexS2SConfig, forms: SpokenForms | None = None) -> str:
    """The turn's text as heard (`SpokenForms.text`): with "drop", a masked placeholder goes and a spoken
    surrogate is written as spoken; with "keep", placeholders stay as they are."""
    if config.placeholder_text == "drop":
        return (forms or SpokenForms()).text(text)
    return " ".join(text.split())


def conversation_cut(record: VakRecord, stereo: np.ndarray, rate: int, config: DuplexS2SConfig, counts,
                     forms: SpokenForms | None = None):
    """One MonoCut: user channel as the recording, agent channel as custom target_audio, turns as supervisions."""
    stem = safe_name(record.id)
    user = resample_int16(np.ascontiguousarray(stereo[:, 1]), rate, config.source_sample_rate)
    agent = resample_int16(np.ascontiguousarray(stereo[:, 0]), rate, config.target_sample_rate)
    source = _memory_recording(user, config.source_sample_rate, f"{stem}_user")
    target = _memory_recording(agent, config.target_sample_rate, f"{stem}_target")
    return _cut(record, source, target, config, counts, forms)


def referenced_cut(record: VakRecord, path: str, rate: int, frames: int, roles: dict[str, int],
                   config: DuplexS2SConfig, counts, forms: SpokenForms | None = None):
    """One MonoCut whose recording (the user's channel) and target_audio (the agent's) are the conversation's
    stereo file at `path`, each resampled on load to the rate NeMo asks for."""
    from lhotse import AudioSource, Recording

    def recording(rec_id: str, target_rate: int) -> Recording:
        rec = Recording(id=rec_id, sources=[AudioSource(type="file", channels=[0, 1], source=path)],
                        sampling_rate=rate, num_samples=frames, duration=frames / rate)
        return rec.resample(target_rate) if target_rate != rate else rec

    stem = safe_name(record.id)
    source = recording(f"{stem}_user", config.source_sample_rate)
    target = recording(f"{stem}_target", config.target_sample_rate)
    return _cut(record, source, target, config, counts, forms, user_channel=roles["user"],
                custom={"target_audio_channel_selector": roles["agent"]})


def _cut(record: VakRecord, source, target, config: DuplexS2SConfig, counts, forms: SpokenForms | None,
         user_channel: int = 0, custom: dict | None = None):
    from lhotse import MonoCut, SupervisionSegment

    stem = safe_name(record.id)
    duration = source.duration
    sups = []
    for i, t in enumerate(record.turns):
        if not t.is_spoken or t.speaker not in ("agent", "user") or not t.text:
            continue
        text = supervision_text(t.text, config, forms)
        start, end = max(0.0, t.start), min(duration, t.end)
        if not text or end <= start:
            counts["supervisions_dropped"] += 1
            continue
        sups.append(
            SupervisionSegment(
                id=f"{stem}-{i:04d}",
                recording_id=source.id,
                start=round(start, 3),
                duration=round(end - start, 3),
                channel=user_channel,
                text=text,
                language=t.lang,
                speaker=config.user_role if t.speaker == "user" else config.agent_role,
            )
        )
    return MonoCut(
        id=stem,
        start=0.0,
        duration=duration,
        channel=user_channel,
        recording=source,
        supervisions=sups,
        custom={"target_audio": target, **(custom or {})},
    )


class _Writers:
    """One lhotse SharWriter per split, opened on first use."""

    def __init__(self, build: ExportBuild, config: DuplexS2SConfig) -> None:
        self.build, self.config, self.open = build, config, {}

    def write(self, split: str, cut) -> None:
        from lhotse.shar import SharWriter

        w = self.open.get(split)
        if w is None:
            out = self.build.stage / split
            out.mkdir(parents=True, exist_ok=True)
            fmt = self.config.audio_format
            fields = {"recording": fmt, "target_audio": fmt} if self.config.audio == "embed" else {}
            w = self.open[split] = SharWriter(
                str(out), fields=fields, shard_size=self.config.shard_size, warn_unused_fields=False
            ).__enter__()
        w.write(cut)

    def close(self) -> None:
        for w in self.open.values():
            w.close()
        for split in self.open:
            for gz in sorted((self.build.stage / split).glob("*.jsonl.gz")):
                _reset_gzip_header(gz)
            if self.config.audio == "embed":  # what the tars hold, as encoded (build.json audio_bytes_embedded)
                self.build.counts["audio_bytes_embedded"] += _audio_bytes(self.build.stage / split)


def _audio_bytes(folder: Path) -> int:
    """Bytes of the audio members (not their .json manifests) of the Shar tars in `folder`."""
    import tarfile

    total = 0
    for tar in sorted(folder.glob("*.tar")):
        with tarfile.open(tar) as tf:
            total += sum(m.size for m in tf.getmembers() if m.isfile() and not m.name.endswith(".json"))
    return total


def _reset_gzip_header(path: Path) -> None:
    """Rewrite a gzip file with no name and mtime 0 in its header: same bytes for the same cuts."""
    import gzip
    import os

    tmp = path.with_name(f".{path.name}.tmp")
    with gzip.open(path, "rb") as src, open(tmp, "wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
    os.replace(tmp, path)


def _export_records(build: ExportBuild, config: DuplexS2SConfig) -> None:
    writers = _Writers(build, config)
    try:
        for record, split in build.asr_fit(config.splits, config.asr_language_unfit):
            if config.audio == "reference":
                _export_referenced(build, config, record, split, writers)
                continue
            try:
                release_root = build.layout.release_root  # record paths name files of the release being built
                data, rate = read_audio(release_root, record)
                data, masked = apply_masks(data, rate, load_masks(release_root, record), config.redacted_audio)
                if data.shape[1] == 1:
                    stereo = _from_mono(build, config, record, data, rate)
                else:
                    roles = role_channels(record, data.shape[1])
                    stereo = np.ascontiguousarray(data[:, [roles["agent"], roles["user"]]])
            except AudioProblem as exc:
                build.skip(record.id, exc.code, str(exc))
                continue
            forms = spoken_forms(build.layout, record)
            if _surrogates_missing(build, record, forms):
                continue
            cut = conversation_cut(record, stereo, rate, config, build.counts, forms)
            if _agent_missing(build, config, record, cut):
                continue
            _write_cut(build, config, writers, split, cut, masked)
    finally:
        writers.close()


def _export_referenced(build: ExportBuild, config: DuplexS2SConfig, record: VakRecord, split: str,
                       writers: _Writers) -> None:
    """One conversation with `audio="reference"`: its stereo file placed under audio/<split>/ (linked when the
    release's recording needs no re-masking), and a cut pointing at where that file is published."""
    stem = safe_name(record.id)
    rel = ("audio", split, f"{stem}.wav")  # beside the Shar folder: from_shar reads every file in it
    release_root = build.layout.release_root
    try:
        masks = load_masks(release_root, record)
        path = audio_file(release_root, record)
        shape = linkable_wav(path) if not masks else None
        forms = spoken_forms(build.layout, record)
        if _surrogates_missing(build, record, forms):
            return
        if shape is not None and shape[0] >= 2:
            roles = role_channels(record, shape[0])
            channels, frames, rate, masked, data = shape[0], shape[1], shape[2], 0, None
        else:
            data, rate = read_audio(release_root, record)
            data, masked = apply_masks(data, rate, masks, config.redacted_audio)
            if data.shape[1] == 1:
                data = _from_mono(build, config, record, data, rate)
                roles = {"agent": 0, "user": 1}
            else:
                roles = role_channels(record, data.shape[1])
            channels, frames = data.shape[1], len(data)
    except AudioProblem as exc:
        build.skip(record.id, exc.code, str(exc))
        return
    where = str((build.published or build.final).joinpath(*rel))
    cut = referenced_cut(record, where, rate, frames, roles, config, build.counts, forms)
    if channels != 2:
        cut.recording.sources[0].channels = list(range(channels))
        cut.target_audio.sources[0].channels = list(range(channels))
    if _agent_missing(build, config, record, cut):
        return
    if data is None:
        build.share_audio(path, *rel)
    else:
        build.write_clip(data, rate, *rel)  # re-masked: stored once with moshi_lora's / parquet's same file
    _write_cut(build, config, writers, split, cut, masked)


def _from_mono(build: ExportBuild, config: DuplexS2SConfig, record: VakRecord, data: np.ndarray,
               rate: int) -> np.ndarray:
    """Two streams cut from a mono recording by its turns, where the config allows it (the build flags it)."""
    if not config.allow_synthetic_stereo:
        raise AudioProblem("mono_refused", "mono recording: duplex_s2s needs one stream per speaker; "
                                           "set allow_synthetic_stereo to cut streams from the turns")
    stereo = synthetic_stereo(data[:, 0], rate, record)
    build.flag(record.id, "synthetic_stereo", "mono recording split into two streams by turns")
    return stereo


def _surrogates_missing(build: ExportBuild, record: VakRecord, forms: SpokenForms) -> bool:
    """A turn whose placeholder synth spoke but whose spoken form is unknown: the text would not say what the
    audio says, so the conversation is skipped (and the build says why)."""
    if any(forms.unspoken(t.text) for t in record.turns if t.text):
        build.skip(record.id, "surrogates_missing", "placeholders spoken by synth are not in its "
                   "work/<upload>/synth sidecar: the text cannot say what the audio says; re-run synth")
        return True
    return False


def _agent_missing(build: ExportBuild, config: DuplexS2SConfig, record: VakRecord, cut: Any) -> bool:
    """No timed agent turn: the target text channel would be empty, so the conversation is skipped."""
    if not any(s.speaker == config.agent_role for s in cut.supervisions):
        build.skip(record.id, "no_agent_turns", "no timed agent turn: the target text channel would be empty")
        return True
    return False


def _write_cut(build: ExportBuild, config: DuplexS2SConfig, writers: _Writers, split: str, cut: Any,
               masked: int) -> None:
    """One cut into its split's Shar writers, counted the same way by both audio modes."""
    writers.write(split, cut)
    build.counts[f"redacted_spans_{config.redacted_audio}"] += masked
    build.counts["conversations"] += 1
    build.counts[f"conversations_{split}"] += 1
    build.counts["supervisions"] += len(cut.supervisions)
    build.counts["hours"] = round(build.counts.get("hours", 0) + cut.duration / 3600, 6)


def nemo_data_block(config: DuplexS2SConfig, rows: dict[str, int]) -> dict:
    """The `data:` block of NeMo's examples/speechlm2/conf/s2s_duplex.yaml for this export (paths relative
    to this folder)."""
    data: dict = {
        "frame_length": config.frame_length,
        "source_sample_rate": config.source_sample_rate,
        "target_sample_rate": config.target_sample_rate,
        "input_roles": [config.user_role],
        "output_roles": [config.agent_role],
    }
    if rows.get("train"):
        data["train_ds"] = {
            "sample_rate": config.target_sample_rate,
            "input_cfg": [{"type": "lhotse_shar", "shar_path": "train"}],
            "batch_size": config.batch_size,
            "shuffle": True,
            "num_workers": 0,
        }
    evals = {s: {"shar_path": s} for s in config.splits if s != "train" and rows.get(s)}
    if evals:
        data["validation_ds"] = {"datasets": evals, "sample_rate": config.target_sample_rate, "batch_size": 1}
    return {"data": data}


def _finish(build: ExportBuild) -> None:
    import yaml

    config = build.config
    rows = {s: build.counts.get(f"conversations_{s}", 0) for s in config.splits}
    empty = build.explain_empty(rows, config.splits, needs_audio=True)
    head = [
        "# NeMo speechlm2 DuplexS2S data block (examples/speechlm2/conf/s2s_duplex.yaml) for this export.",
        "# shar_path values are relative to this folder: prefix them with its location.",
    ]
    head += [f"# {s} is empty: {why}" for s, why in empty.items()]
    (build.stage / "nemo_data.yaml").write_text(
        "\n".join(head) + "\n" + yaml.safe_dump(nemo_data_block(config, rows), sort_keys=False), encoding="utf-8"
    )
