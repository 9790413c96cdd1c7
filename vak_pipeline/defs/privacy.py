"""redacted_manifest: PII redaction of an upload's conversations (text, tool JSON, audio) with logs."""

from typing import Literal

import dagster as dg

from .partitions import uploads_partitions
from .resources import DataResource

ISSUES_CAP = 50


class RedactionConfig(dg.Config):
    skip_redaction: bool = False  # loud warning; rows marked and rejected by validation
    audio_method: Literal["tone", "silence"] = "tone"
    padding_s: float = 0.15
    ner: bool = False  # optional NER for names (used only if a spaCy NER model is installed)
    workers: int = 1  # processes redacting changed records (output identical to 1); pays off for big uploads


@dg.asset(partitions_def=uploads_partitions, group_name="uploads", deps=[dg.AssetKey("tagged_turns")],
          kinds={"jsonl", "audio"},
          description="work/<upload>/redacted.jsonl: text, tool JSON and audio redacted with numbered placeholders; "
                      "redactions/<conv_id>.json logs; audio/<conv>.wav masked (tone or silence).")
def redacted_manifest(context: dg.AssetExecutionContext, config: RedactionConfig,
                      data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.redaction.stage import RedactionSettings, redact_upload

    settings = RedactionSettings(skip_redaction=config.skip_redaction, audio_method=config.audio_method,
                                 padding_s=config.padding_s, ner=config.ner)
    res = redact_upload(data.layout, context.partition_key, settings, workers=config.workers)
    if res.skipped_redaction:
        context.log.warning(f"REDACTION SKIPPED: {res.skipped_redaction} record(s) left unredacted and marked "
                            "skip_redaction; validation rejects them")
    context.log.info(f"{context.partition_key}: {res.records} records, {res.redacted} redacted, "
                     f"{res.unchanged} unchanged, {res.synthetic} synthetic, {res.failed} failed")
    rows = [dg.TableRecord({"code": i.code, "line": i.line or 0, "record_id": i.record_id or "", "reason": i.message,
                            "fix": i.fix}) for i in res.issues[:ISSUES_CAP]]
    schema = dg.TableSchema(columns=[dg.TableColumn(c, "int" if c == "line" else "string")
                                     for c in ("code", "line", "record_id", "reason", "fix")])
    return dg.MaterializeResult(metadata={
        "dagster/row_count": res.records,
        "records": res.records,
        "redacted": res.redacted,
        "unchanged": res.unchanged,
        "synthetic_passthrough": res.synthetic,
        "skipped": res.skipped_redaction,
        "failed": res.failed,
        "spans": res.spans,
        "audio_files_masked": res.audio_masked,
        "schema_misfits": res.schema_misfits,
        "redactions_by_type": dg.MetadataValue.json(dict(sorted(res.counts_by_type.items()))),
        "issues": dg.MetadataValue.table(records=rows, schema=schema),
        "redacted_jsonl": dg.MetadataValue.path(str(data.layout.redacted(context.partition_key).resolve())),
    })
