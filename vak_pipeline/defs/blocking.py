"""The publish assets' failure hook: a crashed publish step still leaves a verdict and a BLOCKED report.

On every publish asset (not on a job), so it fires however the step was launched: publish_job, the sensor,
a schedule, `vak run`, or an asset's Materialize button in the UI.
"""

import dagster as dg


@dg.failure_hook(required_resource_keys={"data"})
def block_release_on_failure(context: dg.HookContext) -> None:
    """A publish step that failed (an export crashed ...) stops the run before `release` decides: block the
    candidate here, so it still gets its verdict.json and BLOCKED steward report, whatever launched the run."""
    from vak_pipeline.report.decision import block_candidate, block_sentence

    exc = context.op_exception
    first = (str(exc).strip().splitlines() or [""])[0] if exc is not None else "see the step's logs"
    reason = f"step {context.step_key} failed: {type(exc).__name__ if exc is not None else 'Error'}: {first}"
    layout = context.resources.data.layout
    verdict = block_candidate(layout, [reason], run_id=context.run_id)
    context.log.error(block_sentence(verdict, layout))
