"""cascaded/stt through NeMo's ASR manifest reader, replicated (NeMo does not install offline) from
NVIDIA/NeMo nemo/collections/common/parts/preprocessing/manifest.py @ 01774fca07d2136ac5da5ae390ddfbc5916515e7:
`item_iter` + `__parse_item`: one JSON object a line; `audio_filepath` (or `audio_filename`) required, a
relative path with a folder is joined to the manifest's folder; `duration` required; `text`; `lang`.
`stt/manifests.txt` lists the manifests (NeMo's manifest_filepath takes them comma-separated)."""

from __future__ import annotations

import json
from pathlib import Path

import soundfile as sf

from vak_pipeline.recipes.cascaded import export_cascaded
from vak_pipeline.splits import split_manifest
from vak_pipeline_tests.builders import make_audio, make_record, tone, turn, write_manifest, write_wav


def nemo_items(manifest: Path):
    """Replica of item_iter with the default __parse_item."""
    for line in manifest.read_text().splitlines():
        item = json.loads(line)
        audio = item.pop("audio_filename") if "audio_filename" in item else item.pop("audio_filepath")
        assert "duration" in item, "without proper duration key"
        audio = Path(audio)
        if not audio.is_absolute() and audio.parent != Path("."):
            audio = manifest.parent / audio
        yield {
            "audio_file": str(audio),
            "duration": item["duration"],
            "text": item.get("text", ""),
            "lang": item.get("lang"),
        }


def test_every_listed_manifest_reads_with_nemo_and_names_real_clips(tmp_path):
    records = []
    for n in range(3):
        write_wav(tmp_path / "audio" / f"c{n}.wav", [tone(300, 3.0), tone(500, 3.0)])
        turns = [
            turn("user", 0.0, 1.0, "hello there"),
            turn("agent", 1.1, 2.0, "how can I help"),
            turn("user", 2.1, 2.9, "my inverter"),
        ]
        records.append(make_record(f"c{n}", {"agent": f"a{n}", "user": f"u{n}"}, turns, audio=make_audio(f"c{n}", 3.0)))
    write_manifest(tmp_path / "vakforge.jsonl", records + [make_record(f"t{n}", {"user": f"t{n}"}) for n in range(6)])
    split_manifest(tmp_path / "vakforge.jsonl", tmp_path / "splits.json")
    stt = export_cascaded(tmp_path).out_dir / "stt"
    listed = (stt / "manifests.txt").read_text().split()
    assert listed == ["train.jsonl", "validation.jsonl", "test.jsonl"]  # every split got a call
    for name in listed:
        items = list(nemo_items(stt / name))
        assert len(items) == 3
        for item in items:
            info = sf.info(item["audio_file"])
            assert info.samplerate == 24000 and abs(info.duration - item["duration"]) < 1e-3
            assert item["text"] and item["lang"] == "en"
