"""A bad upload for the steward-report tests: broken JSON lines, an unmapped stereo call, a corrupt file.

Built next to a copy of the sample uploads, so the real pipeline runs on good and bad data together.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

SAMPLE_RAW = Path(__file__).resolve().parent.parent / "data" / "raw"
BAD_UPLOAD = "bad-upload"
MONO_FILE = "unmapped_stereo_call.wav"  # stereo with no channel map: dropped at transcripts
CORRUPT_FILE = "corrupt.flac"
MESSAGES_FILE = "broken.messages.jsonl"
BROKEN_LINES = (2, 4)  # lines of MESSAGES_FILE that are not JSON
VAKFORGE_FILE = "imported.vakforge.jsonl"
REJECTED_LINES = {2: "turns", 3: "tools"}  # lines of VAKFORGE_FILE that validation rejects, by rule family
UNREDACTABLE_LINE = 4  # a real record of VAKFORGE_FILE naming no registered locale: the redaction stage drops it

DESCRIPTOR = """locale: en-GB
source: real
consent: recorded_verbal
consent_ref: policy-v3-2026
voice_consent_ref: voice-consent-v1-2026
license: proprietary-internal
condition: phone
domain: retail_support
speakers: {"agent": "bad-agent"}
"""


_WHAT = {1: ("parcel", "Monday"), 3: ("new phone", "last Friday"), 5: ("replacement kettle", "the weekend")}


def _chat(i: int) -> str:
    """Three different chats (not one delivered three times: the duplicate check would keep only the first)."""
    what, when = _WHAT[i]
    return json.dumps(
        {
            "id": f"bad-chat-{i}",
            "messages": [
                {"role": "user", "content": f"Hello, my {what} has not arrived yet and it was due {when}."},
                {"role": "assistant", "content": f"I am sorry to hear that. Let me check where your {what} is."},
                {"role": "user", "content": f"Thank you, I ordered the {what} weeks ago and I will wait."},
                {"role": "assistant", "content": f"Your {what} is on its way and should arrive in {i} days."},
            ],
        }
    )


def make_bad_upload(raw: Path) -> Path:
    """raw/bad-upload/: one stereo call without a channel map (channel_map_missing), one corrupt FLAC, a messages
    file with broken lines."""
    import numpy as np
    import soundfile as sf

    up = raw / BAD_UPLOAD
    up.mkdir(parents=True, exist_ok=True)
    (up / "upload.yaml").write_text(DESCRIPTOR, encoding="utf-8")
    sr = 16000
    t = np.arange(int(3.0 * sr)) / sr
    tone = 0.2 * np.sin(2 * np.pi * 200 * t)
    sf.write(up / MONO_FILE, np.stack([tone, tone], axis=1), sr, subtype="PCM_16")
    (up / CORRUPT_FILE).write_bytes(b"fLaC" + b"\x00garbage, not a FLAC stream" * 20)
    _write_vakforge(up / VAKFORGE_FILE)
    lines = [_chat(1), '{"id": "bad-chat-2", "messages": [', _chat(3), "not json at all", _chat(5)]
    (up / MESSAGES_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return up


def _write_vakforge(path: Path) -> None:
    """Canonical records: one valid, one with turns out of order, one calling an undeclared tool, one that
    names a locale no pack covers (redaction cannot run)."""
    from vak_pipeline_tests.builders import make_record, make_tool, tool_call, tool_result, turn, write_manifest

    ok = make_record("bad-vf-ok", {"user": "vf-u1", "agent": "vf-a1"}, locale="en-GB")
    unsorted = make_record(
        "bad-vf-unsorted",
        {"user": "vf-u2", "agent": "vf-a1"},
        locale="en-GB",
        turns=[turn("user", 5.0, 6.0, "second words first"), turn("agent", 0.0, 1.0, "first")],
    )
    tools = make_record(
        "bad-vf-tool",
        {"user": "vf-u3", "agent": "vf-a1"},
        locale="en-GB",
        tools=[make_tool("check_status", customer_id="string")],
        turns=[
            turn("user", 0.0, 1.0, "what is the status"),
            tool_call(1.2, "c1", "cancel_order"),
            tool_result(1.3, "c1", {"ok": True}),
            turn("agent", 1.5, 2.5, "it is cancelled"),
        ],
    )
    unknown = make_record(
        "bad-vf-locale",
        {"user": "vf-u4", "agent": "vf-a1"},
        locale="xx-XX",
        source="real",
        consent="written",
        consent_ref="c-1",
        license="proprietary-internal",
    )
    write_manifest(path, [ok, unsorted, tools, unknown])


def make_dataset(root: Path) -> Path:
    """A temp data dir: a copy of the sample uploads plus the bad upload."""
    shutil.copytree(SAMPLE_RAW, root / "raw")
    make_bad_upload(root / "raw")
    return root
