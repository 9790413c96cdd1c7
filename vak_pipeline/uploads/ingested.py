"""What a run was made of, hashed: the run config that shapes outputs (`config_key`, recorded by every stage's
report as `made_of.run`: report.freshness reads them) and the inputs of the live release (`published_stamp`,
recorded at the swap by the `release` step).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..layout import DataLayout
from ..storage import atomic_write_json


def recorded_fingerprint(layout: DataLayout, upload: str) -> str | None:
    try:
        value = json.loads(layout.inventory(upload).read_text(encoding="utf-8")).get("fingerprint")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def config_key(run_config: dict[str, Any] | None) -> str:
    """The part of a run config that shapes an ingest's outputs, hashed: where the data is (the `data`
    resource), logging and the executor do not count; empty sections count as absent."""

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            out = {k: clean(v) for k, v in value.items()}
            return {k: v for k, v in out.items() if v not in ({}, None)}
        return value

    rc = {k: v for k, v in (run_config or {}).items() if k not in ("loggers", "execution")}
    rc["resources"] = {k: v for k, v in (rc.get("resources") or {}).items() if k != "data"}
    return hashlib.sha256(json.dumps(clean(rc), sort_keys=True, default=str).encode()).hexdigest()[:16]


def published_stamp(layout: DataLayout, code: str, run_config: dict[str, Any] | None) -> str:
    """What a publish is made from: each upload's records by content (mtimes differ between machines sharing a
    URL root), the run config that shapes outputs (config_key), the publish code and the steward's thresholds."""
    import os

    from ..storage import sha256_file

    inputs = [[u, sha256_file(p) if p.is_file() else None] for u in layout.uploads()
              for p in [layout.manifest_input(u)]]
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith("VAK_QUALITY_") or k == "VAK_DAGSTER_URL")
    payload = [inputs, config_key(run_config), code, env]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def mark_published(layout: DataLayout, code: str, run_config: dict[str, Any] | None, run_id: str = "") -> None:
    """Record, at the swap, what the live release was made from (called by the `release` step, whoever launched
    it): `vak run`, the sensor and the schedule read the same answer (`is_published`)."""
    atomic_write_json(layout.publish_marker, {"stamp": published_stamp(layout, code, run_config), "run_id": run_id})


def is_published(layout: DataLayout, code: str, run_config: dict[str, Any] | None) -> bool:
    """True when the live release was made from exactly these inputs, config and code: no publish is needed."""
    try:
        marker = json.loads(layout.publish_marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(marker, dict) and layout.manifest.is_file() and layout.splits.is_file()
            and marker.get("stamp") == published_stamp(layout, code, run_config))
