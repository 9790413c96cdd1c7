"""Cascaded STT -> LLM -> TTS export: three training sets from one manifest.

exports/cascaded/
  stt/<split>.jsonl        NeMo ASR manifest, one line per turn clip (both speakers):
                           {"audio_filepath": "audio/<split>/<conv>/<turn>_<role>.wav", "duration", "text", "lang"}
                           (paths relative to the manifest's directory)
  stt/audio/...            24 kHz mono 16-bit clips from each speaker's own channel
  llm/<split>.jsonl        OpenAI chat fine-tuning lines: {"messages": [...], "tools": [{"type": "function",
                           "function": {name, description, parameters}}], "parallel_tool_calls": bool}
                           (tools/parallel_tool_calls only when the record has tools); text-only records included
  tts/<voice>/metadata.csv LJSpeech layout, `|`-separated, no header: `id|text|normalized text` (coqui-TTS's
                           `ljspeech` formatter reads column 3; Piper `--single-speaker` reads the last column
                           through csv.reader(delimiter="|"), so no field holds `|` or a straight `"`: straight
                           double quotes become typographic ones, which nobody pronounces)
  tts/<voice>/wavs/<id>.wav  agent clips; voice = meta.speakers.agent or "agent"; only `tts_splits` (default train)
  stt/manifests.txt        the NeMo manifest list (one `<split>.jsonl` path per line, non-empty splits only)
  build.json skipped.jsonl flagged.jsonl

Every LLM example passes `check_chat_example` (the SFT dataset rules adapted to system and tool
roles) or goes to skipped.jsonl with its reasons. Turns whose text holds a redaction placeholder
(<PHONE_1>) are left out of STT and TTS by default: the audio there is masked, not those words; how a
masked span sounds is `redacted_audio` (silence by default). In a synthesized call the placeholder was
spoken as a surrogate: the turn is kept, its text saying the surrogate's spoken form (recipes/spoken.py).
An empty tts/ (no voice) says why in build.json `empty_parts.tts`, its `warnings` and the CLI.
Turns transcribed by an ASR model that does
not cover their language (speech/language_fit.py) are left out of STT and TTS, and their conversation
out of the LLM set, unless `asr_language_unfit="keep"`.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import IO, Literal

from pydantic import BaseModel, ConfigDict

from ..layout import DataRoot
from ..schema import Turn, VakRecord
from ..speech.language_fit import unfit_asr_turns
from ..storage import link_or_copy
from .audio_io import TARGET_RATE, AudioProblem, ConversationAudio, overlapping_turns
from .chat import LeadingPolicy, assemble, check_chat_example, openai_tools, pop_audios, record_events
from .common import PLACEHOLDER_RE, BuildResult, ExportBuild, SplitWriters, SynthesizedAudio, safe_name
from .masking import RedactedAudio
from .shards import run_recipe
from .spoken import SpokenForms, spoken_forms

RECIPE = "cascaded"
RECIPE_VERSION = "1"  # bump when the output for the same inputs and settings would change (the asset's code_version)
Part = Literal["stt", "llm", "tts"]


class CascadedConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    parts: list[Part] = ["stt", "llm", "tts"]
    splits: list[str] = ["train", "validation", "test"]
    tts_splits: list[str] = ["train"]  # a voice in test stays out of TTS training
    placeholder_turns: Literal["drop", "keep"] = "drop"  # STT/TTS turns whose text holds <TYPE_n>
    drop_overlapping_mono: bool = True  # a clip cut from a mono mix during overlap holds two voices
    leading_assistant: LeadingPolicy = "drop"
    placeholder_text: str = "(call connected)"
    min_clip_s: float = 0.05
    redacted_audio: RedactedAudio = "silence"  # how a redacted span sounds in the clips
    asr_language_unfit: Literal["exclude", "keep"] = "exclude"  # transcripts by a model without the language
    synthesized_audio: SynthesizedAudio = "include"  # rows whose audio the synth stage rendered (flagged)
    tts_synthesized: bool = False  # a TTS should not learn a synthesizer's voice: such rows stay out of tts/
    workers: int = 1  # processes over shards of the manifest (0 = one per core); the output is the same


def ljspeech_text(text: str) -> str:
    """A metadata.csv field: one line, no `|` (the caller skips those), straight double quotes turned into
    typographic ones (a field starting with `"` is a quoted field to csv.reader and loses its quotes)."""
    out, opening = [], True
    for ch in " ".join(text.split()):
        if ch == '"':
            out.append("\u201c" if opening else "\u201d")
            opening = not opening
        else:
            out.append(ch)
    return "".join(out)


class _TtsSets:
    """metadata.csv writers per agent voice, opened on first use."""

    def __init__(self, build: ExportBuild) -> None:
        self.build = build
        self._files: dict[str, IO[str]] = {}
        self._stack = contextlib.ExitStack()

    def add(self, voice: str, clip_id: str, text: str, normalized: str) -> None:
        fh = self._files.get(voice)
        if fh is None:
            fh = self._stack.enter_context(open(self.build.append_path("tts", voice, "metadata.csv"), "w",
                                                encoding="utf-8", newline="\n"))
            self._files[voice] = fh
        fh.write(f"{clip_id}|{text}|{normalized}\n")

    def close(self) -> None:
        self._stack.close()


def export_cascaded(data_root: DataRoot, config: CascadedConfig | None = None,
                    out_dir: str | Path | None = None) -> BuildResult:
    return run_recipe(RECIPE, data_root, config or CascadedConfig(), _export_records, out_dir, finish=_finish,
                      incremental=True, version=RECIPE_VERSION)


def _export_records(build: ExportBuild, config: CascadedConfig) -> None:
    parts = set(config.parts)
    tts = _TtsSets(build)
    with contextlib.ExitStack() as stack:
        stt_w = stack.enter_context(build.writers(config.splits, "stt/{split}.jsonl")) if "stt" in parts else None
        llm_w = stack.enter_context(build.writers(config.splits, "llm/{split}.jsonl")) if "llm" in parts else None
        stack.callback(tts.close)
        for record, split in build.eligible(config.splits):
            if llm_w is not None:
                _llm(build, config, record, split, llm_w)
            if parts & {"stt", "tts"}:
                _speech(build, config, record, split, stt_w, tts if "tts" in parts else None)


def _finish(build: ExportBuild) -> None:
    """Voices, the NeMo manifest list, and why a split of STT or LLM is empty."""
    config = build.config
    voices = sum(1 for _ in build.stage.glob("tts/*/metadata.csv"))
    if voices:
        build.counts["tts_voices"] = voices
    elif "tts" in config.parts:
        build.extra.setdefault("empty_parts", {})["tts"] = _why_no_tts(build)
    if "stt" in config.parts:
        rows = {s: build.counts.get(f"stt_clips_{s}", 0) for s in config.splits}
        build.explain_empty(rows, config.splits, needs_audio=True, part="stt")
        # NeMo reads `manifest_filepath` as a comma-separated list of manifests; one per line here
        (build.stage / "stt" / "manifests.txt").write_text(
            "".join(f"{s}.jsonl\n" for s in config.splits if rows[s]), encoding="utf-8")
    if "llm" in config.parts:
        rows = {s: build.counts.get(f"llm_examples_{s}", 0) for s in config.splits}
        build.explain_empty(rows, config.splits, needs_audio=False, part="llm")


def _why_no_tts(build: ExportBuild) -> str:
    """Why tts/ holds no voice: the skips of its part, else what the tts splits had."""
    config = build.config
    why = {k.split(":", 1)[1]: n for k, n in build.skipped_counts.items() if k.startswith("tts:")}
    have = {s: build.counts.get(f"records_{s}", 0) for s in config.tts_splits}
    listed = ", ".join(f"{s}: {n} conversation(s)" for s, n in have.items())
    text = f"no agent clip in tts_splits {config.tts_splits} ({listed})"
    if why.get("synthesized_audio"):
        text += (f"; {why['synthesized_audio']} synthesized conversation(s) left out (tts_synthesized: false, set "
                 "-o tts_synthesized=true to train on the synthesizer's voice)")
    others = {k: n for k, n in why.items() if k != "synthesized_audio"}
    if others:
        text += "; skipped: " + ", ".join(f"{k} {n}" for k, n in sorted(others.items()))
    if build.counts.get("speech_turns_dropped_placeholder"):
        text += f"; {build.counts['speech_turns_dropped_placeholder']} turn(s) dropped for a masked placeholder"
    return text + "; coqui's ljspeech formatter and Piper need tts/<voice>/metadata.csv"


def llm_example(record: VakRecord, config: CascadedConfig, stats) -> dict:
    """One OpenAI chat fine-tuning line for a record (not yet checked)."""
    msgs = assemble(record, record_events(record), stats, leading=config.leading_assistant,
                    placeholder_text=config.placeholder_text)
    pop_audios(msgs)
    example: dict = {"messages": msgs}
    if record.tools:
        example["tools"] = openai_tools(record.tools)
        example["parallel_tool_calls"] = any(len(m.get("tool_calls", [])) > 1 for m in msgs)
    return example


def _llm(build: ExportBuild, config: CascadedConfig, record: VakRecord, split: str, out: SplitWriters) -> None:
    unfit = unfit_asr_turns(record) if config.asr_language_unfit == "exclude" else {}
    if unfit:
        turn, why = next(iter(unfit.items()))
        build.skip(record.id, "asr_language_unfit", why, part="llm", turn=turn)
        return
    example = llm_example(record, config, build.counts)
    reasons = check_chat_example(example)
    if reasons:
        build.skip(record.id, "chat_rules", "; ".join(reasons[:5]), part="llm")
        return
    out.write(split, example)
    build.counts["llm_examples"] += 1
    build.counts[f"llm_examples_{split}"] += 1
    build.counts["llm_tool_calls"] += sum(len(m.get("tool_calls", [])) for m in example["messages"])


def _speech_turn_problem(config: CascadedConfig, t: Turn, i: int, over: set[int], mono: bool,
                         unfit: dict[int, str], forms: SpokenForms) -> str | None:
    if not t.text or not t.text.strip():
        return "turn has no text"
    if i in unfit:
        return "asr_language_unfit"
    if config.placeholder_turns == "drop" and any(m.group(0) not in forms.surrogates
                                                  for m in PLACEHOLDER_RE.finditer(t.text)):
        return "placeholder"  # masked audio (or an unknown surrogate): not the words of the text
    if mono and config.drop_overlapping_mono and i in over:
        return "overlap_mono"
    return None


def _speech(build: ExportBuild, config: CascadedConfig, record: VakRecord, split: str,
            stt: SplitWriters | None, tts: _TtsSets | None) -> None:
    want_tts = tts is not None and split in config.tts_splits
    if want_tts and not config.tts_synthesized and record.audio is not None and record.audio.synthesis is not None:
        build.skip(record.id, "synthesized_audio", "audio rendered by a synthesizer: kept out of TTS training "
                                                   "(tts_synthesized: false)", part="tts")
        want_tts = False
    if stt is None and not want_tts:
        return
    try:
        audio = ConversationAudio.open(build.layout.release_root, record, config.redacted_audio)
    except AudioProblem as exc:
        for part in ([p for p, on in (("stt", stt is not None), ("tts", want_tts)) if on]):
            build.skip(record.id, exc.code, str(exc), part=part)
        return
    build.counts[f"redacted_spans_{config.redacted_audio}"] += audio.masked_spans
    over = overlapping_turns(record)
    unfit = unfit_asr_turns(record) if config.asr_language_unfit == "exclude" else {}
    if unfit:
        build.flag(record.id, "asr_language_unfit", f"{len(unfit)} turn(s) left out of STT/TTS: "
                                                    f"{next(iter(unfit.values()))}")
    voice = safe_name((record.meta.speakers or {}).get("agent") or "agent")
    conv = safe_name(record.id)
    forms = spoken_forms(build.layout, record)
    for i, t in enumerate(record.turns):
        if not t.is_spoken or t.speaker not in ("agent", "user"):
            continue
        problem = _speech_turn_problem(config, t, i, over, audio.mono, unfit, forms)
        if problem is not None:
            if problem != "turn has no text":
                build.counts[f"speech_turns_dropped_{problem}"] += 1
            continue
        clip = audio.clip(t.speaker, t.start, t.end)
        duration = len(clip) / TARGET_RATE
        if duration < config.min_clip_s:
            build.skip(record.id, "clip_too_short", f"turn {i} gives a clip shorter than {config.min_clip_s} s",
                       part="speech", turn=i)
            continue
        # as heard, on one line: surrogates spoken, newlines and runs of spaces become single spaces
        text = forms.text(t.text) if config.placeholder_turns == "drop" else " ".join(t.text.split())
        stt_file = None
        if stt is not None:
            rel = f"audio/{split}/{conv}/{i:04d}_{t.speaker}.wav"
            stt_file = build.path("stt", rel)
            build.write_clip(clip, TARGET_RATE, "stt", rel)
            stt.write(split, {"audio_filepath": rel, "duration": round(duration, 6), "text": text,
                              "lang": t.lang or record.language.primary})
            build.counts["stt_clips"] += 1
            build.counts[f"stt_clips_{split}"] += 1
            build.counts["stt_hours"] = round(build.counts.get("stt_hours", 0) + duration / 3600, 6)
        if want_tts and t.speaker == "agent":
            if "|" in text:
                build.skip(record.id, "pipe_in_text", "text holds '|', the metadata.csv separator", part="tts", turn=i)
                continue
            clip_id = f"{conv}_{i:04d}"
            wav = build.path("tts", voice, "wavs", f"{clip_id}.wav")
            if stt_file is not None:
                link_or_copy(stt_file, wav)  # the same clip in STT and TTS, stored once
            else:
                build.write_clip(clip, TARGET_RATE, "tts", voice, "wavs", f"{clip_id}.wav")
            tts.add(voice, clip_id, ljspeech_text(text), ljspeech_text(text))
            build.counts["tts_clips"] += 1
