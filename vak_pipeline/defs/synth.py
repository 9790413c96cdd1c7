"""synth: text-only conversations of an upload rendered as two-channel 24 kHz calls (vak_pipeline.synth)."""

from typing import Literal, Optional

import dagster as dg

from .partitions import uploads_partitions
from .resources import DataResource

ISSUES_CAP = 50


class GapModelConfig(dg.Config):
    """Pinned turn-taking timing (vak_pipeline.synth.GapModel)."""

    median_s: float = 0.35
    sigma: float = 0.5
    min_s: float = 0.08
    max_s: float = 2.0
    overlap_probability: float = 0.0
    overlap_max_s: float = 0.4


class SynthConfig(dg.Config):
    """Mirrors vak_pipeline.synth.SynthSettings (the library model is the source of truth and checks values)."""

    enabled: bool = True
    engine: Literal["espeak-ng", "piper"] = "espeak-ng"
    piper_voices: dict[str, str] = {}  # engine piper: locale -> local .onnx file (never downloaded)
    channel_map: dict[str, str] = {"0": "user", "1": "agent"}  # the upload's channel_map wins when it has one
    gaps: Literal["learned", "default"] = "learned"
    gap_model: Optional[GapModelConfig] = None  # noqa: UP045 (Dagster config needs Optional)
    learn_min_switches: int = 40
    tool_latency_s: list[float] = [0.6, 1.8]
    backchannel_probability: float = 0.0
    voice_groups: int = 16
    users_per_group: int = 3
    rate_wpm: int = 165
    seed: int = 0
    workers: int = 1  # render processes (0 = one per core); output identical


@dg.asset(
    partitions_def=uploads_partitions,
    group_name="uploads",
    deps=[dg.AssetKey("redacted_manifest")],
    kinds={"jsonl", "audio"},
    description="work/<upload>/synthesized.jsonl: text-only conversations rendered as two-channel 24 kHz "
    "calls (audio/<conv>.wav, alignments/<conv>.json), placeholders spoken as fake surrogates, "
    "audio marked synthesized; every other record passes through.",
)
def synth(context: dg.AssetExecutionContext, config: SynthConfig, data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.synth import SynthSettings, synth_upload

    settings = SynthSettings.model_validate(config.model_dump())
    res = synth_upload(data.layout, context.partition_key, settings)
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
