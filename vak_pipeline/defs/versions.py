"""The pipeline code as one value: every asset's code version, hashed. An ingest marker records it, so an
upload is re-ingested when a stage's version is bumped and not for any other code change."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

import dagster as dg


def code_fingerprint(assets: Iterable[object]) -> str:
    versions = {key.to_user_string(): version for asset in assets if isinstance(asset, dg.AssetsDefinition)
                for key, version in asset.code_versions_by_key.items()}
    return hashlib.sha256(json.dumps(versions, sort_keys=True).encode()).hexdigest()[:16]


def repository_code(repo: dg.RepositoryDefinition) -> str:
    """`code_fingerprint` of the assets a run or a sensor's code location has."""
    return code_fingerprint(set(repo.assets_defs_by_key.values()))


def context_code(context: object) -> str | None:
    """`repository_code` of a sensor's or schedule's code location; None when it has none (a context built
    in a test): then the code is not compared."""
    try:
        repo = context.repository_def  # type: ignore[attr-defined]
    except Exception:  # Dagster raises when a test-built context has no repository
        return None
    return repository_code(repo) if repo is not None else None
