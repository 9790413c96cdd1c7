"""Dropped-file checks: a WARN (non-blocking) check on normalized_audio and on transcripts per upload.

A file the stage could not use (corrupt audio, a mono call without a diarizer ...) does not fail the
run, but it must not pass silently either: the check fails and lists every dropped file by its uploaded
name, with the reason and the fix. Thin: the funnel is computed by vak_pipeline.report.funnel.
"""

import dagster as dg

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
    table = dg.MetadataValue.table(
        records=[dg.TableRecord({c: ("" if getattr(d, c) is None else str(getattr(d, c))) for c in _COLUMNS})
                 for d in drops[:DROPS_CAP]],
        schema=dg.TableSchema(columns=[dg.TableColumn(c, "string") for c in _COLUMNS]))
    by_reason: dict[str, int] = {}
    for d in drops:
        by_reason[d.code] = by_reason.get(d.code, 0) + 1
    audio = {s: {"recordings": a.recordings, "hours": None if a.hours is None else round(a.hours, 4)}
             for s, a in f.audio.items() if s in ("in", "decoded", "transcribed", "turns", "redacted")}
    return dg.AssetCheckResult(
        passed=not drops, severity=dg.AssetCheckSeverity.WARN,
        description=(f"{len(files)} file(s) dropped: {', '.join(files[:10])}" if drops else "no file dropped"),
        metadata={"dropped": len(drops), "dropped_files": dg.MetadataValue.json(files),
                  "drops_by_reason": dg.MetadataValue.json(by_reason), "drops": table,
                  "drops_shown": f"{min(len(drops), DROPS_CAP)} of {len(drops)}",
                  "funnel_audio": dg.MetadataValue.json(audio), "funnel_text": dg.MetadataValue.json(f.text)})


@dg.asset_check(asset=dg.AssetKey("normalized_audio"), partitions_def=uploads_partitions, blocking=False,
                description="WARN when a file of the upload was not used (unknown kind, corrupt or undecodable "
                            "audio, a rejected recordings.csv row ...): lists each by name with its fix.")
def normalized_audio_no_files_dropped(context: dg.AssetCheckExecutionContext,
                                      data: DataResource) -> dg.AssetCheckResult:
    return drops_result(data, context.partition_key, ("in", "decoded"))


@dg.asset_check(asset=dg.AssetKey("transcripts"), partitions_def=uploads_partitions, blocking=False,
                description="WARN when a decoded recording was not transcribed (e.g. a mono call with no "
                            "diarizer: needs_diarization): lists each by name with its fix.")
def transcripts_no_files_dropped(context: dg.AssetCheckExecutionContext, data: DataResource) -> dg.AssetCheckResult:
    return drops_result(data, context.partition_key, ("transcribed",))
