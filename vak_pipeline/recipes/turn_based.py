"""Turn-based speech-to-speech export in the `messages` + `audios` layout (LLaMA-Factory / ms-swift).

exports/turn_based/
  train.jsonl validation.jsonl test.jsonl
      {"messages": [{"role": "system", ...}, {"role": "user", "content": "<audio>"}, {"role": "assistant",
       "content": "...", "tool_calls": [{"id", "type": "function", "function": {"name", "arguments": "<JSON>"}}]},
       {"role": "tool", "tool_call_id": ..., "content": "..."}, ...],
       "audios": ["audio/train/<conv>/0001_user.wav", ...],      # one per <audio> tag, same order
       "tools": "<JSON string of the OpenAI tool list>"}           # ms-swift style; only when the record has tools
  <split>.targets.jsonl   line-aligned sidecar: {"id", "assistant_audios": [[clip, ...] per assistant message]}
                          (the agent's own speech, for speech-output training; kept out of the main file so
                          trainers that reject unknown keys still load it)
  audio/<split>/<conv>/<turn>_<role>.wav   24 kHz mono 16-bit, cut from the speaker's own channel
  llamafactory/<split>.jsonl   the same examples in LLaMA-Factory's sharegpt layout (see `sharegpt_example`)
  dataset_info.json            LLaMA-Factory's dataset registry for them: `dataset_dir` = this folder
  build.json skipped.jsonl flagged.jsonl

Audio paths are relative to the JSONL's directory (LLaMA-Factory `media_dir` / ms-swift run from there),
or absolute with `absolute_paths`. Overlapping turns are dropped or merged (`overlap_policy`) and
counted; see chat.py for how messages are assembled and trimmed. Redacted spans are re-masked as
`redacted_audio` says (silence by default); conversations transcribed by an ASR model that does not
cover their language are left out (`asr_language_unfit`). With `assistant_audio`, an assistant message's
text is what its clip says (recipes/spoken.py): a synthesized call's placeholder is its spoken surrogate,
a masked one is left out. Results of parallel tool calls are in the calls' order (chat.py), so the
sharegpt observation turn, which has no call id, lists them as the function_call turn lists the calls.

Why a second layout for LLaMA-Factory: its `openai` formatting turns an assistant message with tool
calls into a function message whose content is the calls alone (the words spoken before the call are
lost) and its FunctionFormatter JSON-encodes the already-encoded `arguments` string a second time; its
`sharegpt` formatting with default tags reads a call as a `function_call` turn whose value is
`<spoken text><tool_call>[{"name", "arguments": {...}}]</tool_call>` (the template's tool_call_words, the
same for every audio template) and a tool result as an `observation` turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ..layout import DataRoot
from ..schema import Turn, VakRecord
from .audio_io import TARGET_RATE, AudioProblem, ConversationAudio, overlapping_turns
from .chat import LeadingPolicy, assemble, check_chat_example, openai_tools, pop_audios, record_events
from .common import BuildResult, ExportBuild, SplitWriters, SynthesizedAudio, safe_name
from .masking import RedactedAudio
from .shards import run_recipe
from .spoken import SpokenForms, spoken_forms

RECIPE = "turn_based"
RECIPE_VERSION = "1"  # bump when the output for the same inputs and settings would change (the asset's code_version)
AUDIO_TAG = "<audio>"


class TurnBasedConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    overlap_policy: Literal["drop", "merge"] = "drop"
    assistant_audio: bool = True  # also cut the agent's clips (targets sidecar)
    leading_assistant: LeadingPolicy = "drop"  # a call opened by the agent: drop its greeting or add a placeholder
    placeholder_text: str = "(call connected)"
    min_clip_s: float = 0.05
    absolute_paths: bool = False
    splits: list[str] = ["train", "validation", "test"]
    redacted_audio: RedactedAudio = "silence"  # how a redacted span sounds in the clips
    asr_language_unfit: Literal["exclude", "keep"] = "exclude"  # transcripts by a model without the language
    dataset_prefix: str = "vak_turn_based"  # LLaMA-Factory dataset names: <prefix>_<split>
    synthesized_audio: SynthesizedAudio = "include"  # rows whose audio the synth stage rendered (flagged)
    workers: int = 1  # processes over shards of the manifest (0 = one per core); the output is the same


TOOL_CALL_WORDS = ("<tool_call>", "</tool_call>")  # LLaMA-Factory's default template tool_call_words
# LLaMA-Factory 0.9.5 audio templates that read the function_call turns: gemma3n is not one (its function
# formatter fails on them: "Invalid JSON format in function message"); build.json `llamafactory_templates`
LLAMAFACTORY_TEMPLATES = ("qwen2_audio", "qwen2_omni", "qwen3_omni", "minicpm_o")
OBSERVATION_JOIN = "\n</tool_response>\n<tool_response>\n"  # how LLaMA-Factory joins parallel tool results
SHAREGPT_TAGS = {"role_tag": "from", "content_tag": "value", "user_tag": "human", "assistant_tag": "gpt",
                 "observation_tag": "observation", "function_tag": "function_call", "system_tag": "system"}


def _function_call_value(msg: dict) -> str:
    """A `function_call` turn: the calls as [{"name", "arguments": <object>}] (arguments decoded once, so the
    formatter's own json.dumps encodes them once), after the words spoken before the call when there are any."""
    calls = [{"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
             for c in msg["tool_calls"]]
    body = json.dumps(calls if len(calls) > 1 else calls[0], ensure_ascii=False)
    text = msg.get("content") or ""
    return f"{text}{TOOL_CALL_WORDS[0]}{body}{TOOL_CALL_WORDS[1]}" if text else body


def sharegpt_example(msgs: list[dict], audios: list[str], tools: str | None) -> dict:
    """The OpenAI-shaped messages of one example in LLaMA-Factory's sharegpt layout (default tags)."""
    conv: list[dict] = []
    system = ""
    for m in msgs:
        role = m["role"]
        if role == "system":
            system = m["content"]
        elif role == "user":
            conv.append({"from": "human", "value": m["content"]})
        elif role == "assistant" and m.get("tool_calls"):
            conv.append({"from": "function_call", "value": _function_call_value(m)})
        elif role == "assistant":
            conv.append({"from": "gpt", "value": m["content"]})
        elif conv and conv[-1]["from"] == "observation":  # parallel calls: one observation turn
            conv[-1]["value"] += OBSERVATION_JOIN + m["content"]
        else:
            conv.append({"from": "observation", "value": m["content"]})
    out: dict = {"conversations": conv, "system": system, "audios": audios}
    if tools:
        out["tools"] = tools
    return out


def dataset_info(config: TurnBasedConfig, rows: dict[str, int]) -> dict:
    """LLaMA-Factory's dataset_info.json entries, one per non-empty split (it refuses an empty file)."""
    return {f"{config.dataset_prefix}_{split}": {
        "file_name": f"llamafactory/{split}.jsonl", "formatting": "sharegpt",
        "columns": {"messages": "conversations", "system": "system", "tools": "tools", "audios": "audios"},
        "tags": SHAREGPT_TAGS} for split in config.splits if rows.get(split)}


class _Clips:
    """Cuts one clip per kept spoken turn; remembers the first problem so the record can be skipped whole."""

    def __init__(self, build: ExportBuild, record: VakRecord, split: str, audio: ConversationAudio,
                 config: TurnBasedConfig, keep: set[int], forms: SpokenForms | None = None) -> None:
        self.build, self.record, self.split, self.audio = build, record, split, audio
        self.config, self.keep, self.forms = config, keep, forms or SpokenForms()
        self.problem: tuple[int, str] | None = None
        self.written: dict[str, Path] = {}  # path as referenced -> file in the stage

    def discard_unused(self, used: set[str]) -> int:
        """Delete clips of turns that did not make it into the example (trimmed, dropped); count the rest."""
        for ref, file in self.written.items():
            if ref not in used:
                file.unlink(missing_ok=True)
        return sum(1 for ref in self.written if ref in used)

    def cut(self, i: int, t: Turn) -> str | None:
        rel = f"audio/{self.split}/{safe_name(self.record.id)}/{i:04d}_{t.speaker}.wav"
        clip = self.audio.clip(t.speaker, t.start, t.end)
        if len(clip) < self.config.min_clip_s * TARGET_RATE:
            self.problem = self.problem or (i, f"turn {i} ({t.speaker}) gives a clip shorter than "
                                               f"{self.config.min_clip_s} s; check its start/end against the audio")
            return None
        file = self.build.path(rel)
        self.build.write_clip(clip, TARGET_RATE, rel)
        ref = str((self.build.published or self.build.final) / rel) if self.config.absolute_paths else rel
        self.written[ref] = file
        return ref

    def user(self, i: int, t: Turn) -> tuple[str, list[str]] | None:
        if i not in self.keep:
            return None
        path = self.cut(i, t)
        return (AUDIO_TAG, [path]) if path else None

    def assistant(self, i: int, t: Turn) -> tuple[str | None, list[str]] | None:
        if i not in self.keep:
            return None
        if not self.config.assistant_audio:
            return t.text, []
        path = self.cut(i, t)
        return self.forms.text(t.text or ""), [path] if path else []


def kept_turns(record: VakRecord, config: TurnBasedConfig, build: ExportBuild) -> set[int]:
    """Spoken turns that stay after the overlap policy (merge keeps them: adjacent same-role turns join)."""
    spoken = {i for i, t in enumerate(record.turns) if t.is_spoken and t.speaker in ("agent", "user")}
    over = overlapping_turns(record)
    if over:
        build.counts[f"overlap_{'dropped' if config.overlap_policy == 'drop' else 'merged'}"] += len(over)
    return spoken - over if config.overlap_policy == "drop" else spoken


def export_turn_based(data_root: DataRoot, config: TurnBasedConfig | None = None,
                      out_dir: str | Path | None = None) -> BuildResult:
    return run_recipe(RECIPE, data_root, config or TurnBasedConfig(), _export_records, out_dir, finish=_finish,
                      incremental=True, version=RECIPE_VERSION)


def _export_records(build: ExportBuild, config: TurnBasedConfig) -> None:
    with build.writers(config.splits) as main, build.writers(config.splits, "{split}.targets.jsonl") as targets, \
            build.writers(config.splits, "llamafactory/{split}.jsonl") as lf:
        _export_split_records(build, config, main, targets, lf)


def _finish(build: ExportBuild) -> None:
    config = build.config
    rows = {s: build.counts.get(f"conversations_{s}", 0) for s in config.splits}
    build.explain_empty(rows, config.splits, needs_audio=True)
    build.write_json(dataset_info(config, rows), "dataset_info.json")
    build.extra["llamafactory_templates"] = list(LLAMAFACTORY_TEMPLATES)


def _export_split_records(build: ExportBuild, config: TurnBasedConfig, main: SplitWriters,
                          targets: SplitWriters, lf: SplitWriters) -> None:
    for record, split in build.asr_fit(config.splits, config.asr_language_unfit):
        try:
            audio = ConversationAudio.open(build.layout.release_root, record, config.redacted_audio)
        except AudioProblem as exc:
            build.skip(record.id, exc.code, str(exc))
            continue
        build.counts[f"redacted_spans_{config.redacted_audio}"] += audio.masked_spans
        forms = spoken_forms(build.layout, record)
        if config.assistant_audio and any(forms.unspoken(t.text) for t in record.turns if t.text):
            build.skip(record.id, "surrogates_missing", "placeholders spoken by synth are not in its "
                       "work/<upload>/synth sidecar: the text cannot say what the audio says; re-run synth")
            continue
        clips = _Clips(build, record, split, audio, config, kept_turns(record, config, build), forms)
        events = record_events(record, user=clips.user, assistant=clips.assistant)
        if clips.problem is not None:
            clips.discard_unused(set())
            build.skip(record.id, "clip_too_short", clips.problem[1], turn=clips.problem[0])
            continue
        msgs = assemble(record, events, build.counts, leading=config.leading_assistant,
                        placeholder_text=config.placeholder_text, user_joiner="")
        audios, assistant_audios = pop_audios(msgs)
        example: dict = {"messages": msgs, "audios": audios}
        if record.tools:
            example["tools"] = json.dumps(openai_tools(record.tools), ensure_ascii=False)
        reasons = check_chat_example({"messages": msgs, "tools": openai_tools(record.tools)} if record.tools
                                     else {"messages": msgs})
        tags = sum(m["content"].count(AUDIO_TAG) for m in msgs if isinstance(m.get("content"), str))
        if tags != len(audios):
            reasons.append(f"{tags} {AUDIO_TAG} tags but {len(audios)} audios")
        if reasons:
            clips.discard_unused(set())
            build.skip(record.id, "chat_rules", "; ".join(reasons[:5]))
            continue
        build.counts["clips"] += clips.discard_unused(set(audios) | {a for group in assistant_audios for a in group})
        main.write(split, example)
        targets.write(split, {"id": record.id, "assistant_audios": assistant_audios})
        lf.write(split, sharegpt_example(msgs, audios, example.get("tools")))
        build.counts["conversations"] += 1
        build.counts[f"conversations_{split}"] += 1
        if audio.mono:
            build.flag(record.id, "mono_clips", "clips cut from a mono mix: overlapping speech is audible")
