"""Speech assets: transcripts (ASR + speakers, GPU pool) -> tagged_turns (turns, LID, text sources), GX checks.

Thin: the work is in vak_pipeline.speech; the resources carry configuration only (any value can be
overridden per run: RunConfig(resources={"whisper": {"config": {"device": "cpu"}}})).
"""

import dagster as dg

from vak_pipeline.speech.expectations import TurnBounds

from .metadata import ISSUES_CAP, issues_table, rows_table
from .partitions import uploads_partitions
from .resources import DataResource, DiarizerResource, WhisperResource  # noqa: F401  (re-exported)

# k8s: one GPU for the step's pod; dask: the step needs a worker advertising a GPU resource
GPU_OP_TAGS = {
    "dagster-k8s/config": {"container_config": {"resources": {"limits": {"nvidia.com/gpu": "1"},
                                                              "requests": {"nvidia.com/gpu": "1"}}}},
    "dagster-dask/resource_requirements": {"GPU": 1},
}


@dg.asset(partitions_def=uploads_partitions, group_name="uploads", deps=[dg.AssetKey("normalized_audio")],
          pool="gpu", op_tags=GPU_OP_TAGS, kinds={"jsonl", "pytorch"},
          description="work/<upload>/transcripts.jsonl: ASR segments and word timestamps per speaker (stereo: "
                      "by channel map; mono: pyannote diarization). Unchanged recordings are not re-transcribed.")
def transcripts(context: dg.AssetExecutionContext, data: DataResource, whisper: WhisperResource,
                diarizer: DiarizerResource) -> dg.MaterializeResult:
    from vak_pipeline.speech.stage import speech_report_path, transcribe_upload

    upload = context.partition_key
    res = transcribe_upload(data.layout, upload, whisper.settings(), diarizer.diarizer())
    context.log.info(f"{upload}: {res.conversations} transcripts ({res.transcribed} new, {res.skipped} unchanged), "
                     f"{res.needs_diarization} need diarization, {res.failed} failed; engine {res.engine}")
    return dg.MaterializeResult(metadata={
        "dagster/row_count": res.conversations, "transcribed": res.transcribed, "unchanged": res.skipped,
        "failed": res.failed, "needs_diarization": res.needs_diarization, "engine": res.engine,
        "audio_seconds": res.audio_seconds, "asr_seconds": res.asr_seconds,
        "real_time_factor": dg.MetadataValue.float(res.rtf) if res.rtf is not None else dg.MetadataValue.null(),
        "issues": issues_table(res.issues),
        "transcripts": dg.MetadataValue.path(res.transcripts),
        "report": dg.MetadataValue.path(str(speech_report_path(data.layout, upload)))})


class TagConfig(dg.Config):
    max_gap_s: float = 0.6  # same-speaker segments closer than this are one turn


@dg.asset(partitions_def=uploads_partitions, group_name="uploads", deps=[transcripts], kinds={"jsonl"},
          description="work/<upload>/conversations.jsonl: canonical records (turns sorted, overlap, lang per turn, "
                      "tool events merged) plus text sources and vakforge imports; alignments/<conv_id>.json.")
def tagged_turns(context: dg.AssetExecutionContext, config: TagConfig, data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.speech.stage import speech_report_path, tag_upload

    upload = context.partition_key
    res = tag_upload(data.layout, upload, max_gap_s=config.max_gap_s)
    context.log.info(f"{upload}: {res.records} records ({res.from_audio} audio, {res.from_text} text, "
                     f"{res.from_vakforge} vakforge), {len(res.issues)} issues")
    return dg.MaterializeResult(metadata={
        "dagster/row_count": res.records, "from_audio": res.from_audio, "from_text": res.from_text,
        "from_vakforge": res.from_vakforge, "turns": res.turns, "tool_turns": res.tool_turns,
        "overlaps": res.overlaps, "turn_langs": dg.MetadataValue.json(res.langs),
        "issues": issues_table(res.issues),
        "conversations": dg.MetadataValue.path(res.conversations),
        "report": dg.MetadataValue.path(str(speech_report_path(data.layout, upload)))})


def _observed(value) -> dg.MetadataValue:
    """GX's observed value of an aggregate expectation (e.g. the overlap rate) as metadata."""
    if isinstance(value, bool) or value is None:
        return dg.MetadataValue.null() if value is None else dg.MetadataValue.bool(value)
    if isinstance(value, int | float):
        return dg.MetadataValue.float(float(value))
    return dg.MetadataValue.text(str(value))


def _turn_check_specs() -> list[dg.AssetCheckSpec]:
    from vak_pipeline.speech.expectations import TURN_CHECKS

    return [dg.AssetCheckSpec(name, asset=tagged_turns, partitions_def=uploads_partitions, blocking=False,
                              description=f"Great Expectations over spoken turns: {name} (WARN)")
            for name in TURN_CHECKS]


class TurnBoundsConfig(TurnBounds, dg.Config):
    """speech.expectations.TurnBounds, as run config."""


@dg.multi_asset_check(specs=_turn_check_specs(), name="tagged_turns_gx")
def tagged_turns_gx(context: dg.AssetCheckExecutionContext, config: TurnBoundsConfig, data: DataResource):
    """The turns GX suite over the upload's conversations; one WARN result per rule with failing turns."""
    from vak_pipeline.speech.expectations import check_turns, read_records

    upload = context.partition_key
    path = data.layout.conversations(upload)
    for chk in check_turns(read_records(path), TurnBounds(**config.model_dump())):
        yield dg.AssetCheckResult(
            check_name=chk.name, asset_key=tagged_turns.key, passed=chk.passed, severity=dg.AssetCheckSeverity.WARN,
            metadata={"checked_turns": chk.checked, "failing": len(chk.failing),
                      "observed": _observed(chk.observed),
                      "failing_turns": rows_table(chk.failing, ("conv_id", "turn", "failed"), ISSUES_CAP,
                                                  int_columns=("turn",)),
                      "conversations": dg.MetadataValue.path(str(path))})
