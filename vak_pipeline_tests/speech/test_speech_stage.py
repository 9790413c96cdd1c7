"""The speech stages on real audio: tiny.en on the committed TTS calls, channels -> speakers, incremental runs,
mono without a diarizer reported (never guessed), records joined with vakforge imports, valid turns."""

import json
import shutil
from pathlib import Path

import pytest
import soundfile as sf

from vak_pipeline.audio.stage import normalize_upload
from vak_pipeline.layout import DataLayout
from vak_pipeline.rules.context import ValidationContext
from vak_pipeline.rules.engine import validate_record
from vak_pipeline.schema import Alignment, VakRecord
from vak_pipeline.speech.asr import AsrSettings, ModelNotAvailable, Transcriber, load_model
from vak_pipeline.speech.metrics import wer
from vak_pipeline.speech.stage import speech_report_path, tag_upload, transcribe_upload

pytestmark = pytest.mark.slow  # real models (tiny.en, pyannote): seconds, still run in CI

FIX = Path(__file__).parents[1] / "fixtures" / "speech"
FAST = AsrSettings(beam_size=1, cpu_threads=2)  # tiny.en bundled model; beam 1 keeps the tests quick

UPLOAD_YAML = """\
locale: en-US
source: real
consent: recorded_verbal
consent_ref: policy-1
voice_consent_ref: voice-1
license: proprietary-internal
condition: clean
channel_map: {"0": "user", "1": "agent"}
speakers: {"agent": "agent-7"}
"""


def script(name: str) -> dict:
    return json.loads((FIX / f"{name}.script.json").read_text(encoding="utf-8"))


def text_of(sc: dict, speaker: str) -> str:
    return " ".join(t["text"] for t in sc["turns"] if t["speaker"] == speaker)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> DataLayout:
    root = tmp_path_factory.mktemp("data")
    up = root / "raw" / "calls"
    up.mkdir(parents=True)
    shutil.copy(FIX / "stereo_two_voices.flac", up / "stereo.flac")
    shutil.copy(FIX / "mono_two_voices.flac", up / "mono.flac")
    (up / "upload.yaml").write_text(UPLOAD_YAML, encoding="utf-8")
    (up / "stereo.events.jsonl").write_text(
        json.dumps({"t": 7.5, "tool_call": {"id": "call_1", "name": "order_status", "arguments": {}}}) + "\n"
        + json.dumps({"t": 7.6, "tool_result": {"id": "call_1", "content": "shipped"}}) + "\n", encoding="utf-8")
    bad = {"id": "imp-1", "schema_version": "0.1", "locale": "en-US"}  # missing language, turns, meta
    good = {"id": "imp-2", "schema_version": "0.1", "locale": "en-US", "language": {"primary": "en-US"},
            "turns": [{"speaker": "user", "start": 0, "end": 1, "text": "I need help with my bill please"}],
            "meta": {"source": "synthetic", "consent": "synthetic"}}
    (up / "more.vakforge.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n{oops\n", encoding="utf-8")
    layout = DataLayout.at(root)
    res = normalize_upload(layout, "calls")
    assert res.recordings == 2, res.issues
    return layout


@pytest.fixture(scope="module")
def transcribed(data):
    return transcribe_upload(data, "calls", FAST)


def test_stereo_channels_are_transcribed_separately_and_named_by_the_channel_map(data, transcribed):
    lines = [json.loads(x) for x in data.transcripts("calls").read_text().splitlines()]
    assert [x["source_file"] for x in lines] == ["stereo.flac"]
    tr = lines[0]
    assert tr["engine"] == "faster-whisper-tiny.en" and tr["attribution"] == "channels"
    assert tr["diarization"] == {"engine": "channels", "confidence": 1.0}
    sc = script("stereo_two_voices")
    for speaker in ("agent", "user"):
        segs = [s for s in tr["segments"] if s["speaker"] == speaker]
        assert {s["channel"] for s in segs} == {1 if speaker == "agent" else 0}
        assert all(s["words"] for s in segs)  # word timestamps
        assert wer(text_of(sc, speaker), " ".join(s["text"] for s in segs)) < 0.6


def test_mono_without_a_diarizer_is_reported_as_needing_diarization_not_guessed(data, transcribed):
    issues = [i for i in transcribed.issues if i.code == "needs_diarization"]
    assert len(issues) == 1 and issues[0].file == "calls/mono.flac" and "diarizer" in issues[0].fix
    assert transcribed.needs_diarization == 1
    report = json.loads(speech_report_path(data, "calls").read_text())
    assert report["transcripts"]["issues"][0]["code"] == "needs_diarization"


def test_unchanged_recordings_are_not_transcribed_again(data, transcribed):
    again = transcribe_upload(data, "calls", FAST)
    assert (again.transcribed, again.skipped) == (0, 1)
    changed = transcribe_upload(data, "calls", FAST.model_copy(update={"beam_size": 2}))
    assert changed.transcribed == 1
    transcribe_upload(data, "calls", FAST)  # back to the settings the other tests expect


def test_tag_upload_writes_valid_records_alignments_and_joins_vakforge_imports(data, transcribed):
    res = tag_upload(data, "calls")
    assert (res.from_audio, res.from_vakforge, res.records) == (1, 1, 2)
    recs = [VakRecord.model_validate(json.loads(x)) for x in data.conversations("calls").read_text().splitlines()]
    call = next(r for r in recs if r.audio)
    assert call.meta.transcription.engine == "faster-whisper-tiny.en" and call.meta.pii_redacted is False
    assert [t.start for t in call.turns] == sorted(t.start for t in call.turns)
    assert [t.tool_call.id for t in call.turns if t.tool_call] == ["call_1"]
    assert all(t.lang == "en" for t in call.turns if t.is_spoken) and call.language.primary == "en-US"
    al = Alignment.model_validate_json(data.work_alignment("calls", call.id).read_text())  # private until redacted
    assert al.words and {w.speaker for w in al.words} == {"agent", "user"}
    assert all(call.turns[w.turn].speaker == w.speaker for w in al.words)
    imported = next(r for r in recs if r.id == "imp-2")
    assert imported.turns[0].lang == "en"  # tagged on import because it had none
    # bad vakforge lines are line-numbered issues; the good line still went through
    bad = sorted((i.code, i.line) for i in res.issues if i.code.startswith("vakforge_"))
    assert bad == [("vakforge_invalid", 2), ("vakforge_json_invalid", 3)]
    # the record breaks no turn/structure rule; only redaction (a later stage) is still owed
    out = validate_record(call.dump(), ValidationContext(base_dir=data.root, check_pii=False))
    assert {i.family for i in out.issues if i.severity.value == "ERROR"} <= {"provenance"}


def test_english_only_model_forces_english_and_names_the_engine():
    tr = Transcriber(FAST)
    assert tr.language() == "en" and tr.engine == "faster-whisper-tiny.en"


def test_transcribe_channel_accepts_a_file_path_and_resamples(data):
    audio, sr = sf.read(FIX / "stereo_two_voices.flac", dtype="float32")
    segs = Transcriber(FAST).transcribe_channel(audio[:, 1], sr, channel=1)
    assert segs and segs[0].channel == 1 and segs[0].words[0].start < 1.0
    assert wer(text_of(script("stereo_two_voices"), "agent"), " ".join(s.text for s in segs)) < 0.6


def test_a_model_that_is_not_local_is_a_clear_error_not_a_download():
    with pytest.raises(ModelNotAvailable, match="downloads are disabled"):
        load_model(AsrSettings(model="large-v3-not-cached-here", device="cpu"))
