"""Which uploads are already ingested as they are now: one answer, read from the data root.

The last step of every ingest run (the `synth` asset, whoever launched the run: `vak run`, the UI, the
upload sensor, the nightly schedule) writes work/<upload>/ingest_done.json saying what the ingest was made
of: the upload's fingerprint as its inventory recorded it, the locale packs, the pipeline code (the assets'
code versions), the run config that shapes outputs and the erasure ledger's entries that touch the upload
(so an erasure makes exactly the uploads it touched stale, without deleting anything). `vak run`, the
sensor and the schedule all ask `is_ingested`, so none redoes what another did. An upload that changed since,
or an ingest that stopped half-way (no marker for this fingerprint), is not ingested.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..core.erasure import ledger_key
from ..layout import DataLayout
from ..storage import atomic_write_json
from .inventory import fingerprint


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


def _packs() -> str:
    from ..locales.registry import packs_fingerprint

    return packs_fingerprint()


def mark_ingested(layout: DataLayout, upload: str, code: str, run_config: dict[str, Any] | None,
                  run_id: str = "") -> dict[str, Any] | None:
    """Record that the ingest of `upload` got to the end (called by the last ingest step). Returns the
    marker, or None when the upload has no recorded inventory (nothing was ingested)."""
    fp = recorded_fingerprint(layout, upload)
    if fp is None:
        return None
    marker = {"fingerprint": fp, "packs": _packs(), "code": code, "config": config_key(run_config), "run_id": run_id,
              "erasure": ledger_key(layout.root, upload)}
    atomic_write_json(layout.ingest_marker(upload), marker)
    return marker


def is_ingested(layout: DataLayout, upload: str, current: str | None = None, *, code: str | None = None,
                run_config: dict[str, Any] | None = None, any_config: bool = True) -> bool:
    """True when `upload` (with fingerprint `current`, computed when not given) needs no ingest run.

    `code` (the assets' code versions, hashed) is compared when given. The run config is compared only
    when `any_config` is False (`vak run --config` asks for its own settings; the sensor and the schedule
    launch with the defaults and take any complete ingest of these files)."""
    if current is None:
        try:
            current = fingerprint(layout.upload_dir(upload))
        except OSError:
            return False
    try:
        marker = json.loads(layout.ingest_marker(upload).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(marker, dict) or marker.get("fingerprint") != current:
        return False
    if not layout.redacted(upload).is_file() or marker.get("packs") != _packs():
        return False
    if marker.get("erasure", "") != ledger_key(layout.root, upload):  # erased from since: ingest again
        return False
    if code is not None and marker.get("code") != code:
        return False
    return any_config or marker.get("config") == config_key(run_config)


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


def uploads_to_ingest(layout: DataLayout, code: str | None = None) -> dict[str, str]:
    """upload -> current fingerprint, for every upload folder that is new or changed since its last ingest."""
    out: dict[str, str] = {}
    for upload in layout.uploads():
        try:
            fp = fingerprint(layout.upload_dir(upload))
        except OSError:
            continue  # a folder being moved away: the next evaluation sees it
        if not is_ingested(layout, upload, fp, code=code):
            out[upload] = fp
    return out
