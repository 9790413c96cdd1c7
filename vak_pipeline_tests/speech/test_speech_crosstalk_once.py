"""The cross-talk measure runs once per stereo recording: normalization measures it (the inspection), and the
transcription stage's bleed gate and clean-up both use that one result instead of measuring again; a recording
without one (an index written before inspections carried it) is measured once, shared by gate and clean-up.
The channels' span powers are built once per recording too. The gate's vectorised frame test flags exactly the
frames its per-frame definition does. No Whisper here."""

from pathlib import Path

import numpy as np
import soundfile as sf

from vak_pipeline.audio import crosstalk
from vak_pipeline.audio.crosstalk import SOURCE_MIN_DBFS, measure_crosstalk
from vak_pipeline.audio.levels import SpanPower
from vak_pipeline.audio.stage import normalize_upload
from vak_pipeline.layout import DataLayout
from vak_pipeline.speech import gate
from vak_pipeline.speech.asr import AsrSettings, ChannelInput, read_channels
from vak_pipeline.speech.bleed import BleedSettings
from vak_pipeline.speech.gate import bleed_only_regions
from vak_pipeline.speech.stage import read_audio_rows, transcribe_and_clean, transcribe_upload

FIX = Path(__file__).parents[1] / "fixtures"
UPLOAD_YAML = """\
locale: en-US
source: synthetic
consent: synthetic
channel_map: {"0": "agent", "1": "user"}
"""


class FakeTranscriber:
    """Stands in for asr.Transcriber: no model; records the bleed-only cuts it is handed per recording."""

    settings = AsrSettings(beam_size=1, cpu_threads=2, device="cpu")
    engine = "fake"

    def __init__(self) -> None:
        self.cuts: list[list[list[tuple[float, float]]]] = []

    def transcribe_channels(self, channels, sample_rate, cuts, labels):
        self.cuts.append(cuts)
        return [], [ChannelInput(channel=c) for c in labels]


def count_measures(monkeypatch) -> list[int]:
    """A counter of finished cross-talk measures (every measure, streamed or whole, ends in `result()`)."""
    calls = [0]
    real = crosstalk.CrosstalkMeter.result

    def counted(self):
        calls[0] += 1
        return real(self)

    monkeypatch.setattr(crosstalk.CrosstalkMeter, "result", counted)
    return calls


def count_span_powers(monkeypatch) -> list[int]:
    """A counter of channels' cumulative power sums built (SpanPower, and ChannelLevels through it)."""
    calls = [0]
    real = SpanPower.__init__

    def counted(self, *args, **kwargs):
        calls[0] += 1
        real(self, *args, **kwargs)

    monkeypatch.setattr(SpanPower, "__init__", counted)
    return calls


def test_a_stereo_recording_is_measured_once_from_normalization_through_transcription(tmp_path, monkeypatch):
    up = tmp_path / "raw" / "leaky"
    up.mkdir(parents=True)
    for name in ("xtalk_16db.ogg", "xtalk_10db.ogg"):
        audio, sr = sf.read(FIX / "realcalls" / name, dtype="float32", always_2d=True)
        sf.write(up / name.replace(".ogg", ".flac"), audio, sr, subtype="PCM_16")
    (up / "upload.yaml").write_text(UPLOAD_YAML, encoding="utf-8")
    layout = DataLayout.at(tmp_path)
    measures = count_measures(monkeypatch)

    assert normalize_upload(layout, "leaky").recordings == 2
    assert measures[0] == 2  # the inspection of each recording

    fake = FakeTranscriber()
    powers = count_span_powers(monkeypatch)
    assert transcribe_upload(layout, "leaky", transcriber=fake).transcribed == 2
    assert measures[0] == 2  # nothing measured again: gate and clean-up took the inspection's result
    assert powers[0] == 2 * 2  # one span power per channel, shared by the gate, the bleed and hallucination tests
    rows = sorted(read_audio_rows(layout, "leaky", []), key=lambda r: r.conv_id)
    want = []
    for row in rows:
        data, sr = read_channels(layout.root / row.path)
        regions = bleed_only_regions(data, sr, row.inspect.crosstalk)
        assert regions, row.source_file  # both fixtures leak: the gate has something to cut
        want.append([regions.get(0, []), regions.get(1, [])])
    assert sorted(fake.cuts) == sorted(want)


def test_without_an_inspection_result_the_gate_and_the_clean_up_share_one_measure(tmp_path, monkeypatch):
    up = tmp_path / "raw" / "leaky"
    up.mkdir(parents=True)
    audio, sr = sf.read(FIX / "realcalls" / "xtalk_16db.ogg", dtype="float32", always_2d=True)
    sf.write(up / "call.flac", audio, sr, subtype="PCM_16")
    (up / "upload.yaml").write_text(UPLOAD_YAML, encoding="utf-8")
    layout = DataLayout.at(tmp_path)
    normalize_upload(layout, "leaky")
    (row,) = read_audio_rows(layout, "leaky", [])
    row = row.model_copy(update={"inspect": row.inspect.model_copy(update={"crosstalk": None})})
    measures = count_measures(monkeypatch)

    *_, cleaned = transcribe_and_clean(row, layout.root / row.path, FakeTranscriber(), None)
    assert measures[0] == 1
    data, sr = read_channels(layout.root / row.path)
    assert cleaned.crosstalk == measure_crosstalk(data, sr)


def per_frame_reference(audio: np.ndarray, sr: int, ct, settings: BleedSettings) -> dict:
    """speech.gate's definition, one frame at a time with SpanPower.db."""
    power = [SpanPower(audio[:, c], sr) for c in (0, 1)]
    duration = audio.shape[0] / sr
    out = {}
    for ch in (0, 1):
        leak = ct.leak_into(ch)
        if not leak.detected:
            continue
        lag = leak.lag_ms / 1000.0
        flags = []
        for t in np.arange(gate.FRAME_S / 2, duration, gate.FRAME_S):
            a, b = max(t - gate.SPAN_S / 2, 0.0), t + gate.SPAN_S / 2
            own, theirs = power[ch].db(a, b), power[leak.source].db(a - lag, b - lag)
            flags.append(theirs >= SOURCE_MIN_DBFS and theirs - own >= settings.louder_db
                         and own - (theirs + leak.level_db) <= settings.excess_db)
        out[ch] = gate._runs(flags, duration)
    return out


def test_the_gate_flags_exactly_the_frames_of_its_per_frame_definition():
    for name in ("xtalk_10db.ogg", "xtalk_16db.ogg", "xtalk_30db.ogg", "ulaw_call.wav", "hold_music.ogg"):
        audio, sr = sf.read(FIX / "realcalls" / name, dtype="float32", always_2d=True)
        ct = measure_crosstalk(audio, sr)
        for settings in (BleedSettings(), BleedSettings(excess_db=3.0, louder_db=9.0)):
            got = bleed_only_regions(audio, sr, ct, settings)
            assert got == per_frame_reference(audio, sr, ct, settings), (name, settings)
            assert any(got.values()), name
