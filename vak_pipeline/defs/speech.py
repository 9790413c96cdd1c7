"""Speech assets: transcripts (ASR + speakers, GPU pool) -> tagged_turns (turns, LID, text sources), GX checks.

Thin: the work is in vak_pipeline.speech; the resources carry configuration only (any value can be
overridden per run: RunConfig(resources={"whisper": {"config": {"device": "cpu"}}})).
"""

import dagster as dg

from vak_pipeline.quality.turns import TURN_CHECKS, TurnBounds
from vak_pipeline.speech.cleanup import CleanupSettings
from vak_pipeline.speech.stage import TAG_VERSION, TRANSCRIBE_VERSION, TagSettings

from .config import config_class, library_settings
from .failures import os_errors_as_sentences
from .metadata import ISSUES_CAP, issues_table
from .partitions import uploads_partitions
from .progress import logged_progress
from .quality import gx_checks
from .resources import DataResource, DiarizerResource, WhisperResource  # noqa: F401  (re-exported)

# k8s: one GPU for the step's pod; dask: the step needs a worker advertising a GPU resource
GPU_OP_TAGS = {
    "dagster-k8s/config": {"container_config": {"resources": {"limits": {"nvidia.com/gpu": "1"},
                                                              "requests": {"nvidia.com/gpu": "1"}}}},
    "dagster-dask/resource_requirements": {"GPU": 1},
}


class TranscribeConfig(config_class(CleanupSettings)):
    """speech.cleanup: the bleed and hallucination filters, switches and thresholds (docs/real-calls.md)."""


@dg.asset(partitions_def=uploads_partitions, group_name="uploads", deps=[dg.AssetKey("normalized_audio")],
          pool="gpu", op_tags=GPU_OP_TAGS, kinds={"jsonl", "pytorch"}, code_version=TRANSCRIBE_VERSION,
          description="`work/<upload>/transcripts.jsonl`: ASR segments and word timestamps per speaker (stereo: "
                      "by channel map; mono: pyannote diarization). Unchanged recordings are not re-transcribed.")
@os_errors_as_sentences
def transcripts(context: dg.AssetExecutionContext, config: TranscribeConfig, data: DataResource,
                whisper: WhisperResource, diarizer: DiarizerResource) -> dg.MaterializeResult:
    from vak_pipeline.speech.stage import speech_report_path, transcribe_upload
    from vak_pipeline.uploads.ingested import config_key

    upload = context.partition_key
    mono_diarizer, why = diarizer.choose()
    context.log.info(f"{upload}: mono recordings: {why}")
    cleanup = library_settings(config, CleanupSettings)
    with logged_progress(context):
        res = transcribe_upload(data.layout, upload, whisper.settings(), mono_diarizer, cleanup=cleanup,
                                run_key=config_key(context.run.run_config))
    context.log.info(f"{upload}: {res.conversations} transcripts ({res.transcribed} new, {res.skipped} unchanged), "
                     f"{res.needs_diarization} need diarization, {res.failed} failed; engine {res.engine}")
    return dg.MaterializeResult(metadata={
        "dagster/row_count": res.conversations, "transcribed": res.transcribed, "unchanged": res.skipped,
        "failed": res.failed, "needs_diarization": res.needs_diarization, "engine": res.engine,
        "diarizer": mono_diarizer.engine if mono_diarizer is not None else "none",
        "removed": dg.MetadataValue.json(res.removed),
        "crosstalk": dg.MetadataValue.json(dict(list(res.crosstalk.items())[:ISSUES_CAP])),
        "audio_seconds": res.audio_seconds, "asr_seconds": res.asr_seconds,
        "decoded_seconds": res.decoded_seconds, "bleed_skipped_seconds": res.bleed_skipped_seconds,
        "real_time_factor": dg.MetadataValue.float(res.rtf) if res.rtf is not None else dg.MetadataValue.null(),
        "issues": issues_table(res.issues),
        "transcripts": dg.MetadataValue.path(res.transcripts),
        "report": dg.MetadataValue.path(str(speech_report_path(data.layout, upload)))})


class TagConfig(config_class(TagSettings)):
    """speech.stage.TagSettings, as run config."""


@dg.asset(partitions_def=uploads_partitions, group_name="uploads", deps=[transcripts], kinds={"jsonl"},
          code_version=TAG_VERSION,
          description="`work/<upload>/conversations.jsonl`: canonical records (turns sorted, overlap, lang per turn, "
                      "tool events merged) plus text sources and vakforge imports; `alignments/<conv_id>.json`.")
@os_errors_as_sentences
def tagged_turns(context: dg.AssetExecutionContext, config: TagConfig, data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.speech.stage import speech_report_path, tag_upload

    upload = context.partition_key
    from vak_pipeline.erasure import refuse_text
    from vak_pipeline.uploads.ingested import config_key

    res = tag_upload(data.layout, upload, max_gap_s=config.max_gap_s,
                     # the data resource's limits; the older tagged_turns config field can only lower them
                     limits=data.input_limits.stricter(library_settings(config, TagSettings).limits),
                     refuse=refuse_text(data.layout.root),
                     run_key=config_key(context.run.run_config))
    context.log.info(f"{upload}: {res.records} records ({res.from_audio} audio, {res.from_text} text, "
                     f"{res.from_vakforge} vakforge), {len(res.issues)} issues")
    return dg.MaterializeResult(metadata={
        "dagster/row_count": res.records, "from_audio": res.from_audio, "from_text": res.from_text,
        "from_vakforge": res.from_vakforge, "text_imported": res.text_imported, "text_reused": res.text_reused,
        "turns": res.turns, "tool_turns": res.tool_turns,
        "overlaps": res.overlaps, "turn_langs": dg.MetadataValue.json(res.langs),
        "issues": issues_table(res.issues),
        "conversations": dg.MetadataValue.path(res.conversations),
        "report": dg.MetadataValue.path(str(speech_report_path(data.layout, upload)))})


class TurnBoundsConfig(config_class(TurnBounds)):
    """quality.turns.TurnBounds, as run config."""


def _turns_suite(upload: str, bounds: TurnBounds, layout):
    """The turn checks, each failing turn named by the uploaded file and line its conversation came from."""
    from vak_pipeline.quality.turns import check_turns, read_records
    from vak_pipeline.rules.origin import record_origin

    path = layout.conversations(upload)
    origins: dict[str, tuple[str, str]] = {}  # conv_id -> (uploaded file, line)

    def traced(records):
        for rec in records:
            o = record_origin(rec)
            origins[rec.id] = (o.file or "", "" if o.line is None else str(o.line))
            yield rec

    checks = list(check_turns(traced(read_records(path)), bounds))
    for chk in checks:
        for row in chk.failing:
            row["file"], row["line"] = origins.get(row.get("conv_id"), ("", ""))
    return checks, path


tagged_turns_gx = gx_checks("tagged_turns_gx", tagged_turns, TURN_CHECKS, TurnBoundsConfig, TurnBounds,
                            _turns_suite, "failing_turns", ("conv_id", "turn", "failed", "file", "line"),
                            int_columns=("turn",),
                            what=" over spoken turns")
