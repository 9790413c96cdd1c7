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

    return {"data": DataResource(root=data_root or os.environ.get("VAK_DATA", "data"))}
