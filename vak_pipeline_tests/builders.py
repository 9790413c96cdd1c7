"""Small valid VakRecords, manifests and WAV files built in tmp_path, for tests of any stage.

Records are synthetic by default (no consent or redaction evidence needed), so a test states only
what it is about: speakers, turns, audio.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vak_pipeline.schema import SCHEMA_VERSION, Audio, Language, Meta, Tool, ToolCall, ToolResult, Turn, VakRecord
from vak_pipeline.storage import JsonlWriter

DEFAULT_TURNS: list[tuple[str, float, float, str]] = [
    ("user", 0.0, 1.0, "hello I need help"),
    ("agent", 1.1, 2.0, "sure what is the problem"),
    ("user", 2.1, 3.0, "my inverter is off"),
    ("agent", 3.1, 4.0, "I will check that now"),
]


def turn(speaker: str, start: float, end: float, text: str | None = None, **kw: Any) -> Turn:
    if text is not None and "lang" not in kw:
        kw["lang"] = "en"
    return Turn(speaker=speaker, start=start, end=end, text=text, **kw)


def tool_call(start: float, call_id: str, name: str, **arguments: Any) -> Turn:
    return Turn(speaker="agent", start=start, end=start, tool_call=ToolCall(id=call_id, name=name, arguments=arguments))


def tool_result(start: float, call_id: str, content: Any) -> Turn:
    return Turn(speaker="tool", start=start, end=start, tool_result=ToolResult(id=call_id, content=content))


def make_tool(name: str, **props: str) -> Tool:
    return Tool(name=name, description=f"{name} tool",
                parameters={"type": "object", "properties": {k: {"type": t} for k, t in props.items()}})


def make_audio(conv_id: str, duration_s: float = 4.0, channels: int = 2,
               channel_map: dict[str, str] | None = None, sample_rate: int = 24000) -> Audio:
    if channel_map is None and channels == 2:
        channel_map = {"0": "agent", "1": "user"}
    return Audio(path=f"audio/{conv_id}.wav", sample_rate=sample_rate, channels=channels,
                 channel_map=channel_map, duration_s=duration_s)


def make_record(
    id: str,
    speakers: dict[str, str] | None = None,
    turns: Sequence[Turn | tuple] | None = None,
    audio: Audio | None = None,
    *,
    locale: str = "en-US",
    tools: Iterable[Tool] = (),
    system_prompt: str | None = "You are a helpful support agent.",
    split: str | None = None,
    **meta: Any,
) -> VakRecord:
    built: list[Turn] = []
    for t in (DEFAULT_TURNS if turns is None else turns):
        built.append(t if isinstance(t, Turn) else turn(*t))
    meta_kw: dict[str, Any] = {"source": "synthetic", "consent": "synthetic"}
    meta_kw.update(meta)
    return VakRecord(
        id=id, schema_version=SCHEMA_VERSION, audio=audio, locale=locale,
        language=Language(primary=locale.split("-")[0], mix=[locale.split("-")[0]]),
        system_prompt=system_prompt, tools=list(tools), turns=built,
        meta=Meta(speakers=speakers, split=split, **meta_kw),
    )


def write_manifest(path: Path, records: Iterable[VakRecord]) -> Path:
    path = Path(path)
    with JsonlWriter(path) as w:
        for r in records:
            w.write(r.dump())
    return path


def tone(freq: float, duration_s: float, sample_rate: int = 24000, amplitude: float = 0.3) -> np.ndarray:
    t = np.arange(int(round(duration_s * sample_rate))) / sample_rate
    return (amplitude * np.sin(2 * np.pi * freq * t) * 32767).astype(np.int16)


def write_wav(path: Path, channels: Sequence[np.ndarray], sample_rate: int = 24000) -> Path:
    """Write int16 channels (equal length) as a 16-bit PCM WAV."""
    import soundfile as sf

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = np.stack(channels, axis=1) if len(channels) > 1 else np.asarray(channels[0])
    sf.write(str(path), data, sample_rate, subtype="PCM_16")
    return path


def write_phone_redaction_log(root: Path, conv_id: str, start: int, end: int, mask: tuple[float, float],
                              channel: int) -> Path:
    """redactions/<conv_id>.json: turn 1's text had a phone number at [start, end), masked with a tone on
    `channel` over `mask` seconds (what the redaction stage writes for a spoken number)."""
    span = {"turn": 1, "field": "text", "type": "phone", "start": start, "end": end, "placeholder": "<PHONE_1>",
            "audio": {"start_s": mask[0], "end_s": mask[1], "method": "tone", "channel": channel}}
    (root / "redactions").mkdir(exist_ok=True)
    path = root / "redactions" / f"{conv_id}.json"
    path.write_text(json.dumps({"conversation_id": conv_id, "spans": [span]}))
    return path


def dominant_frequency(signal: np.ndarray, sample_rate: int = 24000) -> float:
    """The strongest frequency in a signal (Hz), from its magnitude spectrum."""
    x = np.asarray(signal, dtype=np.float64)
    if not np.any(x):
        return 0.0
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return float(np.fft.rfftfreq(len(x), 1 / sample_rate)[int(np.argmax(spectrum))])
