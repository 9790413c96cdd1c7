"""The ingest code as one value: the code versions of the assets ingest_job runs, hashed. The ingest marker
records it, so an upload is re-ingested when one of its stages' versions is bumped and for no other code
change. The same job gives the same value in a step, a sensor and `vak run`."""

from __future__ import annotations

import hashlib
import json

import dagster as dg

INGEST_JOB = "ingest_job"


def job_code(job: dg.JobDefinition) -> str:
    layer = job.asset_layer
    keys = set(layer.executable_asset_keys)
    versions = {key.to_user_string(): version for asset in layer.asset_graph.assets_defs
                for key, version in asset.code_versions_by_key.items() if key in keys}
    return hashlib.sha256(json.dumps(versions, sort_keys=True).encode()).hexdigest()[:16]


def context_code(context: object) -> str | None:
    """`job_code` of ingest_job in a sensor's or schedule's code location; None when it has none (a context
    built in a test): then the code is not compared."""
    try:
        repo = context.repository_def  # type: ignore[attr-defined]
        return job_code(repo.get_job(INGEST_JOB)) if repo is not None else None
    except Exception:  # Dagster raises when a test-built context has no repository
        return None
