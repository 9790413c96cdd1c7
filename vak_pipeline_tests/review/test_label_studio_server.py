"""A real Label Studio server speaks the client's language: a project with a conversational labeling config,
a task whose audio the server serves and whose turns come pre-filled as a prediction, a reviewer's annotation,
and the JSON export that brings the annotation back; and the labeling page as a reviewer sees it (Chromium).

Needs `.venv-label-studio` (`./dev test` installs it) or VAK_LABEL_STUDIO_BIN; skipped with the reason without."""

from __future__ import annotations

import httpx
import numpy as np
import pytest
import soundfile as sf

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

# A conversational view: the call's audio with one region per turn (speaker label, editable text, language),
# the dialogue beside it, and PII spans marked on the dialogue's text. The shipped config is the review
# package's (review/label_config.xml); this copy keeps the server test independent of its details.
CONFIG = """<View>
  <Audio name="audio" value="$audio" sync="dialogue"/>
  <Labels name="speaker" toName="audio" choice="single">
    <Label value="A" background="#1f77b4"/><Label value="B" background="#ff7f0e"/>
  </Labels>
  <TextArea name="text" toName="audio" perRegion="true" editable="true" rows="2" maxSubmissions="1"/>
  <Choices name="lang" toName="audio" perRegion="true" choice="single">
    <Choice value="en"/><Choice value="de"/>
  </Choices>
  <Paragraphs name="dialogue" value="$dialogue" layout="dialogue" nameKey="speaker" textKey="text"
              sync="audio"/>
  <ParagraphLabels name="pii" toName="dialogue">
    <Label value="PHONE" background="#d62728"/><Label value="PERSON" background="#9467bd"/>
  </ParagraphLabels>
</View>"""

TURNS = [("A", 0.0, 1.4, "thanks for calling, how can I help"), ("B", 1.6, 3.2, "my parcel never arrived")]


def _region(turn_id: str, speaker: str, start: float, end: float, text: str, lang: str = "en") -> list[dict]:
    """One turn as Label Studio results: a speaker-labelled audio region with its text and language."""
    span = {"start": start, "end": end, "channel": 0}
    return [
        {"id": turn_id, "from_name": "speaker", "to_name": "audio", "type": "labels",
         "value": {**span, "labels": [speaker]}},
        {"id": turn_id, "from_name": "text", "to_name": "audio", "type": "textarea",
         "value": {**span, "text": [text]}},
        {"id": turn_id, "from_name": "lang", "to_name": "audio", "type": "choices",
         "value": {**span, "choices": [lang]}},
    ]


def _task(server, folder) -> dict:
    audio = folder / "conv-0001.wav"
    t = np.arange(int(3.5 * 24000)) / 24000
    sf.write(audio, (0.1 * np.sin(2 * np.pi * 220 * t)).astype("float32"), 24000)
    dialogue = [{"speaker": s, "start": a, "end": b, "text": x} for s, a, b, x in TURNS]
    prediction = [r for i, (s, a, b, x) in enumerate(TURNS) for r in _region(f"conv-0001@{a:.2f}", s, a, b, x)]
    return {"data": {"audio": server.audio_url(audio), "dialogue": dialogue, "conversation_id": "conv-0001"},
            "predictions": [{"model_version": "vak-test", "result": prediction}]}


def test_a_task_with_predictions_goes_in_and_a_reviewers_annotation_comes_back_in_the_json_export(label_studio):
    folder = label_studio.document_root / "round-trip"
    folder.mkdir()
    task = _task(label_studio, folder)
    with label_studio.client() as ls:
        assert ls.whoami()["email"] == label_studio.username
        project = ls.create_project("vak review round trip", CONFIG)
        ls.connect_local_storage(project, folder)
        [task_id] = ls.import_tasks(project, [task])

        # the server serves the task's audio to the project's users, byte for byte
        served = httpx.get(label_studio.url + task["data"]["audio"], timeout=30,
                           headers={"Authorization": f"Token {label_studio.token}"})
        assert served.status_code == 200 and served.content == (folder / "conv-0001.wav").read_bytes()

        [listed] = ls.tasks(project)
        assert listed["id"] == task_id and listed["data"]["conversation_id"] == "conv-0001"
        [predicted] = listed["predictions"]
        assert predicted["result"] == task["predictions"][0]["result"]

        # a reviewer edits a text, moves a boundary, swaps a speaker and marks a phone number
        corrected = (_region("conv-0001@0.00", "A", 0.0, 1.5, "thanks for calling, how can I help you")
                     + _region("conv-0001@1.60", "A", 1.6, 3.2, "my parcel never arrived"))
        corrected.append({"id": "pii-1", "from_name": "pii", "to_name": "dialogue", "type": "paragraphlabels",
                          "value": {"start": "1", "end": "1", "startOffset": 3, "endOffset": 9,
                                    "text": "parcel", "paragraphlabels": ["PHONE"]}})
        annotation_id = ls.submit_annotation(task_id, corrected, lead_time_s=12.5)

        exported = ls.export(project)
    [row] = exported
    assert row["id"] == task_id and row["data"]["conversation_id"] == "conv-0001"
    [annotation] = row["annotations"]
    assert annotation["id"] == annotation_id and annotation["completed_by"] == 1
    assert annotation["result"] == corrected and annotation["lead_time"] == 12.5
    assert not annotation["was_cancelled"]


def test_the_labeling_page_shows_the_conversation_to_a_logged_in_reviewer(label_studio, tmp_path):
    from PIL import Image

    from vak_pipeline_tests.label_studio import screenshot_task

    folder = label_studio.document_root / "screenshot"
    folder.mkdir()
    with label_studio.client() as ls:
        project = ls.create_project("vak review screenshot", CONFIG)
        ls.connect_local_storage(project, folder)
        [task_id] = ls.import_tasks(project, [_task(label_studio, folder)])
    seen = screenshot_task(label_studio, project, task_id, tmp_path / "review-task.png", shows=TURNS[1][3])

    assert all(text in seen["text"] for _, _, _, text in TURNS)  # the dialogue, turn by turn
    png = Image.open(seen["png"]).convert("RGB")
    assert png.size == (1440, 1000)
    colours = png.getcolors(maxcolors=1 << 20)
    assert len(colours) > 200  # text, waveform, region colours: not a blank or error page
    assert max(count for count, _ in colours) < 0.9 * png.size[0] * png.size[1]
