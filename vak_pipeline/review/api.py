"""Label Studio's export over its REST API (`GET /api/projects/{id}/export?exportType=JSON`, token auth)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


class ApiError(RuntimeError):
    """Label Studio could not be read (the message names the URL and what to check; never the token)."""


def fetch_export(url: str, project: int, token: str, timeout_s: float = 60.0) -> list[dict[str, Any]]:
    """Every task of a project with its annotations, as the JSON export holds them."""
    endpoint = f"{url.rstrip('/')}/api/projects/{int(project)}/export?exportType=JSON&download_all_tasks=true"
    req = urllib.request.Request(endpoint, headers={"Authorization": f"Token {token}", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:  # noqa: S310 - the steward's own server
            body = json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        hint = "check --token (Account & Settings > Access Token)" if exc.code in (401, 403) else \
            "check --project (the number in the project's URL)" if exc.code == 404 else "see the server's log"
        raise ApiError(f"{endpoint}: HTTP {exc.code}; {hint}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise ApiError(f"{endpoint}: {getattr(exc, 'reason', exc)}; check --url and that Label Studio is "
                       "running") from None
    except ValueError:
        raise ApiError(f"{endpoint}: the answer is not JSON; check --url points at Label Studio") from None
    if not isinstance(body, list):
        raise ApiError(f"{endpoint}: expected a list of tasks; check --project")
    return body
