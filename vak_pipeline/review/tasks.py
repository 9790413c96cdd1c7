"""Label Studio tasks for what needs a human: one task per conversation, pre-filled as predictions.

For each upload: the private records (work/<upload>/conversations.jsonl), the redacted ones the release is
made of (redacted.jsonl, their redaction logs) and the ASR segments (transcripts.jsonl) decide which turns are
flagged (`ReviewSettings`). A conversation with a flagged turn (or one named in `conversations`) becomes one
task: its audio (the redacted release's unless `private_audio`), every spoken turn as an audio region with
speaker, text and language, the transcript as a dialogue, PII spans on it; all as Label Studio `predictions`,
so a reviewer edits rather than types. A turn's region id is a digest of conversation id and turn time, and
the task data keeps what was shown, so `vak review import` reads what changed whatever list index the turn
has after a re-transcription. The tasks file is a function of the data root and the settings only.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..core.issue import Issue
from ..layout import DataLayout
from ..locales.lid import hindi_english_scores
from ..locales.registry import PACKS
from ..schema import VakRecord
from ..schema.redaction_log import RedactionLog
from ..speech.models import ConversationTranscript, Segment
from ..speech.stage import read_audio_rows
from ..storage import atomic_write_json, iter_models
from .settings import ReviewSettings
from .text import value_spans

LABEL_CONFIG = Path(__file__).with_name("label_config.xml")


def label_config() -> str:
    """The labeling config every review project uses (what the task fields are named for)."""
    return LABEL_CONFIG.read_text(encoding="utf-8")


def tasks_path(layout: DataLayout) -> Path:
    return layout.root / "work" / "review" / "tasks.json"


def region_id(conv_id: str, start: float, end: float) -> str:
    """A turn's region id: its conversation and time, never its list index."""
    return hashlib.sha256(f"{conv_id}|{start:.3f}|{end:.3f}".encode()).hexdigest()[:10]


TASKS_VERSION = "1"  # bump when the same data root and settings would export other tasks (the asset's code_version)


class ExportResult(BaseModel):
    path: str = ""
    tasks: int = 0
    turns: int = 0
    flagged_turns: int = 0
    reasons: dict[str, int] = Field(default_factory=dict)
    left_out: int = Field(0, description="flagged conversations over max_tasks, left for the next round")
    issues: list[Issue] = Field(default_factory=list)


def _models(path: Path, model) -> dict[str, Any]:
    """The valid lines of a stage's JSONL by conversation id (bad lines are the producing stage's issues)."""
    if not path.is_file():
        return {}
    return {getattr(ml.value, "id", None) or ml.value.conv_id: ml.value
            for ml in iter_models(path, model) if ml.value is not None}


def _segments_of(tr: ConversationTranscript | None, speaker: str, start: float, end: float) -> list[Segment]:
    if tr is None:
        return []
    return [s for s in tr.segments if s.speaker == speaker and min(s.end, end) > max(s.start, start)]


def _conversation_flags(rec: VakRecord, s: ReviewSettings) -> list[str]:
    out = []
    d = rec.meta.diarization
    if rec.audio is not None and rec.audio.channels == 1 and d is not None and d.confidence is not None \
            and d.confidence < s.min_diarization_confidence:
        out.append("diarization")
    if s.quality_flags:
        extra = rec.meta.model_extra or {}
        removed = extra.get("removed") or {}
        leaks = (extra.get("crosstalk") or {}).get("leaks") or []
        if removed.get("hallucinated_segments") or any(isinstance(x, dict) and x.get("detected") for x in leaks):
            out.append("quality")
    return out


def turn_flags(rec: VakRecord, tr: ConversationTranscript | None, log: RedactionLog | None,
               s: ReviewSettings) -> dict[int, list[str]]:
    """Turn index -> why a human should check it (empty dict: nothing doubtful)."""
    pack = PACKS.get(rec.locale)
    hinglish = pack is not None and any(x.split("-")[0] == "hi" for x in pack.languages)
    conv = _conversation_flags(rec, s)
    unsure: dict[int, int] = Counter()
    for sp in (log.spans if log is not None else []):
        if sp.field == "text" and sp.turn is not None and (
                sp.type == "unsure_number" or (sp.model_extra or {}).get("recognizer") == "name_lexicon"):
            unsure[sp.turn] += 1
    out: dict[int, list[str]] = {}
    for i, t in enumerate(rec.turns):
        if not t.is_spoken:
            continue
        why = list(conv)
        segs = _segments_of(tr, t.speaker, t.start, t.end)
        lps = [x.avg_logprob for x in segs if x.avg_logprob is not None]
        if lps and sum(lps) / len(lps) < s.max_avg_logprob:
            why.append("asr_logprob")
        if any(x.no_speech_prob is not None and x.no_speech_prob >= s.min_no_speech_prob for x in segs):
            why.append("no_speech")
        if hinglish and t.text:
            h, e = hindi_english_scores(t.text)
            if h + e >= 2 and abs(h - e) <= s.lid_margin * (h + e):
                why.append("lid_close")
        if s.unsure_pii and unsure.get(i):
            why.append("unsure_pii")
        if why:
            out[i] = why
    return out


def _pii_spans(log: RedactionLog | None, turn: int, shown: str, private: str, redacted: str,
               basis_private: bool) -> list[dict[str, Any]]:
    spans = sorted((sp.start, sp.end, sp.type) for sp in (log.spans if log else [])
                   if sp.field == "text" and sp.turn == turn)
    if not spans:
        return []
    ranges = [(a, b) for a, b, _ in spans]
    if basis_private:
        mapped = value_spans(private, redacted, ranges)
        if mapped is None:
            return []
        ranges = mapped
    return [{"type": typ, "start": a, "end": b, "text": shown[a:b]}
            for (a, b), (_, _, typ) in zip(ranges, spans, strict=True)]


def build_task(rec: VakRecord, red: VakRecord, flags: dict[int, list[str]], log: RedactionLog | None,
               audio_url: str, audio_sha: str | None, upload: str, basis: str) -> dict[str, Any]:
    """One conversation as a Label Studio task (data + predictions): `rec` private, `red` redacted, the
    reviewer sees the text of `basis`."""
    shown = rec if basis == "private" else red
    engine = rec.meta.transcription.engine if rec.meta.transcription else "unknown"
    dialogue, turns, pii, result = [], [], [], []
    for i, t in enumerate(shown.turns):
        if not t.is_spoken:
            continue
        rid = region_id(rec.id, t.start, t.end)
        text = t.text or ""
        p = len(dialogue)
        dialogue.append({"rid": rid, "author": t.speaker, "text": text, "start": t.start, "end": t.end,
                         "duration": round(t.end - t.start, 3)})
        turns.append({"rid": rid, "start": t.start, "end": t.end, "speaker": t.speaker, "text": text,
                      "lang": t.lang, "flags": flags.get(i, [])})
        where = {"start": t.start, "end": t.end, "channel": 0}
        result += [
            {"id": rid, "from_name": "speaker", "to_name": "audio", "type": "labels",
             "value": {**where, "labels": [t.speaker]}},
            {"id": rid, "from_name": "text", "to_name": "audio", "type": "textarea",
             "value": {**where, "text": [text]}},
        ]
        if t.lang:
            result.append({"id": rid, "from_name": "lang", "to_name": "audio", "type": "choices",
                           "value": {**where, "choices": [t.lang]}})
        for k, sp in enumerate(_pii_spans(log, i, text, rec.turns[i].text or "", red.turns[i].text or "",
                                          basis == "private")):
            pid = f"{rid}p{k}"
            pii.append({"id": pid, "rid": rid, "paragraph": p, **sp})
            result.append({"id": pid, "from_name": "pii", "to_name": "dialogue", "type": "paragraphlabels",
                           "value": {"start": str(p), "end": str(p), "startOffset": sp["start"],
                                     "endOffset": sp["end"], "text": sp["text"], "paragraphlabels": [sp["type"]]}})
    flagged = sum(1 for x in turns if x["flags"])
    return {"data": {"audio": audio_url, "title": f"{rec.id}: {flagged} of {len(turns)} turns flagged",
                     "conv_id": rec.id, "upload": upload, "audio_sha": audio_sha, "basis": basis, "engine": engine,
                     "dialogue": dialogue, "turns": turns, "pii": pii},
            "predictions": [{"model_version": f"vak:{engine}", "result": result}]}


def export_tasks(layout: DataLayout | str | Path, settings: ReviewSettings | None = None,
                 out: Path | None = None) -> ExportResult:
    """Write the review tasks file (default work/review/tasks.json); see module doc."""
    layout = DataLayout.at(Path(layout) if not isinstance(layout, DataLayout) else layout)
    s = settings or ReviewSettings()
    chosen = set(s.conversations)
    found: list[tuple[int, str, str, dict[str, Any], int]] = []
    reasons: Counter[str] = Counter()
    result = ExportResult()
    for upload in layout.uploads():
        rows = {r.conv_id: r for r in read_audio_rows(layout, upload, result.issues)}
        trs = _models(layout.transcripts(upload), ConversationTranscript)
        private = _models(layout.conversations(upload), VakRecord)
        redacted = _models(layout.redacted(upload), VakRecord)
        for conv_id in sorted(private):
            rec, row = private[conv_id], rows.get(conv_id)
            if rec.audio is None or row is None or (chosen and conv_id not in chosen):
                continue
            red = redacted.get(conv_id)
            if red is None or len(red.turns) != len(rec.turns):
                continue  # not redacted yet (or the stages are out of step): run `vak run` first
            log_path = layout.release_files(upload) / layout.redaction_rel(conv_id)
            log = RedactionLog.model_validate_json(log_path.read_bytes()) if log_path.is_file() else None
            if chosen:
                flags = {i: ["chosen"] for i, t in enumerate(rec.turns) if t.is_spoken}
            else:
                flags = turn_flags(rec, trs.get(conv_id), log, s)
                if not flags:
                    continue
            if s.private_audio:
                rel, basis = layout.normalized_audio_rel(upload, conv_id), "private"
            else:
                published = layout.published_audio(conv_id)
                rel = layout.audio_rel(conv_id) if published.is_file() else \
                    (layout.release_files(upload) / layout.audio_rel(conv_id)).relative_to(layout.root).as_posix()
                basis = "redacted"
            task = build_task(rec, red, flags, log, s.audio_url_prefix + rel, row.source_sha256, upload, basis)
            found.append((-len(flags), upload, conv_id, task, len(task["data"]["turns"])))
            for why in flags.values():
                reasons.update(why)
    found.sort(key=lambda x: x[:3])
    kept = sorted(found[:s.max_tasks], key=lambda x: x[1:3])
    result.left_out = len(found) - len(kept)
    tasks = [x[3] for x in kept]
    path = Path(out) if out is not None else tasks_path(layout)
    atomic_write_json(path, tasks)
    result.path, result.tasks = str(path), len(tasks)
    result.turns = sum(x[4] for x in kept)
    result.flagged_turns = sum(-x[0] for x in kept)
    result.reasons = dict(sorted(reasons.items()))
    return result
