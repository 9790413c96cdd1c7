"""What an upload's ingest is made of, as every stage's report records it: the upload's fingerprint as its
inventory recorded it (`recorded_fingerprint`) and the run config that shapes outputs (`config_key`, recorded as
`made_of.run`). `report.freshness` reads them: it is the one answer to "is this up to date".
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..layout import DataLayout


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
