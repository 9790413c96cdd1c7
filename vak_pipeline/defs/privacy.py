"""redacted_manifest: PII redaction of an upload's conversations (text, tool JSON, audio) with logs."""

import dagster as dg
from pydantic import Field

from vak_pipeline.redaction.settings import RedactionSettings, stage_version

from .config import config_class, library_settings
from .failures import os_errors_as_sentences
from .metadata import issues_table
from .partitions import uploads_partitions
from .resources import DataResource


class RedactionConfig(config_class(RedactionSettings)):
    """redaction.settings.RedactionSettings as run config, plus how many processes redact."""

    workers: int = Field(default=1, ge=1, description="Processes redacting changed records (output identical to "
                         "1); pays off for big uploads.")


@dg.asset(partitions_def=uploads_partitions, group_name="uploads", deps=[dg.AssetKey("tagged_turns")],
          kinds={"jsonl", "audio"}, code_version=stage_version(),
          description="`work/<upload>/redacted.jsonl`: text, tool JSON and audio redacted with numbered placeholders; "
                      "`redactions/<conv_id>.json` logs; `audio/<conv>.wav` masked (tone or silence).")
@os_errors_as_sentences
def redacted_manifest(context: dg.AssetExecutionContext, config: RedactionConfig,
                      data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.redaction.stage import redact_upload
    from vak_pipeline.uploads.ingested import config_key

    settings = library_settings(config, RedactionSettings)
    res = redact_upload(data.layout, context.partition_key, settings, workers=config.workers,
                        limits=data.input_limits,
                        run_key=config_key(context.run.run_config))
    if res.skipped_redaction:
        context.log.warning(f"REDACTION SKIPPED: {res.skipped_redaction} record(s) left unredacted and marked "
                            "skip_redaction; validation rejects them")
    context.log.info(f"{context.partition_key}: {res.records} records, {res.redacted} redacted, "
                     f"{res.unchanged} unchanged, {res.synthetic} synthetic, {res.failed} failed")
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
        "issues": issues_table(res.issues),
        "redacted_jsonl": dg.MetadataValue.path(str(data.layout.redacted(context.partition_key).resolve())),
    })
