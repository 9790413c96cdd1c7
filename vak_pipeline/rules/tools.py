"""Tool rules: schemas are valid JSON Schema, calls match them, and every call/result pair is well formed."""

from __future__ import annotations

from ..schema.record import VakRecord
from .context import RecordIssues, ValidationContext


def _check_carrier(out: RecordIssues, speaker: str, turn: int, part: str, expected: str, fix: str) -> None:
    """A turn carrying a tool part (tool_call, tool_result) is spoken by the one speaker that issues it."""
    if speaker != expected:
        out.add(f"{part}_speaker", f"{part} turn has speaker {speaker!r}", fix, family="tools", turn=turn,
                field="speaker")


def _first_use(out: RecordIssues, seen: dict[str, int], key: str, turn: int, code: str, message: str, fix: str,
               field: str) -> bool:
    """Record `key` as used in `turn`; a second use is `code` (the message names the earlier turn)."""
    if key in seen:
        out.add(code, f"{message} in turn {seen[key]}", fix, family="tools", turn=turn, field=field)
        return False
    seen[key] = turn
    return True


def check_tools(rec: VakRecord, ctx: ValidationContext, out: RecordIssues) -> None:
    validators = {}
    seen_names: set[str] = set()
    for k, tool in enumerate(rec.tools):
        if tool.name in seen_names:
            out.add("tool_name_duplicate", f"tool {tool.name!r} is declared twice", "keep one declaration per tool",
                    family="tools", field=f"tools[{k}].name")
        seen_names.add(tool.name)
        validator, error = ctx.validator_for(tool.parameters)
        if error:
            out.add("tool_schema_invalid", f"tools[{k}].parameters is not valid JSON Schema: {error}",
                    "fix the parameters schema (JSON Schema draft 2020-12)", family="tools",
                    field=f"tools[{k}].parameters")
        validators[tool.name] = validator

    calls: dict[str, int] = {}  # call id -> turn index
    answered: dict[str, int] = {}
    last = len(rec.turns) - 1
    for i, t in enumerate(rec.turns):
        if t.tool_call is not None:
            c = t.tool_call
            _check_carrier(out, t.speaker, i, "tool_call", "agent",
                           'tool calls are issued by the agent: set speaker "agent"')
            if t.end != t.start:
                out.add("tool_call_not_instant", "a tool call turn has a duration",
                        "set end equal to start: a tool call turn has zero duration", family="tools", turn=i,
                        field="end")
            _first_use(out, calls, c.id, i, "tool_call_id_duplicate", f"call id {c.id!r} was already used",
                       "give every tool call a unique id within the conversation", "tool_call.id")
            if rec.tools and c.name not in validators:
                out.add("tool_call_unknown_tool", f"call names tool {c.name!r}, which tools[] does not declare",
                        "declare the tool in tools[] or fix the name", family="tools", turn=i,
                        field="tool_call.name")
            validator = validators.get(c.name)
            if validator is not None:
                errors = sorted(validator.iter_errors(c.arguments), key=lambda e: list(e.path))
                if errors:
                    e = errors[0]
                    where = "/".join(str(p) for p in e.path) or "arguments"
                    out.add("tool_arguments_invalid",
                            f"arguments do not match the {c.name} schema at {where}: {e.validator} failed",
                            "make the arguments satisfy the tool's parameters schema", family="tools", turn=i,
                            field=f"tool_call.arguments.{where}" if e.path else "tool_call.arguments")
        if t.tool_result is not None:
            r = t.tool_result
            _check_carrier(out, t.speaker, i, "tool_result", "tool",
                           'a tool result is carried by a speaker: "tool" turn')
            if r.id not in calls:
                out.add("tool_result_unknown_call", f"result references call {r.id!r}, which no earlier turn issued",
                        "reference the id of an earlier tool_call", family="tools", turn=i, field="tool_result.id")
            else:
                _first_use(out, answered, r.id, i, "tool_result_duplicate", f"call {r.id!r} was already answered",
                           "a call is answered at most once: drop the extra result", "tool_result.id")
    for cid, i in calls.items():
        if cid not in answered and i != last:
            out.add("tool_call_unanswered",
                    f"call {cid!r} is left hanging while the conversation carries on",
                    "add its tool_result right after the call, or cut the conversation at the call (only a call "
                    "in the final turn may go unanswered)", family="tools", turn=i, field="tool_call.id")
