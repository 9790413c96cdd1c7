"""turn_based through LLaMA-Factory's own reading logic: dataset_info.json -> sharegpt converter -> the
FunctionFormatter that renders a tool call.

LLaMA-Factory does not import without transformers/peft/torch training deps, so its reading code is
replicated here line by line (no code copied; the logic is re-expressed), from:
  llamafactory==0.9.5 (PyPI), hiyouga/LLaMA-Factory
  - src/llamafactory/data/parser.py      DatasetAttr: formatting, columns, tags from dataset_info.json
  - src/llamafactory/data/converter.py   SharegptDatasetConverter.__call__  (repo commit 908cd68e457d)
  - src/llamafactory/data/formatter.py   FunctionFormatter.apply / _parse_functions (repo commit 3a0f5b4fe72a)
  - src/llamafactory/data/template.py    default tool_call_words ("<tool_call>", "</tool_call>") of every
                                          audio template that reads function_call turns
                                          (qwen2_audio, qwen2_omni, qwen3_omni, minicpm_o; gemma3n fails on them)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from vak_pipeline.recipes.turn_based import export_turn_based
from vak_pipeline.splits import SplitConfig, split_manifest
from vak_pipeline_tests.builders import (
    make_audio,
    make_record,
    make_tool,
    tone,
    tool_call,
    tool_result,
    turn,
    write_manifest,
    write_wav,
)

ALL_TRAIN = SplitConfig(ratios={"train": 1.0, "validation": 0.0, "test": 0.0})
SHAREGPT_DEFAULT_TAGS = {
    "role_tag": "from",
    "content_tag": "value",
    "user_tag": "human",
    "assistant_tag": "gpt",
    "observation_tag": "observation",
    "function_tag": "function_call",
    "system_tag": "system",
}


def lf_sharegpt_convert(example: dict, attr: dict, dataset_dir: Path) -> dict:
    """Replica of SharegptDatasetConverter.__call__ (+ DatasetConverter._find_medias for audios)."""
    tags = {**SHAREGPT_DEFAULT_TAGS, **attr.get("tags", {})}
    cols = attr["columns"]
    mapping = {
        tags["user_tag"]: "user",
        tags["assistant_tag"]: "assistant",
        tags["observation_tag"]: "observation",
        tags["function_tag"]: "function",
        tags["system_tag"]: "system",
    }
    odd, even = (tags["user_tag"], tags["observation_tag"]), (tags["assistant_tag"], tags["function_tag"])
    messages = example[cols["messages"]]
    if messages and messages[0][tags["role_tag"]] == tags["system_tag"]:
        system, messages = messages[0][tags["content_tag"]], messages[1:]
    else:
        system = example[cols["system"]] if cols.get("system") else ""
    aligned, broken = [], False
    for i, m in enumerate(messages):
        if m[tags["role_tag"]] not in (odd, even)[i % 2]:
            broken = True  # "Invalid role tag" -> the example is skipped
            break
        aligned.append({"role": mapping[m[tags["role_tag"]]], "content": m[tags["content_tag"]]})
    if len(aligned) % 2 != 0:
        broken = True  # "Invalid message count"
    audios = example.get(cols.get("audios", ""), None)
    found = [str(dataset_dir / a) if (dataset_dir / a).is_file() else a for a in audios] if audios else None
    return {
        "_prompt": [] if broken else aligned[:-1],
        "_response": [] if broken else aligned[-1:],
        "_system": system,
        "_tools": example[cols["tools"]] if cols.get("tools") else "",
        "_audios": found,
    }


def lf_function_formatter(content: str, tool_call_words=("<tool_call>", "</tool_call>")) -> tuple[str, list]:
    """Replica of FunctionFormatter.apply's parsing: (text kept before the call, [(name, arguments JSON)])."""

    def parse(js: str) -> list:
        calls = json.loads(js)
        calls = calls if isinstance(calls, list) else [calls]
        return [(c["name"], json.dumps(c["arguments"], ensure_ascii=False)) for c in calls]

    match = re.search(rf"{re.escape(tool_call_words[0])}(.*?){re.escape(tool_call_words[1])}", content, re.DOTALL)
    if match is None:
        return "", parse(content)
    return content.replace(match.group(0), ""), parse(match.group(1))


def build(tmp_path: Path) -> Path:
    write_wav(tmp_path / "audio" / "c1.wav", [tone(1000, 6.0), tone(440, 6.0)])  # ch0 agent, ch1 user
    turns = [
        turn("user", 0.0, 1.0, "my inverter is off"),
        turn("agent", 1.1, 2.0, "let me check that"),
        tool_call(2.0, "call_1", "check_status", customer_id="SC-4471"),
        tool_call(2.0, "call_2", "check_status", customer_id="SC-9"),
        tool_result(2.0, "call_1", {"status": "fault_reported"}),
        tool_result(2.0, "call_2", "ok"),
        turn("agent", 2.2, 3.0, "a fault is logged"),
        turn("user", 3.1, 4.0, "and the other one"),
        tool_call(4.0, "call_3", "check_status", customer_id="SC-10"),
        tool_result(4.0, "call_3", {"status": "fine"}),
        turn("agent", 4.2, 5.0, "that one is fine"),
    ]
    rec = make_record(
        "c1",
        {"agent": "a", "user": "u"},
        turns,
        audio=make_audio("c1", 6.0),
        tools=[make_tool("check_status", customer_id="string")],
    )
    write_manifest(tmp_path / "vakforge.jsonl", [rec, make_record("t1", {"user": "u2"})])
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json", ALL_TRAIN)
    return tmp_path


def test_dataset_info_names_every_non_empty_split_in_sharegpt_layout(tmp_path):
    out = export_turn_based(build(tmp_path)).out_dir
    info = json.loads((out / "dataset_info.json").read_text())
    assert list(info) == ["vak_turn_based_train"]  # empty validation/test are not registered (LF refuses them)
    entry = info["vak_turn_based_train"]
    assert entry["formatting"] == "sharegpt" and (out / entry["file_name"]).is_file()
    assert set(entry["columns"]) == {"messages", "system", "tools", "audios"}
    assert json.loads((out / "build.json").read_text())["empty_splits"].keys() == {"validation", "test"}


def test_a_call_with_tool_calls_loads_with_spoken_text_and_arguments_encoded_once(tmp_path):
    out = export_turn_based(build(tmp_path)).out_dir
    attr = json.loads((out / "dataset_info.json").read_text())["vak_turn_based_train"]
    (example,) = [json.loads(x) for x in (out / attr["file_name"]).read_text().splitlines()]
    conv = lf_sharegpt_convert(example, attr, out)
    assert conv["_prompt"] and conv["_response"], "the converter skipped the example"
    roles = [m["role"] for m in conv["_prompt"] + conv["_response"]]
    assert roles == ["user", "function", "observation", "assistant", "user", "function", "observation", "assistant"]
    first_call = conv["_prompt"][1]["content"]
    text, calls = lf_function_formatter(first_call)
    assert text == "let me check that"  # the words spoken before the call are kept
    assert [(n, json.loads(a)) for n, a in calls] == [
        ("check_status", {"customer_id": "SC-4471"}),
        ("check_status", {"customer_id": "SC-9"}),
    ]  # decoded once
    text, calls = lf_function_formatter(conv["_prompt"][5]["content"])  # a call with no words before it
    assert text == "" and json.loads(calls[0][1]) == {"customer_id": "SC-10"}
    observation = conv["_prompt"][2]["content"]
    assert json.loads(observation.split("\n</tool_response>\n<tool_response>\n")[0]) == {"status": "fault_reported"}
    assert conv["_system"] == "You are a helpful support agent."
    tools = json.loads(conv["_tools"])
    assert tools[0]["function"]["name"] == "check_status"
    assert conv["_audios"] and all(Path(a).is_file() for a in conv["_audios"])  # found under dataset_dir
    user_tags = sum(m["content"].count("<audio>") for m in conv["_prompt"] if m["role"] == "user")
    assert user_tags == len(conv["_audios"])


def test_the_openai_layout_would_have_lost_the_spoken_text(tmp_path):
    """Why the sharegpt file exists: the main file read with LLaMA-Factory's `openai` formatting replaces an
    assistant message's content by its calls (OpenAIDatasetConverter: content = json.dumps([tc["function"]...]))
    and the string arguments then get encoded a second time by the FunctionFormatter."""
    out = export_turn_based(build(tmp_path)).out_dir
    (main,) = [json.loads(x) for x in (out / "train.jsonl").read_text().splitlines()]
    with_calls = next(m for m in main["messages"] if m.get("tool_calls"))
    as_openai = json.dumps([c["function"] for c in with_calls["tool_calls"]])
    _, calls = lf_function_formatter(as_openai)
    assert with_calls["content"] == "let me check that" and "let me check that" not in as_openai
    assert isinstance(json.loads(calls[0][1]), str)  # double-encoded
