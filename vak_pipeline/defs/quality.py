"""The steward's quality thresholds as Dagster config of validated_manifest (exclusion) and steward_report.

Fields and defaults are derived from the library's `QualityThresholds` (a pydantic settings model whose
defaults honour VAK_QUALITY_* at load time), so each threshold is defined once; set the environment
variables to change both assets at once, or override one run:
RunConfig(ops={"validated_manifest": {"config": {"quality": {"exclude": ["snr_db"]}}}}).
"""

import dagster as dg
from pydantic import create_model

from vak_pipeline.identity import IdentitySettings
from vak_pipeline.report.quality import QualityThresholds

from .config import config_class


def _fields() -> dict:
    defaults = QualityThresholds()
    return {name: (f.annotation, getattr(defaults, name)) for name, f in QualityThresholds.model_fields.items()}


_QualityBase = create_model("_QualityBase", __base__=dg.Config, **_fields())


class QualityConfig(_QualityBase):
    """Quality thresholds per recording; `exclude` names the metrics whose flag leaves a recording out."""

    def thresholds(self) -> QualityThresholds:
        return QualityThresholds(**{k: getattr(self, k) for k in QualityThresholds.model_fields})


IdentityConfig = config_class(IdentitySettings)


class QualityOpConfig(dg.Config):
    quality: QualityConfig = QualityConfig()
    identity: IdentityConfig = IdentityConfig()  # type: ignore[valid-type]  # duplicates across deliveries
