"""One text-only conversation -> a two-channel 24 kHz call, its word alignment and its new record.

Each spoken turn is synthesized with its speaker's voice (placeholders spoken as surrogates), placed
on the timeline (timeline.place_turns) and mixed onto its speaker's channel. Word times come from the
engine, so the alignment's words are the record's own words (a placeholder is one word spanning its
spoken surrogate): exports get exact alignments and audio redaction spans stay exact.
"""

from __future__ import annotations

import bisect
import hashlib
import random
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..schema import Alignment, Audio, AudioSynthesis, VakRecord, Word
from .engine import TARGET_RATE, Engine, Utterance
from .settings import GapModel, SynthSettings
from .surrogates import Surrogates, to_text_offset
from .timeline import Placed, place_turns
from .voices import Voice, assign_voices

BACKCHANNELS = {"en": ("mm-hm", "right", "okay", "yeah"), "hi": ("haan", "achha", "ji"), "zh": ("嗯", "对", "好的")}
# a word is a run of non-space characters; a Chinese or Japanese character is a word of its own
_CJK = "\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef"  # CJK characters and punctuation, no spaces
_TOKEN = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+")


@dataclass
class Rendered:
    record: VakRecord
    stereo: np.ndarray  # int16 [frames, 2]
    alignment: Alignment
    sidecar: dict[str, Any] = field(default_factory=dict)


def is_text_only(rec: VakRecord) -> bool:
    """A conversation synth renders: no audio yet, and at least one party says something."""
    return rec.audio is None and any(
        t.is_spoken and t.speaker in ("agent", "user") and (t.text or "").strip() for t in rec.turns
    )


def role_channels(settings: SynthSettings, channel_map: dict[str, str] | None) -> tuple[dict[str, str], dict[str, int]]:
    cmap = dict(channel_map or settings.channel_map)
    return cmap, {role: int(ch) for ch, role in cmap.items()}


def token_times(text: str, utt: Utterance, spans: list) -> list[tuple[str, int, int]]:
    """(word of the record's text, start, end) in utterance samples, for every word the engine spoke.

    An engine word belongs to the record word its first character falls in (a surrogate's words to its
    placeholder); a number the engine reads as several words gives one record word spanning them all."""
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
    if not tokens:
        return []
    starts = [t[0] for t in tokens]
    bounds: dict[int, list[int]] = {}
    for w in utt.words:
        k = max(0, bisect.bisect_right(starts, to_text_offset(w.char_start, spans)) - 1)
        b = bounds.setdefault(k, [w.start, w.end])
        b[0], b[1] = min(b[0], w.start), max(b[1], w.end)
    # a word the engine ran into its predecessor ("of the" is one event): they share its time by length
    spoken = [k for k, tok in enumerate(tokens) if any(c.isalnum() for c in tok[2])]
    for k in spoken:
        if k in bounds:
            continue
        group = [k]
        prev = next((p for p in reversed(spoken[: spoken.index(k)]) if p in bounds), None)
        if prev is None:
            continue
        group = [p for p in spoken if prev <= p <= k]
        if any(p in bounds for p in group[1:]):
            continue
        s0, e0 = bounds[prev]
        total = sum(len(tokens[p][2]) for p in group)
        pos = s0
        for p in group:
            nxt = pos + (e0 - s0) * len(tokens[p][2]) // total
            bounds[p] = [pos, nxt if p != group[-1] else e0]
            pos = nxt
    fixed, last = [], 0
    for k in sorted(bounds):  # text order; a word never starts before the one it follows
        s, e = bounds[k]
        s = max(s, last)
        if e > s:
            fixed.append((tokens[k][2], s, e))
            last = s
    return fixed


def render_conversation(
    rec: VakRecord,
    settings: SynthSettings,
    gaps: GapModel,
    engine: Engine,
    audio_rel: str,
    channel_map: dict[str, str] | None = None,
) -> Rendered:
    """Render one text-only record (see the module docstring). Raises on engine errors."""
    cmap, channel_of = role_channels(settings, channel_map)
    voices: dict[str, Voice] = assign_voices(rec, settings, engine.voices(rec.locale))
    surrogates = Surrogates(rec.id, rec.locale, settings.seed)
    rng = random.Random(int.from_bytes(hashlib.sha256(f"{settings.seed}\x1f{rec.id}".encode()).digest()[:8], "big"))

    utterances: list[tuple[Utterance, list] | None] = []
    for t in rec.turns:
        if t.is_spoken and t.speaker in ("agent", "user") and (t.text or "").strip():
            spoken, spans = surrogates.speak(t.text or "")
            utterances.append((engine.speak(spoken, voices[t.speaker], t.lang or rec.language.primary), spans))
        else:
            utterances.append(None)
    durations = [len(u[0].samples) / TARGET_RATE if u is not None and len(u[0].samples) else None for u in utterances]
    placed: list[Placed] = place_turns(rec, durations, settings, gaps, rng)

    words: list[Word] = []
    pieces: list[tuple[int, int, np.ndarray]] = []  # (channel, first sample, samples)
    for i, (t, u, p) in enumerate(zip(rec.turns, utterances, placed, strict=True)):
        if u is None or durations[i] is None:
            continue
        utt, spans = u
        ch = channel_of[t.speaker]
        s0 = int(round(p.start * TARGET_RATE))
        pieces.append((ch, s0, utt.samples))
        for word, ws, we in token_times(t.text or "", utt, spans):
            words.append(
                Word(
                    word=word,
                    start=round((s0 + ws) / TARGET_RATE, 3),
                    end=round((s0 + we) / TARGET_RATE, 3),
                    speaker=t.speaker,
                    turn=i,
                    channel=ch,
                )
            )
    backchannels = _backchannels(rec, placed, durations, settings, engine, voices, channel_of, rng, pieces, words)

    end_s = max([p.end for p in placed] + [settings.lead_in_s]) + settings.tail_s
    frames = max(int(round(end_s * TARGET_RATE)), max((s0 + len(x) for _, s0, x in pieces), default=0))
    mix = np.zeros((frames, 2), dtype=np.int32)
    for ch, s0, x in pieces:
        mix[s0 : s0 + len(x), ch] += x
    stereo = np.clip(mix, -32768, 32767).astype(np.int16)

    turns = []
    for t, p, d in zip(rec.turns, placed, durations, strict=True):
        upd: dict[str, Any] = {"start": p.start, "end": p.end}
        if d is not None:
            upd["overlap"] = True if p.overlap else None
        turns.append(t.model_copy(update=upd))
    timing = "estimated" if any(u is not None and u[0].timing == "estimated" for u in utterances) else "engine"
    synthesis = AudioSynthesis(
        engine=engine.name,
        engine_version=engine.version,
        voices={r: v.id for r, v in sorted(voices.items())},
        word_timing=timing,
        settings=synth_settings_summary(settings, gaps),
        settings_hash=settings_hash(settings, gaps, engine),
    )
    audio = Audio(
        path=audio_rel,
        sample_rate=TARGET_RATE,
        channels=2,
        channel_map=cmap,
        duration_s=round(frames / TARGET_RATE, 3),
        condition="clean",
        synthesis=synthesis,
    )
    speakers = dict(rec.meta.speakers or {})
    text_speakers = {r: speakers[r] for r in ("agent", "user") if r in speakers}
    speakers.update({r: v.id for r, v in voices.items()})
    meta = rec.meta.model_copy(update={"speakers": speakers})
    record = rec.model_copy(update={"turns": turns, "audio": audio, "meta": meta})
    words.sort(key=lambda w: (w.start, w.end, w.channel or 0))
    sidecar = {
        "conversation_id": rec.id,
        "note": "surrogates are fake values spoken in place of placeholders; no value is real",
        "voices": {
            r: {"id": v.id, "accent": v.accent, "variant": v.variant, "pitch": v.pitch, "rate": v.rate}
            for r, v in sorted(voices.items())
        },
        "text_speakers": text_speakers,
        "surrogates": _surrogate_rows(rec, surrogates, words),
        "backchannels": backchannels,
    }
    return Rendered(record, stereo, Alignment(conversation_id=rec.id, words=words), sidecar)


def _surrogate_rows(rec: VakRecord, surrogates: Surrogates, words: list[Word]) -> list[dict[str, Any]]:
    rows = []
    for w in words:
        if w.turn is None:
            continue
        for ph, sur in surrogates.map.items():
            if ph in w.word:
                rows.append(
                    {
                        "placeholder": ph,
                        "type": sur.kind,
                        "value": sur.value,
                        "spoken": sur.spoken,
                        "turn": w.turn,
                        "start_s": w.start,
                        "end_s": w.end,
                        "channel": w.channel,
                    }
                )
    return rows


def _backchannels(
    rec: VakRecord,
    placed: list[Placed],
    durations: list[float | None],
    settings: SynthSettings,
    engine: Engine,
    voices: dict[str, Voice],
    channel_of: dict[str, int],
    rng: random.Random,
    pieces: list,
    words: list[Word],
) -> list[dict[str, Any]]:
    """The listener's mm-hm during a long turn: audio and alignment words only (turn None), so the record's
    turns, and the redaction log's turn indexes, stay those of the text."""
    out: list[dict[str, Any]] = []
    if settings.backchannel_probability <= 0:
        return out
    for i, (t, p, d) in enumerate(zip(rec.turns, placed, durations, strict=True)):
        if d is None or d < 2.5 or rng.random() >= settings.backchannel_probability:
            continue
        listener = "user" if t.speaker == "agent" else "agent"
        lang = t.lang or rec.language.primary
        options = BACKCHANNELS.get(lang.split("-")[0], BACKCHANNELS["en"])
        text = options[rng.randrange(len(options))]
        utt = engine.speak(text, voices[listener], lang)
        at = p.start + d * (0.4 + 0.3 * rng.random())
        nxt = next((q.start for q in placed[i + 1 :] if q.end > q.start), None)
        if nxt is not None and at + len(utt.samples) / TARGET_RATE > nxt - 0.1:
            continue
        s0 = int(round(at * TARGET_RATE))
        ch = channel_of[listener]
        pieces.append((ch, s0, utt.samples))
        if utt.words:
            s, e = min(w.start for w in utt.words), max(w.end for w in utt.words)
            words.append(
                Word(
                    word=text,
                    start=round((s0 + s) / TARGET_RATE, 3),
                    end=round((s0 + e) / TARGET_RATE, 3),
                    speaker=listener,
                    turn=None,
                    channel=ch,
                )
            )
        out.append({"during_turn": i, "speaker": listener, "text": text, "start_s": round(s0 / TARGET_RATE, 3)})
    return out


def synth_settings_summary(settings: SynthSettings, gaps: GapModel) -> dict[str, Any]:
    """The settings a record carries: what shaped its timing and voices."""
    data = settings.model_dump(mode="json", exclude={"workers", "enabled", "piper_voices"})
    data["gap_model"] = gaps.model_dump(mode="json")
    return data


def settings_hash(settings: SynthSettings, gaps: GapModel, engine: Engine) -> str:
    payload = f"{engine.name}\x1f{engine.version}\x1f{settings.fingerprint()}\x1f{gaps.model_dump_json()}"
    return hashlib.sha256(payload.encode()).hexdigest()[:16]
