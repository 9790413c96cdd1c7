"""Conversation -> OpenAI-shaped chat messages, shared by the turn-based and cascaded recipes.

The record's turns become a stream of events (user content, assistant text, tool call, tool result);
`assemble` turns that into messages the way a serving layer would have produced them:
- consecutive messages of one role are merged (a user's two clips become one message with two tags);
- a tool call joins the assistant message right before it (parallel calls share one tool_calls list);
- tool results become `tool` messages with tool_call_id; arguments and non-string contents are JSON strings;
  results of parallel calls that came back in another order are put in the calls' order, so a format
  that pairs results with calls by position (sharegpt observations) pairs them right;
- a conversation that opens with the agent gets its leading assistant text dropped or a placeholder user
  message (config), since SFT formats want the first non-system message from the user;
- a final unanswered tool call (allowed by the format: calls get cut off) is trimmed back to the last
  assistant text, and trailing user messages are trimmed, so every example ends on the assistant.
Every change is counted in `ChatStats` and ends up in build.json.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..schema import Tool, ToolCall, ToolResult, Turn, VakRecord

LeadingPolicy = Literal["drop", "placeholder"]


def json_string(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def tool_content(content: Any) -> str:
    """A tool message's content is a string; structured results are sent as their JSON text."""
    return content if isinstance(content, str) else json_string(content)


def openai_tool_call(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function",
            "function": {"name": call.name, "arguments": json_string(call.arguments)}}


def openai_tools(tools: list[Tool]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.parameters}} for t in tools]


@dataclass
class Event:
    kind: Literal["user", "assistant", "tool_call", "tool_result"]
    text: str | None = None
    audios: list[str] = field(default_factory=list)
    call: ToolCall | None = None
    result: ToolResult | None = None


Spoken = Callable[[int, Turn], "tuple[str | None, list[str]] | None"]


def _as_text(_: int, t: Turn) -> tuple[str | None, list[str]]:
    return t.text, []


def record_events(record: VakRecord, user: Spoken = _as_text, assistant: Spoken = _as_text) -> list[Event]:
    """The turns as events; `user`/`assistant` map a spoken turn to (content, audio paths), or None to leave it out."""
    events: list[Event] = []
    for i, t in enumerate(record.turns):
        if t.tool_call is not None:
            events.append(Event("tool_call", call=t.tool_call))
        elif t.tool_result is not None:
            events.append(Event("tool_result", result=t.tool_result))
        elif t.speaker in ("user", "agent"):
            got = (user if t.speaker == "user" else assistant)(i, t)
            if got is not None:
                events.append(Event("user" if t.speaker == "user" else "assistant", text=got[0], audios=got[1]))
    return events


def assemble(record: VakRecord, events: list[Event], stats: Counter, *, leading: LeadingPolicy = "drop",
             placeholder_text: str = "(call connected)", user_joiner: str = " ") -> list[dict[str, Any]]:
    """Messages (with internal "_audios" lists on user/assistant messages; see `pop_audios`)."""
    msgs: list[dict[str, Any]] = []
    for ev in events:
        last = msgs[-1] if msgs else None
        if ev.kind == "user":
            if last is not None and last["role"] == "user":
                last["content"] = last["content"] + user_joiner + ev.text if ev.text else last["content"]
                last["_audios"].extend(ev.audios)
                stats["merged_consecutive_user"] += 1
            else:
                msgs.append({"role": "user", "content": ev.text or "", "_audios": list(ev.audios)})
        elif ev.kind == "assistant":
            if last is not None and last["role"] == "assistant" and "tool_calls" not in last:
                last["content"] = (last["content"] + " " + (ev.text or "")).strip()
                last["_audios"].extend(ev.audios)
                stats["merged_consecutive_assistant"] += 1
            else:
                msgs.append({"role": "assistant", "content": ev.text or "", "_audios": list(ev.audios)})
        elif ev.kind == "tool_call":
            assert ev.call is not None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(openai_tool_call(ev.call))
            else:
                msgs.append({"role": "assistant", "content": "", "tool_calls": [openai_tool_call(ev.call)],
                             "_audios": []})
        else:
            assert ev.result is not None
            msgs.append({"role": "tool", "tool_call_id": ev.result.id, "content": tool_content(ev.result.content)})

    _results_in_call_order(msgs, stats)
    _fix_leading(msgs, stats, leading, placeholder_text)
    _trim_end(msgs, stats)
    system = [{"role": "system", "content": record.system_prompt}] if record.system_prompt else []
    return system + msgs if msgs else []


def _results_in_call_order(msgs: list[dict[str, Any]], stats: Counter) -> None:
    """Each run of tool messages after an assistant message with tool_calls, sorted by its calls' order
    (a result whose call is not in that message keeps its place after them)."""
    i = 0
    while i < len(msgs):
        calls = msgs[i].get("tool_calls") if msgs[i]["role"] == "assistant" else None
        j = i + 1
        while j < len(msgs) and msgs[j]["role"] == "tool":
            j += 1
        if calls and j - i > 2:
            order = {c["id"]: k for k, c in enumerate(calls)}
            run = msgs[i + 1:j]
            ordered = sorted(run, key=lambda m: order.get(m.get("tool_call_id"), len(order)))
            if ordered != run:
                msgs[i + 1:j] = ordered
                stats["tool_results_reordered"] += 1
        i = j


def _fix_leading(msgs: list[dict[str, Any]], stats: Counter, leading: LeadingPolicy, placeholder_text: str) -> None:
    if not msgs or msgs[0]["role"] == "user":
        return
    if leading == "placeholder":
        msgs.insert(0, {"role": "user", "content": placeholder_text, "_audios": []})
        stats["placeholder_user_inserted"] += 1
        return
    while msgs and msgs[0]["role"] != "user":
        msgs.pop(0)
        stats["leading_messages_dropped"] += 1


def _answered_ids(msgs: list[dict[str, Any]]) -> set[str]:
    return {m.get("tool_call_id") for m in msgs if m["role"] == "tool"}


def _trim_end(msgs: list[dict[str, Any]], stats: Counter) -> None:
    """Trim a final unanswered tool call back to the last assistant text, and trailing non-assistant turns."""
    answered = _answered_ids(msgs)
    # the last assistant message that carries tool calls, and whether anything but tool messages follows it
    last_call = next((i for i in range(len(msgs) - 1, -1, -1) if msgs[i].get("tool_calls")), None)
    if last_call is not None:
        unanswered = [c for c in msgs[last_call]["tool_calls"] if c["id"] not in answered]
        tail_is_final = all(m["role"] == "tool" for m in msgs[last_call + 1:])
        if unanswered and tail_is_final:
            stats["final_unanswered_tool_call_trimmed"] += 1
            keep = msgs[last_call]
            del msgs[last_call:]
            if keep["content"]:
                keep = {k: v for k, v in keep.items() if k != "tool_calls"}
                msgs.append(keep)
    while msgs and not (msgs[-1]["role"] == "assistant" and msgs[-1]["content"] and not msgs[-1].get("tool_calls")):
        msgs.pop()
        stats["trailing_messages_trimmed"] += 1


def pop_audios(msgs: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Remove the internal "_audios" lists: (user audio paths in order, one list per assistant message)."""
    user: list[str] = []
    assistant: list[list[str]] = []
    for m in msgs:
        audios = m.pop("_audios", [])
        if m["role"] == "user":
            user.extend(audios)
        elif m["role"] == "assistant":
            assistant.append(audios)
    return user, assistant


def check_chat_example(example: dict[str, Any], tool_names: set[str] | None = None) -> list[str]:
    """Reasons an example breaks the SFT dataset rules, adapted to system and tool roles (empty: valid).

    Rules: messages is a non-empty list; roles in {system, user, assistant, tool}; system only at the
    start; first non-system message is user; last message is assistant with text; no empty content
    except an assistant message with tool_calls; tool_calls well formed with JSON-string arguments that
    parse to an object; call ids unique; each tool message follows an assistant tool_calls message (or
    its sibling tool messages) and answers one of its calls; every call answered exactly once.
    """
    reasons: list[str] = []
    msgs = example.get("messages")
    if not isinstance(msgs, list) or not msgs:
        return ["messages must be a non-empty list"]
    if tool_names is None and isinstance(example.get("tools"), list):
        tool_names = {t.get("function", {}).get("name") for t in example["tools"] if isinstance(t, dict)}
    seen_ids: set[str] = set()
    open_calls: set[str] = set()  # calls of the current assistant group not yet answered
    in_tool_group = False
    first_non_system = True
    for i, m in enumerate(msgs):
        role = m.get("role") if isinstance(m, dict) else None
        if role not in {"system", "user", "assistant", "tool"}:
            reasons.append(f"message {i}: role {role!r} is not one of system, user, assistant, tool")
            continue
        content = m.get("content")
        if role == "system":
            if i != 0:
                reasons.append(f"message {i}: a system message may only come first")
            if not isinstance(content, str) or not content.strip():
                reasons.append(f"message {i}: empty system content")
            continue
        if first_non_system and role != "user":
            reasons.append(f"message {i}: the first non-system message must be from the user, not {role}")
        first_non_system = False
        if role != "tool":
            if open_calls:
                reasons.append(f"message {i}: tool call(s) {sorted(open_calls)} are not answered before the "
                               "conversation goes on")
                open_calls = set()
            in_tool_group = False
        calls = m.get("tool_calls")
        if role == "assistant" and calls:
            if not isinstance(calls, list):
                reasons.append(f"message {i}: tool_calls must be a list")
                calls = []
            for j, c in enumerate(calls):
                reasons.extend(_check_call(i, j, c, seen_ids, tool_names))
                if isinstance(c, dict) and isinstance(c.get("id"), str):
                    open_calls.add(c["id"])
            in_tool_group = True
            if content not in (None, "") and not isinstance(content, str):
                reasons.append(f"message {i}: content must be a string")
            continue
        if calls and role != "assistant":
            reasons.append(f"message {i}: only assistant messages may carry tool_calls")
        if not isinstance(content, str) or not content.strip():
            reasons.append(f"message {i}: empty {role} content")
        if role == "tool":
            tcid = m.get("tool_call_id")
            if not in_tool_group:
                reasons.append(f"message {i}: a tool message must follow an assistant message with tool_calls")
            elif tcid not in open_calls:
                reasons.append(f"message {i}: tool_call_id {tcid!r} answers no open call of the assistant message "
                               "before it")
            else:
                open_calls.discard(tcid)
    if open_calls:
        reasons.append(f"tool call(s) {sorted(open_calls)} are never answered")
    last = msgs[-1] if isinstance(msgs[-1], dict) else {}
    if last.get("role") != "assistant":
        reasons.append(f"the last message must be from the assistant, not {last.get('role')!r}")
    elif last.get("tool_calls") or not (isinstance(last.get("content"), str) and last["content"].strip()):
        reasons.append("the last message must be assistant text, not a tool call")
    return reasons


def _check_call(i: int, j: int, c: Any, seen_ids: set[str], tool_names: set[str] | None) -> list[str]:
    where = f"message {i} tool_calls[{j}]"
    if not isinstance(c, dict):
        return [f"{where}: must be an object"]
    out = []
    cid = c.get("id")
    if not isinstance(cid, str) or not cid:
        out.append(f"{where}: id must be a non-empty string")
    elif cid in seen_ids:
        out.append(f"{where}: id {cid!r} is used twice")
    else:
        seen_ids.add(cid)
    if c.get("type") != "function":
        out.append(f"{where}: type must be 'function'")
    fn = c.get("function")
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn.get("name"):
        return out + [f"{where}: function.name is required"]
    if tool_names is not None and fn["name"] not in tool_names:
        out.append(f"{where}: function {fn['name']!r} is not in tools")
    args = fn.get("arguments")
    if not isinstance(args, str):
        out.append(f"{where}: function.arguments must be a JSON string, not {type(args).__name__}")
    else:
        try:
            parsed = json.loads(args)
        except json.JSONDecodeError:
            out.append(f"{where}: function.arguments is not valid JSON")
        else:
            if not isinstance(parsed, dict):
                out.append(f"{where}: function.arguments must encode a JSON object")
    return out
