"""Audio side of redaction: where a redacted text span was said, masking it, and rewriting word timings.

The normalized recording (work/<upload>/audio/<conv>.wav) is never published as it is: the redaction
stage writes the masked copy to audio/<conv>.wav. A text span maps to the words (the upload's word
alignments) whose characters it covers; without word
timings it falls back to the turn's start/end, proportional by characters (marked timing="proportional").
The span is replaced on the speaker's channel by a 1 kHz tone at -20 dBFS or by silence, padded.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from ..schema import Alignment, AudioMask, Turn, Word
from ..storage import atomic_open

_EDGE_PUNCT = re.compile(r"^[^\w]+|[^\w]+$")
_TOUCH_S = 0.1  # two words closer than this were said without a pause: their border is a guess


@dataclass(frozen=True)
class AudioSettings:
    method: str = "tone"  # "tone" | "silence"
    padding_s: float = 0.15
    tone_hz: float = 1000.0
    tone_dbfs: float = -20.0


def word_char_spans(text: str, words: list[Word]) -> list[tuple[int, int] | None]:
    """Character range of each word in `text`, found left to right (None for a word the text lacks)."""
    low = text.lower()
    pos = 0
    out: list[tuple[int, int] | None] = []
    for w in words:
        token = _EDGE_PUNCT.sub("", w.word.strip()).lower()
        if not token:
            out.append(None)
            continue
        i = low.find(token, pos)
        if i < 0:
            out.append(None)
            continue
        out.append((i, i + len(token)))
        pos = i + len(token)
    return out


def locate_span(turn: Turn, text: str, start: int, end: int,
                words: list[Word] | None, reach_s: float = 0.0) -> tuple[float, float, str]:
    """(start_s, end_s, timing) of text[start:end] in the recording; timing is "words" or "proportional".

    Whisper's word times are least sure at the border of two words said without a pause: a stretched
    "is" (0.6 s) before a number often holds the number's first digit, which stayed audible behind a
    0.15 s padding. So the span reaches into a word that touches it by up to half that word, at most
    `reach_s`; padding (make_mask) comes on top."""
    if words:
        spans = word_char_spans(text, words)
        idx = [i for i, sp in enumerate(spans) if sp is not None and sp[0] < end and start < sp[1]]
        if idx:
            lo = min(words[i].start for i in idx)
            hi = max(words[i].end for i in idx)
            prev = next((words[i] for i in range(idx[0] - 1, -1, -1) if spans[i] is not None), None)
            nxt = next((words[i] for i in range(idx[-1] + 1, len(words)) if spans[i] is not None), None)
            if prev is not None and lo - prev.end < _TOUCH_S:
                lo = min(lo, max(prev.start + (prev.end - prev.start) / 2, lo - reach_s))
            if nxt is not None and nxt.start - hi < _TOUCH_S:
                hi = max(hi, min(nxt.end - (nxt.end - nxt.start) / 2, hi + reach_s))
            return lo, hi, "words"
    n = max(len(text), 1)
    dur = max(turn.end - turn.start, 0.0)
    return turn.start + dur * start / n, turn.start + dur * end / n, "proportional"


def make_mask(start_s: float, end_s: float, channel: int | None, timing: str, settings: AudioSettings,
              duration_s: float | None) -> AudioMask:
    lo = max(0.0, start_s - settings.padding_s)
    hi = end_s + settings.padding_s
    if duration_s is not None:
        hi = min(hi, duration_s)
    return AudioMask(start_s=round(lo, 4), end_s=round(max(hi, lo), 4), method=settings.method,  # type: ignore[arg-type]
                     channel=channel, timing=timing)


def write_masked(src: Path, dst: Path, masks: list[AudioMask], settings: AudioSettings,
                 block_frames: int = 1 << 16) -> int:
    """Write `src` to `dst` (atomically) with each masked interval replaced on its channel (all channels
    when channel is None); streamed block by block, so memory does not grow with the recording.
    Returns the number of samples changed, summed over channels."""
    import numpy as np
    import soundfile as sf

    info = sf.info(str(src))
    sr = info.samplerate
    amp = 10 ** (settings.tone_dbfs / 20.0) * 32767.0
    spans = []
    for m in masks:
        a = max(0, int(math.floor(m.start_s * sr)))
        b = min(info.frames, int(math.ceil(m.end_s * sr)))
        if b > a:
            spans.append((a, b, m.channel, m.method))
    changed = 0
    with sf.SoundFile(str(src)) as fin, atomic_open(Path(dst), "wb", encoding=None) as fh:
        with sf.SoundFile(fh, "w", samplerate=sr, channels=info.channels, subtype=info.subtype,
                          format=info.format) as fout:
            pos = 0
            for block in fin.blocks(blocksize=block_frames, dtype="int16", always_2d=True):
                n = len(block)
                for a, b, ch, method in spans:
                    lo, hi = max(a, pos), min(b, pos + n)
                    if hi <= lo:
                        continue
                    if method == "tone":
                        t = np.arange(lo, hi, dtype=np.float64) / sr
                        fill = np.round(amp * np.sin(2 * np.pi * settings.tone_hz * t)).astype(np.int16)
                    else:
                        fill = np.zeros(hi - lo, dtype=np.int16)
                    for c in (range(info.channels) if ch is None else [ch]):
                        if 0 <= c < info.channels:
                            block[lo - pos:hi - pos, c] = fill
                            changed += hi - lo
                fout.write(block)
                pos += n
    return changed


def publish_copy(src: Path, dst: Path) -> None:
    """`dst` becomes a copy of `src` (a hard link when possible: neither file is ever edited in place).

    A vakforge import's audio comes from raw/: a link would give the release file the raw file's mode (one
    inode), so it is linked only when that mode is already the release's (umask) mode, else copied; the raw
    file's mode is never changed."""
    import os
    import shutil

    from ..storage import give_umask_mode, has_umask_mode

    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.link.tmp")
    tmp.unlink(missing_ok=True)
    try:
        if not has_umask_mode(src):
            raise OSError("modes differ: copy")
        os.link(src, tmp)
    except OSError:
        shutil.copyfile(src, tmp)
        give_umask_mode(tmp)
    os.replace(tmp, dst)


def redact_alignment(alignment: Alignment, texts: dict[int, str],
                     spans: dict[int, list[tuple[int, int, str]]]) -> Alignment:
    """Words covered by a redacted span (original-text ranges per turn) become one placeholder word."""
    by_turn: dict[int, list[int]] = {}
    for i, w in enumerate(alignment.words):
        if w.turn is not None:
            by_turn.setdefault(w.turn, []).append(i)
    replace: dict[int, Word | None] = {}
    for turn, idxs in by_turn.items():
        if turn not in spans or turn not in texts:
            continue
        words = [alignment.words[i] for i in idxs]
        cspans = word_char_spans(texts[turn], words)
        for s, e, placeholder in spans[turn]:
            hit = [i for i, sp in zip(idxs, cspans, strict=True) if sp is not None and sp[0] < e and s < sp[1]]
            if not hit:
                continue
            first = alignment.words[hit[0]]
            last = alignment.words[hit[-1]]
            replace[hit[0]] = first.model_copy(update={"word": placeholder, "end": max(first.end, last.end)})
            for i in hit[1:]:
                replace[i] = None
    words = [replace.get(i, w) for i, w in enumerate(alignment.words) if replace.get(i, w) is not None]
    return Alignment(conversation_id=alignment.conversation_id, words=words)  # type: ignore[arg-type]
