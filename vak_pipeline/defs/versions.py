"""A job's code as one value: the code versions of the assets it runs, hashed. The release step records
publish_job's (report.freshness.mark_published), so a release is rebuilt when one of its assets' versions is
bumped and for no other code change. The same job gives the same value in a step, a sensor and `vak run`.
(Whether an upload is ingested is read from the stage reports: report.freshness.)"""

from __future__ import annotations

import hashlib
import json

import dagster as dg


def job_code(job: dg.JobDefinition) -> str:
    layer = job.asset_layer
    keys = set(layer.executable_asset_keys)
    versions = {key.to_user_string(): version for asset in layer.asset_graph.assets_defs
                for key, version in asset.code_versions_by_key.items() if key in keys}
    return hashlib.sha256(json.dumps(versions, sort_keys=True).encode()).hexdigest()[:16]
