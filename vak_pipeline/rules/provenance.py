"""Provenance rules: every claim about consent, licence and redaction must carry its evidence."""

from __future__ import annotations

import json

from ..schema.record import VakRecord
from ..schema.redaction_log import RedactionLog
from ..storage import resolve_inside
from .context import RecordIssues, ValidationContext

_MAX_LOG_BYTES = 64 * 1024 * 1024


def check_provenance(rec: VakRecord, ctx: ValidationContext, out: RecordIssues) -> None:
    m = rec.meta
    if m.consent in ("recorded_verbal", "written") and not m.consent_ref:
        out.add("consent_ref_missing", f"consent {m.consent!r} requires consent_ref",
                "set meta.consent_ref to the policy or form the consent was given under", family="provenance",
                field="meta.consent_ref")
    if m.consent == "public_license" and not m.license:
        out.add("license_missing", "consent public_license requires license",
                "set meta.license to the licence id (e.g. CC-BY-4.0)", family="provenance", field="meta.license")
    if m.consent == "synthetic" and m.source != "synthetic":
        out.add("consent_synthetic_not_synthetic_source", f"consent synthetic is only valid with source synthetic "
                f"(source is {m.source!r})", "fix meta.source or meta.consent", family="provenance",
                field="meta.consent")
    if m.consent == "none" and not (m.allow_unconsented or ctx.allow_unconsented):
        out.add("consent_none_without_override", "consent none is allowed only with an explicit override",
                "obtain consent, or set allow_unconsented: true in the upload's upload.yaml (`vak validate "
                "--allow-unconsented` for a manifest checked by hand); such rows are excluded from published artifacts",
                family="provenance", field="meta.consent")
    if m.source == "real":
        if m.skip_redaction:
            out.add("real_redaction_skipped", "real data prepared with skip_redaction may not be trained on",
                    "re-run the redaction stage without skip_redaction", family="provenance",
                    field="meta.skip_redaction")
        if not m.pii_redacted:
            out.add("real_not_redacted", "source real requires pii_redacted: true",
                    "run the redaction stage (redacted_manifest) over this record", family="provenance",
                    field="meta.pii_redacted")
        if not m.redaction_log:
            out.add("redaction_log_missing", "source real requires a redaction_log naming what was removed",
                    "set meta.redaction_log to redactions/<id>.json (written by the redaction stage)",
                    family="provenance", field="meta.redaction_log")
        # a synthesized voice is nobody's voice: only a real recording needs voice consent
        if rec.audio is not None and rec.audio.synthesis is None and not m.voice_consent_ref:
            out.add("voice_consent_missing", "real data with audio requires voice_consent_ref: consent to record "
                    "a call is not consent to train a voice on it", "set meta.voice_consent_ref",
                    family="provenance", field="meta.voice_consent_ref")
    if rec.audio is not None and rec.audio.synthesis is not None:
        _check_synthesis(rec, out)
    if m.redaction_log:
        _check_redaction_log(rec, ctx, out)


def _check_synthesis(rec: VakRecord, out: RecordIssues) -> None:
    """A synthesized-audio claim names a voice per role, and meta.speakers carries the same ids, so the
    speaker-disjoint split keeps each synthetic voice in one split (the claim waives voice consent)."""
    syn = rec.audio.synthesis if rec.audio is not None else None
    assert syn is not None
    speakers = rec.meta.speakers or {}
    for role, voice in sorted(syn.voices.items()):
        if speakers.get(role) != voice:
            out.add("synthesis_voice_not_in_speakers", f"audio.synthesis names voice {voice!r} for {role} but "
                    f"meta.speakers.{role} is {speakers.get(role)!r}",
                    f"set meta.speakers.{role} to the voice id (the synth stage does), so splits keep the voice "
                    "in one split", family="provenance", field=f"meta.speakers.{role}")


def _check_redaction_log(rec: VakRecord, ctx: ValidationContext, out: RecordIssues) -> None:
    rel = rec.meta.redaction_log or ""
    path = resolve_inside(ctx.base_dir, rel)
    if path is None:
        out.add("redaction_log_path_unsafe", "redaction_log must be relative to the manifest without '..' or links "
                "out of the dataset", "store the log under redactions/ and use a relative path",
                family="provenance", field="meta.redaction_log")
        return
    if not path.is_file():
        out.add("redaction_log_not_found", f"redaction log {rel} does not exist relative to the manifest",
                "write the log (redaction stage) or fix meta.redaction_log", family="provenance",
                field="meta.redaction_log")
        return
    try:
        if path.stat().st_size > _MAX_LOG_BYTES:
            raise ValueError("larger than 64 MiB")
        data = json.loads(path.read_bytes())
        if not isinstance(data, dict) or not isinstance(data.get("spans"), list):
            raise ValueError("not a JSON object with a spans list")
        RedactionLog.model_validate(data)
    except (ValueError, RecursionError) as exc:  # pydantic's ValidationError is a ValueError too
        out.add("redaction_log_invalid", f"redaction log {rel} is not a JSON object with a valid spans list "
                f"({type(exc).__name__})",
                'write {"conversation_id": ..., "spans": [{turn, field, type, start, end, placeholder}]}',
                family="provenance", field="meta.redaction_log")
