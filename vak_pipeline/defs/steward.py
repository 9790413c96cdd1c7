"""The steward's Dagster side: a WARN dropped-file check per upload, and the steward report's metadata.

A file the stage could not use (corrupt audio, a mono call without a diarizer ...) does not fail the
run, but it must not pass silently either: the check on normalized_audio, transcripts and tagged_turns
fails and lists every dropped file by its uploaded name, with the reason and the fix. Thin: the funnel,
its tables and the verdict are vak_pipeline.report's (report.funnel, report.steward); this module only
shows them to Dagster.
"""

import dagster as dg

from .metadata import rows_table
from .partitions import uploads_partitions
from .resources import DataResource

DROPS_CAP = 50
_COLUMNS = ("file", "line", "record_id", "code", "message", "fix")


def drops_result(data: DataResource, upload: str, stages: tuple[str, ...]) -> dg.AssetCheckResult:
    """The WARN check result for the drops of `upload` at `stages`, with the upload's funnel as metadata."""
    from vak_pipeline.report.funnel import upload_funnel

    f = upload_funnel(data.layout, upload)
    drops = [d for d in f.drops if d.stage in stages]
    files = sorted({d.file for d in drops})
    table = rows_table(drops, _COLUMNS, DROPS_CAP, int_columns=("line",))
    by_reason: dict[str, int] = {}
    for d in drops:
        by_reason[d.code] = by_reason.get(d.code, 0) + 1
    return dg.AssetCheckResult(
        passed=not drops,
        severity=dg.AssetCheckSeverity.WARN,
        description=(f"{len(files)} file(s) dropped: {', '.join(files[:10])}" if drops else "no file dropped"),
        metadata={
            "dropped": len(drops),
            "dropped_files": dg.MetadataValue.json(files),
            "drops_by_reason": dg.MetadataValue.json(by_reason),
            "drops": table,
            "drops_shown": f"{min(len(drops), DROPS_CAP)} of {len(drops)}",
            "funnel_audio": dg.MetadataValue.json(f.audio_so_far()),
            "funnel_text": dg.MetadataValue.json(f.text),
        },
    )


def drops_check(asset: str, name: str, stages: tuple[str, ...], description: str) -> dg.AssetChecksDefinition:
    """The WARN check `name` on `asset`, per upload: fails listing the files dropped at `stages`."""

    @dg.asset_check(
        asset=dg.AssetKey(asset),
        name=name,
        partitions_def=uploads_partitions,
        blocking=False,
        description=description,
    )
    def _check(context: dg.AssetCheckExecutionContext, data: DataResource) -> dg.AssetCheckResult:
        return drops_result(data, context.partition_key, stages)

    return _check


normalized_audio_no_files_dropped = drops_check(
    "normalized_audio",
    "normalized_audio_no_files_dropped",
    ("in", "decoded"),
    "WARN when a file of the upload was not used (unknown kind, corrupt or undecodable "
    "audio, a rejected recordings.csv row ...): lists each by name with its fix.",
)
transcripts_no_files_dropped = drops_check(
    "transcripts",
    "transcripts_no_files_dropped",
    ("transcribed",),
    "WARN when a decoded recording was not transcribed (e.g. a mono call with no "
    "diarizer: needs_diarization): lists each by name with its fix.",
)


def steward_report_result(context: dg.AssetExecutionContext, layout, thresholds, inputs: dict,
                          dagster_url: str | None = None) -> dg.MaterializeResult:
    """Build the steward report and describe it as metadata: verdict, funnel, drops, flagged recordings."""
    import hashlib

    from vak_pipeline.quality.recordings import METRICS
    from vak_pipeline.report.steward import (
        UPLOAD_COLUMNS,
        ReportSettings,
        build_steward_report,
        hms,
        summary_markdown,
        upload_rows,
    )

    extra = {"dagster_url": dagster_url} if dagster_url else {}
    settings = ReportSettings(quality=thresholds, run_id=context.run.run_id, **extra)
    report = build_steward_report(layout, settings=settings)
    s, funnel, verdict = report.summary, report.funnel, report.verdict
    version = hashlib.sha256(
        f"{s.manifest_hash}:{sorted(inputs.items())}:{thresholds.model_dump_json()}:{dagster_url}".encode()
    ).hexdigest()
    html_path = layout.final(report.html)  # where it is read once `release` swaps the candidate in
    context.log.info(f"release verdict: {verdict.status}; " + "; ".join(verdict.reasons))
    by_upload = [dict(zip(UPLOAD_COLUMNS, row, strict=True)) for row in upload_rows(funnel)]
    drops = funnel.total.drops
    flagged = [q for q in s.quality if q.flags]
    return dg.MaterializeResult(
        data_version=dg.DataVersion(version),
        metadata={
            "manifest_hash": s.manifest_hash,
            "generated_at": s.generated_at,
            "release_verdict": verdict.status,
            "verdict_reasons": dg.MetadataValue.json(verdict.reasons),
            "report_url": dg.MetadataValue.url(html_path.as_uri()),
            "report_path": dg.MetadataValue.path(str(html_path)),
            "report_json": dg.MetadataValue.path(str(layout.final(report.json))),
            "markdown": dg.MetadataValue.path(str(layout.final(report.markdown))),
            "summary": dg.MetadataValue.md(summary_markdown(s)),
            "conversations": s.conversations,
            "audio_recordings": s.with_audio,
            "audio_duration": hms(s.audio_hours * 3600),
            "text_conversations": s.text_conversations,
            "rejected_rows": s.rejected_rows,
            "funnel_by_upload": rows_table(by_upload, UPLOAD_COLUMNS, cap=len(by_upload), int_columns=[
                c for c in UPLOAD_COLUMNS[1:] if not c.endswith("(h:mm:ss)")]),
            "drops_by_reason": dg.MetadataValue.json(funnel.total.drops_by_reason()),
            "drops": rows_table(drops, ("upload", "stage", "file", "line", "code", "fix"), DROPS_CAP,
                                int_columns=("line",)),
            "flagged_recordings": len(flagged),
            "quality": rows_table((q.row() for q in s.quality), ("conv_id", "file", *METRICS, "flags"), DROPS_CAP),
            "quality_csv": dg.MetadataValue.path(str(layout.final(report.quality_csv))),
            "redactions_by_type": dg.MetadataValue.json(dict(s.redactions_by_type)),
        },
    )


tagged_turns_no_rows_dropped = drops_check(
    "tagged_turns",
    "tagged_turns_no_rows_dropped",
    ("turns",),
    "WARN when a line of a text source or a recording's transcript did not become a conversation "
    "(broken JSON, a field the format refuses, a duplicate id ...): lists each by file and line with its fix.",
)
