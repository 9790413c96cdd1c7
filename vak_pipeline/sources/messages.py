"""Chat-style SFT records (`*.messages.jsonl`, seeds/001) -> canonical records without audio.

A line is `{"id", "domain", "messages": [{"role", "content", ...}], "metadata"}`. Roles map as:
system -> the record's system_prompt (leading system messages only), user -> user turns, assistant ->
agent turns, tool -> tool_result turns. An assistant message whose content is a JSON object with
"action" (the agentic pack's `{"thought", "action", "action_input"}`) or which carries OpenAI
`tool_calls` becomes tool_call turns; call ids are kept when given and generated (call_1, call_2 ...)
when not. A tool message answers `tool_call_id` when present, else the oldest unanswered call.
Text has no timing: every turn starts and ends at 0.0 and the list order is the conversation order.
Provenance comes from upload.yaml; `metadata` is kept as meta.sft_metadata.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.issue import Issue, Severity
from ..locales import get_pack
from ..locales.lid import tag_languages
from ..schema.record import SCHEMA_VERSION, Language, Meta, Tool, ToolCall, ToolResult, Turn, VakRecord
from ..uploads.descriptor import RecordingSettings
from .aidb import conversation_id_for
from .importing import ImportedRecord, LineImport, import_file

FORMAT = "messages"
Role = Literal["system", "user", "assistant", "tool"]


class SftFunction(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str = Field(min_length=1)
    arguments: str | dict[str, Any] = "{}"  # OpenAI sends a JSON string; some exporters an object
    description: str | None = None
    parameters: dict[str, Any] | None = None


class SftToolCall(BaseModel):
    """OpenAI `tool_calls[]` entry of an assistant message."""

    model_config = ConfigDict(extra="allow")
    id: str | None = None
    type: str = "function"
    function: SftFunction


class SftMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Role
    content: str | list[Any] | None = None
    tool_calls: list[SftToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None


class SftTool(BaseModel):
    """OpenAI `tools[]` entry ({"type": "function", "function": {...}}) of a record, if it has one."""

    model_config = ConfigDict(extra="allow")
    type: str = "function"
    function: SftFunction


class SftRecord(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str | None = None
    domain: str | None = None
    messages: list[SftMessage] = Field(min_length=1)
    metadata: dict[str, Any] | None = None
    tools: list[SftTool] | None = None


@dataclass(frozen=True)
class MessagesImportContext:
    upload: str
    file: str
    settings: RecordingSettings
    sha256: str | Callable[[], str] = ""  # the source file's (hashed once, when an id has to be cleaned)


def _text(content: str | list[Any] | None) -> str:
    """Message content as text; OpenAI content parts contribute their text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")


def _json_action(text: str) -> dict[str, Any] | None:
    """The agentic pack's action object, when the assistant content is one."""
    s = text.strip()
    if not s.startswith("{"):
        return None
    try:
        obj = json.loads(s)
    except (json.JSONDecodeError, RecursionError):
        return None
    return obj if isinstance(obj, dict) and isinstance(obj.get("action"), str) and obj["action"] else None


def _arguments(value: Any) -> dict[str, Any] | None:
    """Tool arguments as an object: JSON strings are parsed; a non-object input is wrapped as {"input": ...}."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            return None
    if value is None:
        return {}
    return value if isinstance(value, dict) else {"input": value}


def _result_content(text: str) -> Any:
    """A tool observation: JSON objects/arrays are parsed, anything else stays the string it was."""
    s = text.strip()
    if s[:1] in ("{", "["):
        try:
            return json.loads(s)
        except (json.JSONDecodeError, RecursionError):
            pass
    return text


class _Mapper:
    """The turns of one SFT record, message by message, with the state a conversation carries: calls not
    answered yet (oldest first), the ids already issued, the generated-id counter, and the issues."""

    def __init__(self, rec: SftRecord, ctx: MessagesImportContext, line: int) -> None:
        self.rec, self.ctx, self.line = rec, ctx, line
        self.rid = rec.id or f"line{line}"
        self.pack = get_pack(ctx.settings.locale)
        self.system: list[str] = []
        self.turns: list[Turn] = []
        self.thoughts: dict[str, str] = {}
        self.pending: list[str] = []
        self.issued: set[str] = set()
        self.counter = 0
        self.issues: list[Issue] = []

    def bad(self, code: str, message: str, fix: str, index: int | None, field: str | None,
            family: str = "turns") -> None:
        self.issues.append(Issue(code=code, message=message, fix=fix, family=family, record_id=self.rid,
                                 turn_index=index, field=field, file=self.ctx.file, line=self.line))

    def say(self, speaker: Literal["user", "agent"], text: str) -> None:
        # no lang here: record() tags every spoken turn (tag_languages, overwrite) with the conversation's
        # fallback, so a tag taken here was computed only to be replaced
        self.turns.append(Turn(speaker=speaker, start=0.0, end=0.0, text=text))

    def new_id(self, given: str | None) -> str:
        if given:
            return given
        self.counter += 1
        while f"call_{self.counter}" in self.issued:
            self.counter += 1
        return f"call_{self.counter}"

    def map(self) -> None:
        started = False
        for k, m in enumerate(self.rec.messages):
            text = _text(m.content)
            if m.role == "system":
                if started:
                    self.bad("messages_system_late", "a system message appears after the conversation started",
                             "move it to the start: a canonical record has one system_prompt", k, "role")
                elif text.strip():
                    self.system.append(text)
                continue
            started = True
            if m.role == "user":
                if text.strip():
                    self.say("user", text)
                else:
                    self.bad("messages_content_empty", "user message has no content",
                             "drop the message or add its text", k, "content")
            elif m.role == "assistant":
                self.assistant(k, m, text)
            else:
                self.tool(k, m, text)
        if not self.turns:
            self.bad("messages_no_turns", "the record has no user, assistant or tool message", "drop the record",
                     None, "messages")

    def assistant(self, k: int, m: SftMessage, text: str) -> None:
        action = _json_action(text) if not m.tool_calls else None
        calls: list[tuple[str | None, str, Any]] = []
        if m.tool_calls:
            calls = [(c.id, c.function.name, c.function.arguments) for c in m.tool_calls]
            if text.strip():
                self.say("agent", text)
        elif action is not None:
            calls = [(action.get("id") if isinstance(action.get("id"), str) else None, action["action"],
                      action.get("action_input"))]
        elif text.strip():
            self.say("agent", text)
        else:
            self.bad("messages_content_empty", "assistant message has no content and no tool calls",
                     "drop the message or add its content", k, "content")
        for given, name, raw_args in calls:
            args = _arguments(raw_args)
            if args is None:
                self.bad("messages_tool_arguments_invalid", f"arguments of the {name[:40]!r} call are not JSON",
                         "write the arguments as a JSON object", k, "tool_calls.function.arguments", "tools")
                continue
            cid = self.new_id(given)
            if cid in self.issued:
                self.bad("messages_tool_call_id_duplicate", f"call id {cid[:40]!r} is used twice",
                         "give every call its own id", k, "tool_calls.id", "tools")
                continue
            self.issued.add(cid)
            self.pending.append(cid)
            if action is not None and isinstance(action.get("thought"), str):
                self.thoughts[cid] = action["thought"]
            self.turns.append(Turn(speaker="agent", start=0.0, end=0.0,
                                   tool_call=ToolCall(id=cid, name=name, arguments=args)))

    def tool(self, k: int, m: SftMessage, text: str) -> None:
        prev = self.rec.messages[k - 1].role if k else None
        if prev not in ("assistant", "tool"):
            self.bad("messages_tool_not_after_assistant", "a tool message does not follow an assistant message",
                     "every tool message must follow the assistant call it answers", k, "role", "tools")
            return
        if m.tool_call_id:
            if m.tool_call_id not in self.pending:
                self.bad("messages_tool_result_unmatched", f"tool_call_id {m.tool_call_id[:40]!r} names no open "
                         "call", "set tool_call_id to the id of the call this message answers", k, "tool_call_id",
                         "tools")
                return
            cid = m.tool_call_id
        elif self.pending:
            cid = self.pending[0]
        else:
            self.bad("messages_tool_result_unmatched", "tool message answers no open call",
                     "give the preceding assistant message a tool call (JSON action or tool_calls)", k, "role",
                     "tools")
            return
        self.pending.remove(cid)
        self.turns.append(Turn(speaker="tool", start=0.0, end=0.0,
                               tool_result=ToolResult(id=cid, content=_result_content(text))))

    def record(self) -> VakRecord | None:
        """The canonical record of the mapped turns (None, with issues, when the schema refuses it)."""
        rec, ctx, settings = self.rec, self.ctx, self.ctx.settings
        tools = list(settings.tools)
        names = {t.name for t in tools}
        for t in rec.tools or []:
            f = t.function
            if f.name not in names:
                tools.append(Tool(name=f.name, description=f.description or "",
                                  parameters=f.parameters or {"type": "object", "properties": {}}))
                names.add(f.name)
        meta: dict[str, Any] = {
            "source": settings.source, "consent": settings.consent, "consent_ref": settings.consent_ref,
            "license": settings.license, "origin": {"format": FORMAT, "upload": ctx.upload, "file": ctx.file,
                                                    "line": self.line},
            "sft": {"id": rec.id, "domain": rec.domain} | ({"thoughts": self.thoughts} if self.thoughts else {}),
        }
        if rec.metadata is not None:
            meta["sft_metadata"] = rec.metadata
        if settings.speakers:
            meta["speakers"] = dict(settings.speakers)
        if settings.allow_unconsented:
            meta["allow_unconsented"] = True
        primary = self.pack.default_lang  # until tag_languages sets the turns' languages and the summary
        try:
            record = VakRecord(id=conversation_id_for(ctx.upload, ctx.file, self.rid, ctx.sha256),
                               schema_version=SCHEMA_VERSION,
                               locale=settings.locale, language=Language(primary=primary, mix=[primary]),
                               domain=settings.domain or rec.domain, scenario=settings.scenario,
                               system_prompt="\n\n".join(self.system) or settings.system_prompt, tools=tools,
                               turns=self.turns, meta=Meta.model_validate(meta))
            return tag_languages(record, overwrite=True)  # same tagging as transcripts: conversation fallback
        except ValidationError as err:
            for e in err.errors():
                field = ".".join(str(p) for p in e["loc"])
                self.bad("messages_canonical_invalid", f"'{field}': {e['msg']}", "fix the source value it came from",
                         None, field, "structure")
            return None


def messages_to_vak(rec: SftRecord, ctx: MessagesImportContext, line: int) -> tuple[VakRecord | None, list[Issue]]:
    """Map one SFT record to a canonical record; issues name the message index as the turn."""
    mapper = _Mapper(rec, ctx, line)
    mapper.map()
    if any(i.severity == Severity.ERROR for i in mapper.issues):
        return None, mapper.issues
    return mapper.record(), mapper.issues


def import_messages_line(obj: dict[str, Any], ctx: MessagesImportContext, line: int) -> LineImport:
    """One parsed line on its own: the format's checks, then the mapping (see sources.importing)."""
    try:
        rec = SftRecord.model_validate(obj)
    except ValidationError as err:
        rid = obj.get("id") if isinstance(obj.get("id"), str) else None
        issues = []
        for e in err.errors():
            loc = e["loc"]
            turn = loc[1] if len(loc) > 1 and loc[0] == "messages" and isinstance(loc[1], int) else None
            field = ".".join(str(p) for p in loc)
            code = "messages_required_missing" if e["type"] == "missing" else "messages_field_invalid"
            issues.append(Issue(code=code, message=f"'{field}': {e['msg']}",
                                fix="follow the dataset format: messages[] of {role, content}; roles system, user, "
                                    "assistant, tool", record_id=rid, turn_index=turn, field=field, file=ctx.file,
                                line=line))
        return LineImport(source_id=rid, checked=False, pre=issues)
    record, issues = messages_to_vak(rec, ctx, line)
    return LineImport(source_id=rec.id, checked=True, post=issues,
                      imported=ImportedRecord(record, None, line) if record is not None else None)


def line_error(code: str | None, message: str, file: str, line: int | None) -> Issue:
    """A line that is not one JSON object."""
    return Issue(code=f"messages_{code}", message=message, fix="fix the line so it holds one JSON object",
                 file=file, line=line or None)


def duplicate_id(file: str) -> Callable[[str, int, int], Issue]:
    """The issue of a record id already used earlier in `file`."""
    def issue(rid: str, first: int, line: int) -> Issue:
        return Issue(code="messages_id_duplicate", message=f"id already used on line {first}",
                     fix="give every record its own id", record_id=rid, field="id", file=file, line=line)
    return issue


def iter_messages_file(path: Path, ctx: MessagesImportContext) -> Iterator[tuple[VakRecord, int] | Issue]:
    """Stream one *.messages.jsonl file: (record, line) per good line, Issues for the rest."""
    for x in import_file(path, ctx.file, lambda value, line: import_messages_line(value, ctx, line), line_error,
                         duplicate_id(ctx.file)):
        yield (x.record, x.line) if isinstance(x, ImportedRecord) else x
