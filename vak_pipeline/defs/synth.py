"""synth: text-only conversations of an upload rendered as two-channel 24 kHz calls (vak_pipeline.synth)."""

import dagster as dg

from vak_pipeline.synth.settings import SYNTH_VERSION, GapModel, SynthSettings

from .config import config_class, library_settings
from .failures import os_errors_as_sentences
from .partitions import uploads_partitions
from .resources import DataResource

ISSUES_CAP = 50

GapModelConfig = config_class(GapModel)


class SynthConfig(config_class(SynthSettings)):
    """synth.settings.SynthSettings as run config (fields, constraints and descriptions are the library's; its
    pairs of seconds are lists of two, the pinned gap model is GapModelConfig)."""


@dg.asset(
    partitions_def=uploads_partitions,
    group_name="uploads",
    deps=[dg.AssetKey("redacted_manifest")],
    kinds={"jsonl", "audio"},
    code_version=SYNTH_VERSION,
    description="`work/<upload>/synthesized.jsonl`: text-only conversations rendered as two-channel 24 kHz "
    "calls (`audio/<conv>.wav`, `alignments/<conv>.json`), placeholders spoken as fake surrogates, "
    "audio marked synthesized; every other record passes through.",
)
@os_errors_as_sentences
def synth(context: dg.AssetExecutionContext, config: SynthConfig, data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.synth import synth_upload
    from vak_pipeline.uploads.ingested import config_key

    settings = library_settings(config, SynthSettings)
    # its report closes the chain `vak run`, the sensor and the schedule read as "already ingested" (freshness)
    res = synth_upload(data.layout, context.partition_key, settings, data.input_limits,
                       run_key=config_key(context.run.run_config))
    context.log.info(
        f"{context.partition_key}: {res.rendered} rendered ({res.audio_s:.1f} s of audio), "
        f"{res.cached} unchanged, {res.passed_through} passed through, {res.failed} failed; "
        f"gaps {res.gap_model.get('source')}"
    )
    rows = [
        dg.TableRecord(
            {"code": i.code, "line": i.line or 0, "record_id": i.record_id or "", "reason": i.message, "fix": i.fix}
        )
        for i in res.issues[:ISSUES_CAP]
    ]
    schema = dg.TableSchema(
        columns=[
            dg.TableColumn(c, "int" if c == "line" else "string")
            for c in ("code", "line", "record_id", "reason", "fix")
        ]
    )
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": res.records,
            "rendered": res.rendered,
            "unchanged": res.cached,
            "passed_through": res.passed_through,
            "not_rendered_invalid": res.invalid,  # break a rule of their own: validation rejects them
            "failed": res.failed,
            "audio_seconds_rendered": round(res.audio_s, 3),
            "engine": res.engine,
            "gap_model": dg.MetadataValue.json(res.gap_model),
            "issues": dg.MetadataValue.table(records=rows, schema=schema),
            "synthesized_jsonl": dg.MetadataValue.path(str(data.layout.synthesized(context.partition_key).resolve())),
        }
    )
