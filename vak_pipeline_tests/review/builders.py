"""A reviewed call without Whisper: generated audio, normalized for real, and a stored transcript (the ASR's
output written as the transcripts stage writes it), so tagging, redaction and review run as in `vak run`."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from vak_pipeline.audio.stage import normalize_upload
from vak_pipeline.layout import DataLayout
from vak_pipeline.redaction.stage import redact_upload
from vak_pipeline.schema.record import Diarization
from vak_pipeline.speech.models import ConversationTranscript, Segment, WordTiming
from vak_pipeline.speech.stage import read_audio_rows, tag_upload
from vak_pipeline_tests.ingest_fixtures import UPLOAD_YAML, make_upload, write_wav

UPLOAD = "calls"
# (speaker, start, end, text, avg_logprob) of the "ASR" output
TURNS = [
    ("agent", 0.2, 1.9, "thank you for calling how can i help", -0.2),
    ("user", 2.3, 4.1, "i want to change my billing adress", -1.3),  # low confidence: flagged
    ("agent", 4.5, 5.8, "sure i can help with that", -0.3),
]


def segment(speaker: str, start: float, end: float, text: str, logprob: float, shift: float = 0.0) -> Segment:
    words = text.split()
    step = (end - start) / len(words)
    timings = [WordTiming(word=w, start=round(start + shift + i * step, 3),
                          end=round(start + shift + (i + 1) * step - 0.02, 3), probability=0.9)
               for i, w in enumerate(words)]
    return Segment(start=start + shift, end=end + shift, text=text, words=timings,
                   channel=0 if speaker == "user" else 1, speaker=speaker, avg_logprob=logprob, no_speech_prob=0.01)


def write_transcript(layout: DataLayout, engine: str = "faster-whisper-tiny.en", shift: float = 0.0,
                     turns=TURNS) -> None:
    """What the transcripts stage would write for the call (another engine / `shift` = a re-transcription)."""
    [row] = read_audio_rows(layout, UPLOAD, [])
    tr = ConversationTranscript(
        conv_id=row.conv_id, upload=UPLOAD, source_file=row.source_file, public_file=row.public_file,
        audio_path=row.path, source_sha256=row.source_sha256, cache_key=f"k-{engine}-{shift}", engine=engine,
        attribution="channels", diarization=Diarization(engine="channels", confidence=1.0),
        segments=[segment(*t, shift=shift) for t in turns], duration_s=row.duration_s)
    layout.transcripts(UPLOAD).write_text(json.dumps(tr.model_dump(mode="json", exclude_none=True)) + "\n",
                                          encoding="utf-8")


def make_call(root: Path) -> DataLayout:
    up = make_upload(root, UPLOAD, UPLOAD_YAML)
    write_wav(up / "call.wav", seconds=6.5, rate=16000, channels=2)
    layout = DataLayout.at(root)
    assert normalize_upload(layout, UPLOAD).recordings == 1
    write_transcript(layout)
    return layout


def rebuild(layout: DataLayout):
    """The stages a correction changes: tagging (where it is applied) and redaction."""
    tag = tag_upload(layout, UPLOAD)
    red = redact_upload(layout, UPLOAD)
    return tag, red


def records(layout: DataLayout, redacted: bool = True) -> list[dict]:
    path = layout.redacted(UPLOAD) if redacted else layout.conversations(UPLOAD)
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def annotate(task: dict, edits, ann_id: int = 1, who: int = 7, at: str = "2026-12-01T10:00:00Z") -> dict:
    """`task` as Label Studio exports it after a reviewer submitted its predictions edited by `edits(result)`."""
    result = copy.deepcopy(task["predictions"][0]["result"])
    edits(result, task)
    out = copy.deepcopy(task)
    out["id"] = 42
    out["annotations"] = [{"id": ann_id, "completed_by": who, "result": result, "was_cancelled": False,
                           "created_at": at, "updated_at": at}]
    return out


def region(result: list[dict], rid: str, name: str) -> dict:
    return next(r for r in result if r["id"] == rid and r["from_name"] == name)
