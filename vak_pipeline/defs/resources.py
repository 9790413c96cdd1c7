"""Resources shared by the assets. Each holds configuration only; the work is in the library."""

from __future__ import annotations

import dagster as dg

from vak_pipeline.layout import DataLayout


class DataResource(dg.ConfigurableResource):
    """Where the dataset lives. A local path or a mounted shared volume (see README: cluster)."""

    root: str = "data"

    @property
    def layout(self) -> DataLayout:
        return DataLayout.at(self.root)


def default_resources(data_root: str | None = None) -> dict[str, object]:
    """Resources bound in definitions.py; `vak run --data DIR` passes its own root."""
    import os

    from .speech import DiarizerResource, WhisperResource  # speech resources (lazy: defs/speech imports us)

    # HF_TOKEN / VAK_DIARIZER_PIPELINE are bound as EnvVar only when set, so runs without them still launch
    diarizer = DiarizerResource(
        pipeline=dg.EnvVar("VAK_DIARIZER_PIPELINE") if os.environ.get("VAK_DIARIZER_PIPELINE") else "",
        hf_token=dg.EnvVar("HF_TOKEN") if os.environ.get("HF_TOKEN") else None)
    return {"data": DataResource(root=data_root or os.environ.get("VAK_DATA", "data")),
            "whisper": WhisperResource(), "diarizer": diarizer}
