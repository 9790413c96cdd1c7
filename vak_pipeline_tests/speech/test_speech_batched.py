"""Batched decoding and the bleed gate: both channels of one call decoded together, a recording's transcript a
function of that recording and the settings only; stretches where a channel only carries the other side's leak
are not decoded; the GPU settings build the batched large-v3 float16 pipeline (checked without a GPU)."""

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from vak_pipeline.audio.crosstalk import measure_crosstalk
from vak_pipeline.speech import asr
from vak_pipeline.speech.asr import AsrSettings, Transcriber, read_channels
from vak_pipeline.speech.bleed import BleedSettings
from vak_pipeline.speech.gate import bleed_only_regions, subtract

FIX = Path(__file__).parents[1] / "fixtures" / "speech"
SAMPLE = Path(__file__).parents[2] / "data" / "raw" / "sample-calls"
BATCHED = AsrSettings(beam_size=1, batch_size=8, cpu_threads=2, device="cpu")
LEAK_DB, LAG_S = -14.0, 0.012


def dumped(segments) -> list[dict]:
    return [s.model_dump(mode="json") for s in segments]


def turns(name: str) -> list[dict]:
    return json.loads((FIX / f"{name}.script.json").read_text(encoding="utf-8"))["turns"]


def with_leak(audio: np.ndarray, sr: int) -> np.ndarray:
    """The stereo fixture with channel 1's voice leaking into channel 0, 14 dB down and 12 ms late."""
    out = audio.copy()
    lag = int(LAG_S * sr)
    out[lag:, 0] += 10 ** (LEAK_DB / 20) * audio[:-lag, 1]
    return out


def only_bleed_on_channel_0(sc: list[dict]) -> list[tuple[float, float]]:
    """Times where channel 1 talks and channel 0 does not (by the script)."""
    own = [(t["start"], t["end"]) for t in sc if t["channel"] == 0]
    return [(t["start"], t["end"]) for t in sc if t["channel"] == 1
            and not any(a < t["end"] and b > t["start"] for a, b in own)]


def overlaps(a: float, b: float, spans: list[tuple[float, float]], margin: float = 0.3) -> bool:
    return any(a < e - margin and b > s + margin for s, e in spans)


def test_subtract_cuts_regions_out_of_speech_pieces_and_drops_slivers():
    pieces = [{"start": 0, "end": 16000}, {"start": 32000, "end": 48000}]
    assert subtract(pieces, [(0.5, 2.5)], 16000) == [{"start": 0, "end": 8000}, {"start": 40000, "end": 48000}]
    assert subtract(pieces, [(0.05, 1.0)], 16000) == pieces[1:]  # 0.05 s left of the first: no word fits
    assert subtract(pieces, [], 16000) == pieces


def test_the_gate_finds_where_a_channel_is_only_the_other_sides_leak_and_nothing_else():
    audio, sr = read_channels(FIX / "stereo_two_voices.flac")
    leaky = with_leak(audio, sr)
    regions = bleed_only_regions(leaky, sr, measure_crosstalk(leaky, sr))
    sc = turns("stereo_two_voices")
    assert regions.get(1, []) == []  # nothing leaks into channel 1
    assert regions[0], "the leak of channel 1 into channel 0 was not found"
    own = [(t["start"], t["end"]) for t in sc if t["channel"] == 0]
    assert not any(overlaps(a, b, own, margin=0.15) for a, b in regions[0]), "own speech would be cut"
    covered = sum(b - a for a, b in regions[0])
    assert covered >= 0.6 * sum(b - a for a, b in only_bleed_on_channel_0(sc))
    assert bleed_only_regions(leaky, sr, measure_crosstalk(leaky, sr), BleedSettings(skip_bleed_regions=False)) == {}
    assert bleed_only_regions(audio, sr, measure_crosstalk(audio, sr)) == {}  # no leak, nothing to skip


@pytest.mark.slow
@pytest.mark.parametrize("batch_size", [1, 8])
def test_a_channel_that_is_only_bleed_in_a_region_decodes_nothing_there(batch_size):
    audio, sr = read_channels(FIX / "stereo_two_voices.flac")
    leaky = with_leak(audio, sr)
    regions = bleed_only_regions(leaky, sr, measure_crosstalk(leaky, sr))
    tr = Transcriber(AsrSettings(beam_size=1, batch_size=batch_size, cpu_threads=2, device="cpu"))
    ungated, _ = tr.transcribe_channels([leaky[:, 0], leaky[:, 1]], sr, None, [0, 1])
    gated, inputs = tr.transcribe_channels([leaky[:, 0], leaky[:, 1]], sr, [regions[0], []], [0, 1])
    words = [w for s in ungated if s.channel == 0 for w in s.words]
    assert any(overlaps(w.start, w.end, regions[0], 0.0) for w in words), "without the gate the leak is decoded"
    kept = [w for s in gated if s.channel == 0 for w in s.words]
    inside = [w.word for w in kept if any(a < (w.start + w.end) / 2 < b for a, b in regions[0])]
    assert kept and not inside, inside  # (a word's edges may reach into a cut: Whisper's edges are loose at joins)
    assert inputs[0].skipped_s > 1.0 and inputs[1].skipped_s == 0.0
    assert inputs[0].decoded_s == pytest.approx(inputs[0].speech_s - inputs[0].skipped_s, abs=0.01)
    if batch_size == 1 or tr.settings.encoder_frames == "full":
        # (at encoder_frames 'window' a batch is encoded at its longest window's bucket, the other channel's
        # included: gating channel 0 may change the length channel 1 is encoded at, so not asserted there)
        assert dumped([s for s in gated if s.channel == 1]) == dumped([s for s in ungated if s.channel == 1])


@pytest.mark.slow
@pytest.mark.parametrize("encoder_frames", ["window", "full"])
def test_batched_transcript_is_the_same_alone_after_other_recordings_and_beside_another_in_two_threads(encoder_frames):
    """At 'window' the batches, and the encoder length of each, come from this recording's windows only."""
    audio, sr = read_channels(FIX / "stereo_two_voices.flac")
    other, osr = read_channels(SAMPLE / "call_001.flac")
    settings = BATCHED.model_copy(update={"encoder_frames": encoder_frames})

    def call(tr, a, rate):
        return tr.transcribe_channels([a[:, 0], a[:, 1]], rate, None, [0, 1])[0]

    alone = call(Transcriber(settings), audio, sr)
    assert alone and {s.channel for s in alone} == {0, 1}
    assert all(s.words for s in alone), "word timestamps are kept"
    tr = Transcriber(settings)
    call(tr, other, osr)  # the shared model decoded another recording first
    assert dumped(call(tr, audio, sr)) == dumped(alone)
    results: dict[str, list] = {}
    threads = [threading.Thread(target=lambda k=k, a=a, r=r: results.__setitem__(k, call(tr, a, r)))
               for k, a, r in (("ours", audio, sr), ("other", other, osr))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert dumped(results["ours"]) == dumped(alone)


def test_batch_size_is_part_of_the_cache_key_and_batched_is_the_default():
    assert AsrSettings().batch_size > 1
    assert AsrSettings(batch_size=8).fingerprint() != AsrSettings(batch_size=16).fingerprint()


class _Info:
    language = "en"


class _FakePipeline:
    """Stands in for faster_whisper.BatchedInferencePipeline: records what the stage hands it."""

    calls: list[dict] = []

    def __init__(self, model):
        self.model = model

    def transcribe(self, audio, **kwargs):
        _FakePipeline.calls.append({"model": self.model, "samples": audio.size, **kwargs})
        return iter([]), _Info()


def test_gpu_settings_build_a_batched_large_v3_float16_pipeline_on_cuda(monkeypatch):
    made: list[dict] = []

    class FakeModel:
        def __init__(self, path, **kwargs):
            made.append({"path": path, **kwargs})
            self.model = type("CT2", (), {"is_multilingual": True})()

    import faster_whisper

    from vak_pipeline.speech import whisper_seeded

    monkeypatch.setattr(whisper_seeded, "SeededWhisperModel", FakeModel)
    monkeypatch.setattr(asr, "_cached_model_dir", lambda ref: f"/hf-cache/{ref}")
    monkeypatch.setattr(faster_whisper, "BatchedInferencePipeline", _FakePipeline)
    monkeypatch.setattr(asr, "_MODELS", {})
    _FakePipeline.calls = []
    settings = AsrSettings(model="large-v3", device="cuda", batch_size=16)
    assert settings.resolved_compute_type() == "float16"
    assert settings.engine() == "faster-whisper-large-v3"

    audio, sr = read_channels(FIX / "stereo_two_voices.flac")
    tr = Transcriber(settings)
    segments, inputs = tr.transcribe_channels([audio[:, 0], audio[:, 1]], sr, None, [0, 1])

    assert made == [{"path": "/hf-cache/large-v3", "fallback_seed": 0, "device": "cuda", "compute_type": "float16",
                     "cpu_threads": 2}]
    (call,) = _FakePipeline.calls  # one pipeline call for both channels of the recording
    assert call["model"].shared is tr.model  # seen through the encoder-length view (speech.encoder_length)
    assert call["batch_size"] == 16 and call["beam_size"] == 5 and call["word_timestamps"] is True
    assert call["language"] is None  # multilingual model, language detected
    clips = call["clip_timestamps"]
    assert len(clips) >= 2 and all(0 < c["end"] - c["start"] <= 30 for c in clips)
    assert sum(c["end"] - c["start"] for c in clips) == pytest.approx(sum(x.decoded_s for x in inputs), abs=0.01)
    assert segments == []


UPLOAD_YAML = """\
locale: en-US
source: real
consent: recorded_verbal
consent_ref: policy-1
voice_consent_ref: voice-1
license: proprietary-internal
condition: clean
channel_map: {"0": "user", "1": "agent"}
"""


@pytest.mark.slow
def test_the_stage_reports_the_seconds_skipped_and_a_recording_transcribes_the_same_alone_or_with_others(tmp_path):
    import soundfile as sf

    from vak_pipeline.audio.stage import normalize_upload
    from vak_pipeline.layout import DataLayout
    from vak_pipeline.speech.models import ConversationTranscript
    from vak_pipeline.speech.stage import speech_report_path, transcribe_upload

    audio, sr = read_channels(FIX / "stereo_two_voices.flac")
    layout = DataLayout.at(tmp_path)
    for upload, others in (("alone", []), ("with-others", ["call_001.flac"])):
        up = tmp_path / "raw" / upload
        up.mkdir(parents=True)
        sf.write(up / "leaky.flac", with_leak(audio, sr), sr, subtype="PCM_16")
        for name in others:
            sf.write(up / name, read_channels(SAMPLE / name)[0], 16000, subtype="PCM_16")
        (up / "upload.yaml").write_text(UPLOAD_YAML, encoding="utf-8")
        assert normalize_upload(layout, upload).recordings == 1 + len(others)
    settings = AsrSettings(beam_size=1, cpu_threads=2, device="cpu")
    alone = transcribe_upload(layout, "alone", settings)
    assert alone.transcribed == 1 and alone.bleed_skipped_seconds > 1.0
    assert alone.decoded_seconds == pytest.approx(alone.speech_seconds - alone.bleed_skipped_seconds, abs=0.01)
    counts = json.loads(speech_report_path(layout, "alone").read_text(encoding="utf-8"))["transcripts"]["counts"]
    assert counts["bleed_skipped_seconds"] == alone.bleed_skipped_seconds

    def leaky_segments(upload: str) -> list[dict]:
        lines = layout.transcripts(upload).read_text(encoding="utf-8").splitlines()
        (tr,) = [t for t in map(ConversationTranscript.model_validate_json, lines) if t.source_file == "leaky.flac"]
        return dumped(tr.segments)

    assert transcribe_upload(layout, "with-others", settings).transcribed == 2
    assert leaky_segments("with-others") == leaky_segments("alone")


def test_timestamp_tokens_are_a_setting_of_batched_decoding_and_part_of_the_cache_key(monkeypatch):
    """faster-whisper's batched pipeline decodes without timestamp tokens; `timestamp_tokens` (the default) asks for
    them, as the sequential path does, and the choice is part of the transcript's cache key."""
    import faster_whisper

    monkeypatch.setattr(faster_whisper, "BatchedInferencePipeline", _FakePipeline)
    audio, sr = read_channels(FIX / "stereo_two_voices.flac")
    for settings, without in ((BATCHED.model_copy(update={"timestamp_tokens": False}), True), (BATCHED, False)):
        _FakePipeline.calls = []
        Transcriber(settings).transcribe_channels([audio[:, 0], audio[:, 1]], sr, None, [0, 1])
        (call,) = _FakePipeline.calls
        assert call["without_timestamps"] is without and call["word_timestamps"] is True
    assert AsrSettings().timestamp_tokens is True
    assert AsrSettings().fingerprint() != AsrSettings(timestamp_tokens=False).fingerprint()


def samples(*spans: tuple[float, float]) -> list[dict]:
    """VAD pieces (samples at 16 kHz) of (start, end) seconds."""
    return [{"start": int(a * 16000), "end": int(b * 16000)} for a, b in spans]


def test_the_remainder_of_a_window_is_its_vad_speech_after_the_last_word_when_enough_is_left():
    window = samples((0, 4), (6, 10))
    assert asr.remainder(window, 3.0, 1.5) == samples((3, 4), (6, 10))  # 5 s of speech the decoder never reached
    assert asr.remainder(window, 7.0, 1.5) == samples((7, 10))  # the piece the last word ended in, from its end
    assert asr.remainder(window, 8.6, 1.5) == []  # 1.4 s left: the decoder went (nearly) to the end
    assert asr.remainder(window, 4.5, 1.5) == samples((6, 10))  # ended in a gap: the next piece whole
    assert asr.remainder(window, None, 1.5) == []  # no word at all: the same audio would decode to the same nothing
    assert asr.remainder(window, 9.9, 0.0) == samples((9.9, 10))


def test_windows_group_vad_pieces_as_faster_whisper_does_at_most_30_s_of_speech_each():
    from faster_whisper.vad import collect_chunks

    pieces = samples((0, 10), (12, 25), (26, 34), (40, 70), (71, 72))
    windows = asr.join_pieces(pieces)
    assert windows == [samples((0, 10), (12, 25)), samples((26, 34)), samples((40, 70)), samples((71, 72))]
    x = np.random.default_rng(0).standard_normal(72 * 16000).astype(np.float32)
    chunks, _meta = collect_chunks(x, pieces, max_duration=30)
    assert [c.size for c in chunks] == [sum(p["end"] - p["start"] for p in w) for w in windows]


def test_last_word_end_is_the_latest_word_end_of_a_window_and_none_without_words():
    from types import SimpleNamespace as NS

    segs = [NS(words=[NS(word=" a", start=0.1, end=0.5), NS(word=" b", start=0.6, end=1.2)]),
            NS(words=[NS(word=" ", start=3.0, end=4.0)]), NS(words=None)]
    assert asr.last_word_end(segs) == 1.2
    assert asr.last_word_end([NS(words=[])]) is None


class _StopsEarly:
    """Stands in for BatchedInferencePipeline: decodes only the first second of each window it is handed (two words,
    time stamped in the joined audio), as tiny.en does when it ends a window early."""

    calls: list[list[dict]] = []

    def __init__(self, model):
        pass

    def transcribe(self, audio, clip_timestamps, **kwargs):
        from types import SimpleNamespace as NS

        _StopsEarly.calls.append(clip_timestamps)
        out = []
        for c in clip_timestamps:
            n = sum(len(x) for x in _StopsEarly.calls)
            words = [NS(word=f" w{n}a", start=c["start"] + 0.1, end=c["start"] + 0.4, probability=0.9),
                     NS(word=f" w{n}b", start=c["start"] + 0.5, end=c["start"] + 0.9, probability=0.9)]
            out.append(NS(start=words[0].start, end=words[-1].end, text=f"w{n}a w{n}b", words=words, avg_logprob=-0.1,
                          no_speech_prob=0.0, compression_ratio=1.0, temperature=0.0))
        return iter(out), _Info()


def test_a_window_whose_decoder_stops_early_gets_what_is_left_decoded_again_in_rounds(monkeypatch):
    import faster_whisper

    monkeypatch.setattr(faster_whisper, "BatchedInferencePipeline", _StopsEarly)
    monkeypatch.setattr(asr, "load_model", lambda settings: type("M", (), {"model": type("C", (), {
        "is_multilingual": False})()})())
    x = np.random.default_rng(0).standard_normal(10 * 16000).astype(np.float32) * 0.1  # 10 s of "speech", one window
    settings = AsrSettings(batch_size=8, vad_filter=False, device="cpu", tail_rounds=2, tail_min_s=1.5)

    _StopsEarly.calls = []
    segments, (inp,) = Transcriber(settings).transcribe_channels([x], 16000, None, [0])
    assert len(_StopsEarly.calls) == 3  # the first pass and two rounds over what was left
    assert [c[0]["end"] - c[0]["start"] for c in _StopsEarly.calls] == pytest.approx([10.0, 9.1, 8.2])
    words = [w for s in segments for w in s.words]
    assert [w.word for w in words] == ["w1a", "w1b", "w2a", "w2b", "w3a", "w3b"]
    assert [(w.start, w.end) for w in words] == [(0.1, 0.4), (0.5, 0.9), (1.0, 1.3), (1.4, 1.8), (1.9, 2.2), (2.3, 2.7)]
    assert inp.decoded_s == 10.0 and inp.redecoded_s == pytest.approx(9.1 + 8.2)

    _StopsEarly.calls = []
    once, _ = Transcriber(settings.model_copy(update={"tail_rounds": 0})).transcribe_channels([x], 16000, None, [0])
    assert len(_StopsEarly.calls) == 1 and [w.word for s in once for w in s.words] == ["w1a", "w1b"]
    assert settings.fingerprint() != settings.model_copy(update={"tail_rounds": 0}).fingerprint()
    assert settings.fingerprint() != settings.model_copy(update={"tail_min_s": 3.0}).fingerprint()


def test_packed_tails_join_the_remainders_of_one_channel_into_one_window_and_keep_words_in_time_order(monkeypatch):
    """Two windows (10 s and 21 s of speech, 31 s together) both stop early: their remainders (29.2 s) fit one window,
    so each tail round costs one encoder pass instead of two; words come out in time order, none twice."""
    import faster_whisper

    monkeypatch.setattr(faster_whisper, "BatchedInferencePipeline", _StopsEarly)
    monkeypatch.setattr(asr, "load_model", lambda settings: type("M", (), {"model": type("C", (), {
        "is_multilingual": False})()})())
    x = np.random.default_rng(0).standard_normal(51 * 16000).astype(np.float32) * 0.1
    cut = [[(10.0, 30.0)]]  # speech 0-10 s and 30-51 s: two windows
    settings = AsrSettings(batch_size=8, vad_filter=False, device="cpu", tail_rounds=2, tail_min_s=1.5)

    _StopsEarly.calls = []
    apart, _ = Transcriber(settings).transcribe_channels([x], 16000, cut, [0])
    assert [len(c) for c in _StopsEarly.calls] == [2, 2, 2]  # every remainder a window of its own

    _StopsEarly.calls = []
    packed, (inp,) = Transcriber(settings.model_copy(update={"tail_pack": True})).transcribe_channels(
        [x], 16000, cut, [0])
    assert [len(c) for c in _StopsEarly.calls] == [2, 1, 1]
    assert _StopsEarly.calls[1][0]["end"] - _StopsEarly.calls[1][0]["start"] == pytest.approx(9.1 + 20.1)
    starts = [w.start for s in packed for w in s.words]
    assert starts == sorted(starts) and len(set(starts)) == len(starts) == 8
    assert {s.start for s in apart} >= {0.1, 30.1} <= {s.start for s in packed}  # the first pass is the same
    assert inp.redecoded_s == pytest.approx(29.2 + 28.3)
    assert settings.fingerprint() != settings.model_copy(update={"tail_pack": True}).fingerprint()


@pytest.mark.slow
def test_tiny_en_stopping_early_in_a_window_of_xtalk_16db_loses_no_line():
    """Decoded once, the agent's last window of the cross-talk fixture stops after "... and well." and its last line
    ("Friday works too. You will get a text message tomorrow.") is lost; decoded again from the last word on, it is
    there, after every word of the first pass, and nothing of the first pass changes."""
    audio, sr = read_channels(FIX.parent / "realcalls" / "xtalk_16db.ogg")
    gate = bleed_only_regions(audio, sr, measure_crosstalk(audio, sr))

    def agent(settings):
        segs, inputs = Transcriber(settings).transcribe_channels([audio[:, 0], audio[:, 1]], sr,
                                                                 [gate.get(0, []), gate.get(1, [])], [0, 1])
        return [s for s in segs if s.channel == 0], inputs[0]

    once, _ = agent(BATCHED.model_copy(update={"tail_rounds": 0}))
    again, inp = agent(BATCHED)
    text = " ".join(s.text for s in again)
    assert "text message tomorrow" not in " ".join(s.text for s in once)
    assert "text message tomorrow" in text and inp.redecoded_s > 1.5
    assert dumped(again[:len(once)]) == dumped(once)
    starts = [w.start for s in again for w in s.words]
    assert starts == sorted(starts)


class _SaysThreeWords:
    """Stands in for BatchedInferencePipeline: one segment of three words per window, at fixed joined-audio times
    (0.5-1.0, 2.5-3.0 and 4.2-4.6 s after the window's start)."""

    calls: list[list[dict]] = []

    def __init__(self, model):
        pass

    def transcribe(self, audio, clip_timestamps, **kwargs):
        from faster_whisper.transcribe import Segment, Word

        _SaysThreeWords.calls.append(clip_timestamps)
        out = []
        for c in clip_timestamps:
            at = c["start"]
            words = [Word(start=at + a, end=at + b, word=f" {name}", probability=0.9)
                     for name, a, b in (("one", 0.5, 1.0), ("two", 2.5, 3.0), ("three", 4.2, 4.6))]
            out.append(Segment(id=len(out), seek=0, start=words[0].start, end=words[-1].end, text=" one two three",
                               tokens=[], avg_logprob=-0.1, compression_ratio=1.0, no_speech_prob=0.0, words=words,
                               temperature=0.0))
        return iter(out), _Info()


def _fake_model(monkeypatch, pipeline):
    import faster_whisper

    monkeypatch.setattr(faster_whisper, "BatchedInferencePipeline", pipeline)
    monkeypatch.setattr(asr, "load_model", lambda settings: type("M", (), {"model": type("C", (), {
        "is_multilingual": False})()})())


def test_a_short_call_is_one_window_of_both_channels_in_time_order_and_every_word_goes_back_to_its_channel(monkeypatch):
    """Channel 0 speaks at 1-3 s and 7-8 s, channel 1 at 4-6 s (5 s together): with pack_channels one window holds
    the three pieces in that order, and each word returns to the channel and time of the piece it falls in; the
    one Whisper segment over all three is split where the channel changes."""
    _fake_model(monkeypatch, _SaysThreeWords)
    x = np.random.default_rng(0).standard_normal(10 * 16000).astype(np.float32) * 0.1
    skip = [[(0.0, 1.0), (3.0, 7.0), (8.0, 10.0)], [(0.0, 4.0), (6.0, 10.0)]]
    settings = AsrSettings(batch_size=8, vad_filter=False, device="cpu", tail_rounds=2, tail_min_s=1.5,
                           pack_channels=True)
    _SaysThreeWords.calls = []
    segments, inputs = Transcriber(settings).transcribe_channels([x, x], 16000, skip, [0, 1])
    assert _SaysThreeWords.calls == [[{"start": 0.0, "end": 5.0}]]  # one window, one encoder pass, no tail left
    got = [(s.channel, s.text, [(w.word, w.start, w.end) for w in s.words]) for s in segments]
    assert got == [(0, "one", [("one", 1.5, 2.0)]), (0, "three", [("three", 7.2, 7.6)]),
                   (1, "two", [("two", 4.5, 5.0)])]
    assert [(i.decoded_s, i.redecoded_s) for i in inputs] == [(3.0, 0.0), (2.0, 0.0)]

    _SaysThreeWords.calls = []
    apart, _ = Transcriber(settings.model_copy(update={"pack_channels": False})).transcribe_channels(
        [x, x], 16000, skip, [0, 1])
    assert [len(c) for c in _SaysThreeWords.calls] == [2]  # a window per channel
    assert settings.fingerprint() != settings.model_copy(update={"pack_channels": False}).fingerprint()
    assert AsrSettings().pack_channels is False  # measured: not faster at the same WER on the bench's calls


def test_a_call_whose_channels_do_not_fit_one_window_is_decoded_per_channel_even_with_pack_channels(monkeypatch):
    _fake_model(monkeypatch, _SaysThreeWords)
    x = np.random.default_rng(0).standard_normal(20 * 16000).astype(np.float32) * 0.1  # 40 s of speech together
    settings = AsrSettings(batch_size=8, vad_filter=False, device="cpu", tail_rounds=0, pack_channels=True)
    _SaysThreeWords.calls = []
    segments, _ = Transcriber(settings).transcribe_channels([x, x], 16000, None, [0, 1])
    assert [len(c) for c in _SaysThreeWords.calls] == [2]
    assert [(s.channel, s.text) for s in segments] == [(0, "one two three"), (1, "one two three")]


def test_the_remainder_of_a_window_of_two_channels_starts_where_the_last_word_ended_and_takes_every_later_piece():
    window, owners = samples((1, 3), (4, 6), (7, 8)), [0, 1, 0]
    assert asr.remainder(window, 2.0, 0.5, owners, 0) == samples((2, 3), (4, 6), (7, 8))
    assert asr.remainder(window, 4.5, 0.5, owners, 1) == samples((4.5, 6), (7, 8))
    assert asr.remainder(window, 7.9, 0.5, owners, 0) == []  # 0.1 s left
    assert asr.remainder(window, 5.0, 0.5, owners, 0) == samples((7, 8))  # channel 0's time: its next piece
