"""review_tasks: Label Studio tasks for what needs a human (vak_pipeline.review; docs/review.md). Thin.

Not part of ingest or publish: a steward materializes it (or runs review_export_job) when a review round
starts; the corrections come back with `vak review import` and every later ingest applies them."""

import dagster as dg

from vak_pipeline.review.settings import ReviewSettings
from vak_pipeline.review.tasks import TASKS_VERSION

from .config import config_class, library_settings
from .failures import os_errors_as_sentences
from .metadata import issues_table
from .resources import DataResource


class ReviewConfig(config_class(ReviewSettings)):
    """review.settings.ReviewSettings, as run config."""


@dg.asset(group_name="review", kinds={"json"}, deps=[dg.AssetKey("release")], code_version=TASKS_VERSION,
          description="`work/review/tasks.json`: one Label Studio task per conversation with a doubtful turn (or "
                      "chosen), pre-filled as predictions; import it into a project with review/label_config.xml.")
@os_errors_as_sentences
def review_tasks(context: dg.AssetExecutionContext, config: ReviewConfig, data: DataResource) -> dg.MaterializeResult:
    from vak_pipeline.review.tasks import LABEL_CONFIG, export_tasks

    res = export_tasks(data.layout, library_settings(config, ReviewSettings))
    context.log.info(f"{res.tasks} review task(s), {res.flagged_turns} flagged turn(s) of {res.turns}")
    return dg.MaterializeResult(metadata={
        "dagster/row_count": res.tasks, "turns": res.turns, "flagged_turns": res.flagged_turns,
        "left_out": res.left_out, "reasons": dg.MetadataValue.json(res.reasons), "issues": issues_table(res.issues),
        "tasks": dg.MetadataValue.path(res.path), "label_config": dg.MetadataValue.path(str(LABEL_CONFIG))})


review_export_job = dg.define_asset_job("review_export_job", selection=dg.AssetSelection.assets(review_tasks),
                                        description="Write the review tasks of the data root (docs/review.md).")
