"""Full-duplex export in kyutai moshi-finetune's layout (notes/formats.md §4.1, notes/pii-lid.md §C1).

exports/moshi_lora/
  train.jsonl validation.jsonl test.jsonl   {"path": "train/<conv>.wav", "duration": s}, path relative to the index
  <split>/<conv>.wav                        stereo 16-bit: channel 0 (left) = agent (Moshi), channel 1 = user
  <split>/<conv>.json                       {"alignments": [[word, [start, end], "SPEAKER_MAIN"|"SPEAKER_OTHER"], ...]}
  moshi_finetune.yaml                       the `data:` block for moshi-finetune (train_data / eval_data)
  build.json skipped.ndjson flagged.ndjson  diagnostics named so moshi-finetune's DataDir (rglob("*jsonl"))
                                            never reads them when train_data points at a folder

Redacted spans sound as `redacted_audio` says (silence by default: the recording's redaction tone would
teach Moshi to beep), and words inside a masked span are dropped, so the text stream matches the audio;
the file's "masked" list ([start, end] per dropped stretch) marks those gaps. A synthesized call's
placeholder word is its spoken surrogate's words (recipes/spoken.py), timed over the surrogate's audio.
A conversation whose transcript came from an ASR model that does not cover its language is left out
(`asr_language_unfit`, see speech/language_fit.py).

Consumer constraints held here: alignments sorted by start (the trainer binary-searches them before
sorting), zero/negative-length words dropped, agent words labelled SPEAKER_MAIN (the trainer's
keep_main_only keeps only those; user words are stored as SPEAKER_OTHER unless `user_words=False`).
The source channel map is applied, whatever order the recording had. Mono is refused unless
`allow_synthetic_stereo` cuts the mixed signal into two streams by the diarized turns (flagged).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from ..layout import DataRoot
from ..schema import Alignment, AudioMask, VakRecord
from .audio_io import AudioProblem, audio_file, linkable_wav, read_audio, role_channels
from .common import BuildResult, ExportBuild, SplitWriters, SynthesizedAudio, safe_name
from .masking import RedactedAudio, apply_masks, inside_masks, load_masks
from .shards import run_recipe
from .spoken import SpokenForms, spoken_forms, spread

RECIPE = "moshi_lora"
RECIPE_VERSION = "1"  # bump when the output for the same inputs and settings would change (the asset's code_version)
MAIN, OTHER = "SPEAKER_MAIN", "SPEAKER_OTHER"


class MoshiConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user_words: bool = True  # store user words as SPEAKER_OTHER (the trainer ignores them with keep_main_only)
    allow_synthetic_stereo: bool = False  # rebuild two streams from a mono mix by the turns' speaker intervals
    placeholder_words: Literal["drop", "keep"] = "drop"  # redaction placeholders such as <PHONE_1>
    splits: list[str] = ["train", "validation", "test"]
    redacted_audio: RedactedAudio = "silence"  # how a redacted span sounds in the exported audio
    asr_language_unfit: Literal["exclude", "keep"] = "exclude"  # transcripts by a model without the language
    synthesized_audio: SynthesizedAudio = "include"  # rows whose audio the synth stage rendered (flagged)
    workers: int = 1  # processes over shards of the manifest (0 = one per core); the output is the same


def words_for(record: VakRecord, alignment: Alignment | None, config: MoshiConfig,
              counts: dict[str, int], masks: list[AudioMask] | None = None,
              channels: dict[str, int] | None = None, forms: SpokenForms | None = None,
              gaps: list[list[float]] | None = None) -> list[list]:
    """[[word, [start, end], label], ...] sorted by start; from word timings, else spread over turns.
    Placeholders become their spoken surrogate (`forms`) or are dropped, their time added to `gaps`."""
    forms = forms or SpokenForms()
    rows: list[tuple[float, float, str, str]] = []
    if alignment is not None:
        for w in alignment.words:
            if w.speaker not in ("agent", "user"):
                continue
            heard = forms.word(w.word) if config.placeholder_words == "drop" else [w.word]
            if heard is None:
                counts["words_placeholder_dropped"] = counts.get("words_placeholder_dropped", 0) + 1
                if gaps is not None and w.end > w.start:
                    gaps.append([round(w.start, 3), round(w.end, 3)])
                continue
            if heard != [w.word]:
                counts["words_surrogate_spoken"] = counts.get("words_surrogate_spoken", 0) + 1
            rows += [(a, b, part, w.speaker) for part, a, b in spread(heard, w.start, w.end)]
    else:
        for t in record.turns:
            if not t.is_spoken or t.speaker not in ("agent", "user") or not t.text:
                continue
            tokens = (forms.text(t.text) if config.placeholder_words == "drop" else t.text).split()
            step = (t.end - t.start) / len(tokens) if tokens else 0.0
            for k, tok in enumerate(tokens):
                rows.append((t.start + k * step, t.start + (k + 1) * step, tok, t.speaker))
    out: list[list] = []
    for start, end, word, speaker in sorted(rows, key=lambda r: (r[0], r[1])):
        word = word.strip()
        if not word:
            continue
        if end <= start:
            counts["words_zero_length_dropped"] = counts.get("words_zero_length_dropped", 0) + 1
            continue
        if speaker == "user" and not config.user_words:
            continue
        if masks and inside_masks(start, end, masks, (channels or {}).get(speaker)):
            counts["words_masked_dropped"] = counts.get("words_masked_dropped", 0) + 1
            if gaps is not None:
                gaps.append([round(start, 3), round(end, 3)])
            continue
        out.append([word, [round(start, 3), round(end, 3)], MAIN if speaker == "agent" else OTHER])
    return out


def synthetic_stereo(mono: np.ndarray, rate: int, record: VakRecord) -> np.ndarray:
    """Two streams from one mix: each speaker's channel holds the mix during that speaker's turns, else silence."""
    n = len(mono)
    out = np.zeros((n, 2), dtype=np.int16)
    for t in record.turns:
        if not t.is_spoken or t.speaker not in ("agent", "user"):
            continue
        a, b = max(0, int(round(t.start * rate))), min(n, int(round(t.end * rate)))
        if b > a:
            out[a:b, 0 if t.speaker == "agent" else 1] = mono[a:b]
    return out


def stereo_agent_left(record: VakRecord, data: np.ndarray, rate: int, config: MoshiConfig) -> tuple[np.ndarray, bool]:
    """[frames, 2] with the agent on channel 0 and the user on channel 1; True when synthesised from mono."""
    channels = data.shape[1]
    if channels == 1:
        if not config.allow_synthetic_stereo:
            raise AudioProblem("mono_refused", "mono recording: moshi-lora needs one stream per speaker; "
                                               "set allow_synthetic_stereo to cut streams from the diarized turns")
        return synthetic_stereo(data[:, 0], rate, record), True
    roles = role_channels(record, channels)
    return np.ascontiguousarray(data[:, [roles["agent"], roles["user"]]]), False


def _shareable(build: ExportBuild, record: VakRecord, masks: list[AudioMask]) -> tuple[Path, int, int] | None:
    """(file, rate, frames) when the release's recording is already this export's audio: 16-bit PCM WAV,
    two channels with the agent on channel 0, nothing to re-mask. The export then links it (`share_audio`)
    instead of decoding and writing the same samples again."""
    if masks:
        return None
    path = audio_file(build.layout.release_root, record)
    shape = linkable_wav(path)
    if shape is None or shape[0] != 2 or role_channels(record, 2) != {"agent": 0, "user": 1}:
        return None
    return path, shape[2], shape[1]


def load_alignment(build: ExportBuild, conv_id: str) -> Alignment | None:
    path = build.layout.alignment(conv_id)
    if not path.exists():
        return None
    try:
        return Alignment.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise AudioProblem("alignment_invalid", f"alignments/{conv_id}.json does not match the Alignment "
                                                f"schema ({exc.error_count()} errors)") from exc


def export_moshi_lora(data_root: DataRoot, config: MoshiConfig | None = None,
                      out_dir: str | Path | None = None) -> BuildResult:
    return run_recipe(RECIPE, data_root, config or MoshiConfig(), _export_records, out_dir, finish=_finish,
                      diagnostics_ext=".ndjson", incremental=True, version=RECIPE_VERSION)


def _export_records(build: ExportBuild, config: MoshiConfig) -> None:
    with build.writers(config.splits) as indexes:
        _export_split_records(build, config, indexes)


def _finish(build: ExportBuild) -> None:
    """Why any split is empty, and the moshi-finetune `data:` block pointing at the non-empty indexes."""
    config = build.config
    rows = {s: build.counts.get(f"conversations_{s}", 0) for s in config.splits}
    build.explain_empty(rows, config.splits, needs_audio=True)
    write_text(build.path("moshi_finetune.yaml"), moshi_finetune_yaml(rows, build.extra["empty_splits"]))


def moshi_finetune_yaml(rows: dict[str, int], empty: dict[str, str]) -> str:
    """moshi-finetune's `data:` block (finetune/data/args.py DataArgs): each path a single index file
    (DataFile), so train never reads validation/test. Paths are relative to this folder."""
    import yaml

    train = "train.jsonl" if rows.get("train") else ""
    evals = "validation.jsonl" if rows.get("validation") else ""
    lines = ["# moshi-finetune data block for this export (kyutai-labs/moshi-finetune finetune/data/args.py).",
             "# Paths are relative to this folder: prefix them with its location, or run from here.",
             "# An empty path means the split is empty (see build.json empty_splits); keep do_eval false then."]
    for split, why in empty.items():
        lines.append(f"# {split} is empty: {why}")
    body = yaml.safe_dump({"data": {"train_data": train, "eval_data": evals, "shuffle": True},
                           "do_eval": bool(evals)}, sort_keys=False)
    return "\n".join(lines) + "\n" + body


def write_text(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _export_split_records(build: ExportBuild, config: MoshiConfig, indexes: SplitWriters) -> None:
    for record, split in build.asr_fit(config.splits, config.asr_language_unfit):
        try:
            masks = load_masks(build.layout.release_root, record)
            shared = _shareable(build, record, masks)
            if shared is not None:  # the release's file is already what this export would write: link it
                stereo, rate, n_channels, synthetic, masked = None, shared[1], 2, False, 0
            else:
                data, rate = read_audio(build.layout.release_root, record)
                data, masked = apply_masks(data, rate, masks, config.redacted_audio)
                stereo, synthetic = stereo_agent_left(record, data, rate, config)
                n_channels = data.shape[1]
            alignment = load_alignment(build, record.id)
        except AudioProblem as exc:
            build.skip(record.id, exc.code, str(exc))
            continue
        build.counts[f"redacted_spans_{config.redacted_audio}"] += masked
        channels = {"agent": 0, "user": 0} if synthetic or n_channels == 1 else role_channels(record, n_channels)
        forms = spoken_forms(build.layout, record)
        unknown = sorted({p for t in record.turns if t.text for p in forms.unspoken(t.text)})
        if unknown:
            build.skip(record.id, "surrogates_missing", f"{len(unknown)} placeholder(s) spoken by synth but not in "
                       "its work/<upload>/synth sidecar: the text cannot say what the audio says; re-run synth")
            continue
        gaps: list[list[float]] = []
        words = words_for(record, alignment, config, build.counts, masks, channels, forms, gaps)
        if not any(w[2] == MAIN for w in words):
            build.skip(record.id, "no_agent_words", "no timed agent words: the text stream would be empty")
            continue
        stem = safe_name(record.id)
        if build.claim(split, f"{stem}.wav") is None:
            build.skip(record.id, "id_collision", f"another conversation already exported as {split}/{stem}.wav")
            continue
        if shared is not None:
            build.share_audio(shared[0], split, f"{stem}.wav")
            duration = shared[2] / rate
        else:
            # the re-masked or re-ordered recording: stored once with any other export of the candidate that
            # writes the same file (parquet embed_audio false, duplex_s2s audio reference)
            duration = build.write_clip(stereo, rate, split, f"{stem}.wav")
        build.write_json({"alignments": words, "masked": sorted(gaps)}, split, f"{stem}.json")
        indexes.write(split, {"path": f"{split}/{stem}.wav", "duration": duration})
        build.counts["conversations"] += 1
        build.counts[f"conversations_{split}"] += 1
        build.counts["hours"] = round(build.counts.get("hours", 0) + duration / 3600, 6)
        build.counts["words_main"] += sum(1 for w in words if w[2] == MAIN)
        build.counts["words_other"] += sum(1 for w in words if w[2] == OTHER)
        if synthetic:
            build.flag(record.id, "synthetic_stereo",
                       "mono recording split into two streams by diarized turns (lower quality)")
        if alignment is None:
            build.flag(record.id, "derived_word_times",
                       "no alignments file: word times spread uniformly over each turn")
