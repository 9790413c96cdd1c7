"""The redaction stage of an upload and its Dagster asset: logs written, audio masked in the normalized copy,
synthetic rows untouched, skip_redaction marked loudly, unchanged records not redone."""

from __future__ import annotations

import json
import logging

import numpy as np
import soundfile as sf

from vak_pipeline.layout import DataLayout
from vak_pipeline.redaction.stage import RedactionSettings, redact_upload
from vak_pipeline.schema import RedactionLog, VakRecord

UPLOAD = "u1"
SR = 24000


def _rec(cid: str, source: str, text: str, audio: bool) -> dict:
    rec = {"id": cid, "schema_version": "0.1", "locale": "en-IN", "language": {"primary": "en"},
           "turns": [{"speaker": "user", "start": 0.1, "end": 1.9, "text": text, "lang": "en"}],
           "meta": {"source": source, "consent": "synthetic" if source == "synthetic" else "recorded_verbal",
                    "consent_ref": None if source == "synthetic" else "p1"}}
    if audio:
        rec["audio"] = {"path": f"audio/{cid}.wav", "sample_rate": SR, "channels": 2,
                        "channel_map": {"0": "user", "1": "agent"}, "duration_s": 2.0}
    return {k: v for k, v in rec.items() if v is not None}


def _setup(tmp_path) -> DataLayout:
    layout = DataLayout.at(tmp_path / "data")
    up = layout.upload_dir(UPLOAD)
    up.mkdir(parents=True)
    (up / "upload.yaml").write_text("locale: en-IN\nconsent: recorded_verbal\nconsent_ref: p1\n"
                                    "names: [Priya Sharma]\n", encoding="utf-8")
    (up / "call.wav").write_bytes(b"raw bytes never touched")
    layout.audio_dir.mkdir(parents=True)
    t = np.arange(2 * SR) / SR
    sf.write(layout.audio_dir / "c_real.wav", np.stack([0.3 * np.sin(2 * np.pi * 300 * t)] * 2, axis=1), SR,
             subtype="PCM_16")
    rows = [_rec("c_real", "real", "Priya here, my number is 98765 43210", True),
            _rec("c_syn", "synthetic", "my number is 98765 43210", False),
            _rec("c_text", "real", "email me at asha.k@example.com", False)]
    layout.conversations(UPLOAD).parent.mkdir(parents=True, exist_ok=True)
    layout.conversations(UPLOAD).write_text("".join(json.dumps(r) + "\n" for r in rows) + "{broken\n",
                                            encoding="utf-8")
    return layout


def _out(layout: DataLayout) -> dict[str, dict]:
    lines = layout.redacted(UPLOAD).read_text(encoding="utf-8").splitlines()
    return {json.loads(x)["id"]: json.loads(x) for x in lines}


def test_stage_redacts_real_rows_logs_them_and_masks_the_normalized_audio(tmp_path):
    layout = _setup(tmp_path)
    raw_before = (layout.upload_dir(UPLOAD) / "call.wav").read_bytes()
    audio_before = sf.read(layout.audio_dir / "c_real.wav", always_2d=True)[0]
    res = redact_upload(layout, UPLOAD, RedactionSettings())
    assert (res.records, res.redacted, res.synthetic, res.audio_masked, res.failed) == (4, 2, 1, 1, 1)
    assert [i.code for i in res.issues] == ["redaction_record_invalid"] and res.issues[0].line == 4
    out = _out(layout)
    real = VakRecord.model_validate(out["c_real"])
    assert real.turns[0].text == "<PERSON_1> here, my number is <PHONE_1>"  # descriptor name caught
    assert real.meta.pii_redacted is True and real.meta.redaction_log == "redactions/c_real.json"
    files = layout.release_files(UPLOAD)  # kept privately: a release publishes them only with the record
    assert not (layout.root / "redactions").exists()
    log = RedactionLog.model_validate_json((files / "redactions" / "c_real.json").read_bytes())
    assert [(s.type, s.placeholder) for s in log.spans] == [("person_name", "<PERSON_1>"), ("phone", "<PHONE_1>")]
    assert out["c_syn"]["turns"][0]["text"] == "my number is 98765 43210"  # synthetic rows pass through
    assert out["c_syn"]["meta"].get("pii_redacted") in (None, False)
    assert out["c_text"]["meta"]["pii_redacted"] is True
    audio_after = sf.read(files / "audio" / "c_real.wav", always_2d=True)[0]
    assert not np.array_equal(audio_after[:, 0], audio_before[:, 0])
    np.testing.assert_array_equal(audio_after[:, 1], audio_before[:, 1])
    assert (layout.upload_dir(UPLOAD) / "call.wav").read_bytes() == raw_before
    assert res.counts_by_type == {"person_name": 1, "phone": 1, "email": 1}


def test_unchanged_records_are_not_redone(tmp_path):
    layout = _setup(tmp_path)
    redact_upload(layout, UPLOAD)
    first = layout.redacted(UPLOAD).read_bytes()
    masked = layout.release_files(UPLOAD) / "audio" / "c_real.wav"
    wav_mtime = masked.stat().st_mtime_ns
    res = redact_upload(layout, UPLOAD)
    assert (res.unchanged, res.redacted) == (2, 0)
    assert layout.redacted(UPLOAD).read_bytes() == first
    assert masked.stat().st_mtime_ns == wav_mtime  # not masked twice
    res = redact_upload(layout, UPLOAD, RedactionSettings(audio_method="silence"))  # settings changed: redo
    assert res.redacted == 2


def test_skip_redaction_marks_rows_and_warns_with_counts_only(tmp_path, caplog):
    layout = _setup(tmp_path)
    with caplog.at_level(logging.WARNING, logger="vak_pipeline.redaction.stage"):
        res = redact_upload(layout, UPLOAD, RedactionSettings(skip_redaction=True))
    assert res.skipped_redaction == 2
    out = _out(layout)
    for cid in ("c_real", "c_text"):
        assert out[cid]["meta"]["skip_redaction"] is True and out[cid]["meta"]["pii_redacted"] is False
    warning = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warning and "2 real/public record(s)" in warning[0]
    assert "98765" not in warning[0] and "asha" not in warning[0]


def test_redacted_manifest_asset_reports_counts_by_type(tmp_path):
    import dagster as dg

    from vak_pipeline.defs.privacy import redacted_manifest
    from vak_pipeline.defs.resources import DataResource

    layout = _setup(tmp_path)
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("uploads", [UPLOAD])
    result = dg.materialize([redacted_manifest], partition_key=UPLOAD, instance=instance,
                            resources={"data": DataResource(root=str(layout.root))})
    assert result.success
    meta = result.asset_materializations_for_node("redacted_manifest")[0].metadata
    assert meta["records"].value == 4 and meta["skipped"].value == 0 and meta["failed"].value == 1
    assert meta["redactions_by_type"].value == {"email": 1, "person_name": 1, "phone": 1}


def test_a_synthetic_record_s_speaker_ids_and_metadata_are_cleaned_like_the_others(tmp_path):
    layout = _setup(tmp_path)
    row = _rec("c_syn2", "synthetic", "call me on 98765 43210", False)
    row["meta"].update({"speakers": {"user": "devika.r@example.com", "agent": "agent-7"},
                        "sft_metadata": {"contact": "+91 98765 43210", "tier": "gold"}})
    with layout.conversations(UPLOAD).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(row) + "\n")
    res = redact_upload(layout, UPLOAD, RedactionSettings())
    out = _out(layout)["c_syn2"]
    assert out["turns"][0]["text"] == "call me on 98765 43210"  # its turns pass through
    assert out["meta"]["speakers"]["user"].startswith("spk-") and out["meta"]["speakers"]["agent"] == "agent-7"
    assert out["meta"]["sft_metadata"] == {"contact": "<PHONE_1>", "tier": "gold"}
    assert "example.com" not in json.dumps(out) and res.synthetic == 2
