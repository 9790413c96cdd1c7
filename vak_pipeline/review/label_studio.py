"""A small client of Label Studio's REST API: projects, tasks with predictions, annotations, JSON exports.

Why a client of our own and not `label-studio-sdk`: the SDK pins numpy below the version this project's stack
uses and pulls in nltk, opencv and black; the review round trip needs five JSON endpoints, which `httpx`
(already installed with Dagster) speaks directly. Authentication is the legacy token (`Authorization: Token
...`), which does not expire; a server since 1.17 accepts it only where the organization enables legacy tokens
(`LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN=true` when the server is first started, or Organization > Settings).

Audio: the reviewer's browser loads a task's audio from a URL. Files on the server's own disk are served at
`/data/local-files/?d=<path under the document root>` when the server runs with
`LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED=true` and `LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT=<root>`, and only
for a project that has a local-files storage whose folder holds the file (`connect_local_storage`);
`local_file_url` builds the URL a task names.

Errors are sentences naming the method, the URL and the HTTP status, and a fix; never the token, and never
what the server echoes of a task's data (a transcript may hold personal data): of a rejected payload only the
names of the fields it rejected.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

import httpx

# How many tasks one page of GET /api/tasks/ asks for (the server caps it at TASK_API_PAGE_SIZE_MAX).
_PAGE_SIZE = 100
# The most characters of a server's `detail` message an error repeats (it is the server's own text).
_DETAIL_CHARS = 200

_FIXES = {
    401: "check the API token: it must be the user's legacy token (Account & Settings > Legacy Token), and the "
         "organization must accept legacy tokens (LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN=true on the server's "
         "first start, or Organization > Settings > Access Token Settings)",
    403: "the token's user may not do this: use a token of a member of the project's organization",
    404: "check the server URL (without /api) and that the project or task id exists on that server",
}


class LabelStudioError(RuntimeError):
    """Label Studio could not be reached, or refused or failed a request."""

    def __init__(self, message: str, *, status: int | None = None, url: str = ""):
        super().__init__(message)
        self.status = status
        self.url = url


def local_file_url(path: Path | str, document_root: Path | str) -> str:
    """The URL under which a server started with `document_root` as LOCAL_FILES_DOCUMENT_ROOT serves `path`."""
    path, root = Path(path).resolve(), Path(document_root).resolve()
    try:
        relative = path.relative_to(root)
    except ValueError:
        raise ValueError(f"{path} is not under the local-files document root {root}: put the audio under it, or "
                         "start the server with LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT set to a folder that holds "
                         "it") from None
    return "/data/local-files/?d=" + quote(str(PurePosixPath(*relative.parts)), safe="/")


class LabelStudio:
    """One Label Studio server, as one user (the token's). Use it as a context manager, or call `close()`."""

    def __init__(self, url: str, token: str, *, timeout_s: float = 60.0,
                 transport: httpx.BaseTransport | None = None):
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, headers={"Authorization": f"Token {token}"},
                                  timeout=timeout_s, transport=transport)

    def __repr__(self) -> str:  # the token stays out of logs and tracebacks
        return f"LabelStudio({self.url!r})"

    def __enter__(self) -> LabelStudio:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # --- the endpoints the review round trip uses --------------------------------------------------------------

    def whoami(self) -> dict[str, Any]:
        """The token's user: a cheap check that URL and token work."""
        return self.request("GET", "/api/current-user/whoami")

    def create_project(self, title: str, label_config: str, *, description: str = "") -> int:
        """A new project with this labeling config; its id. The server checks the config and says what is wrong."""
        created = self.request("POST", "/api/projects/", echo=True,
                               json={"title": title, "label_config": label_config, "description": description})
        return int(created["id"])

    def connect_local_storage(self, project_id: int, folder: Path | str, *, title: str = "audio") -> int:
        """Let the project's tasks load files under `folder` (on the server's disk, under its document root)
        through `/data/local-files/`; nothing is imported from it. The storage's id."""
        created = self.request("POST", "/api/storages/localfiles/", echo=True, json={
            "project": project_id, "path": str(Path(folder).resolve()), "title": title, "use_blob_urls": False})
        return int(created["id"])

    def import_tasks(self, project_id: int, tasks: Iterable[Mapping[str, Any]]) -> list[int]:
        """Import tasks (each `{"data": ..., "predictions": [...]}`) into the project; the new tasks' ids, in order."""
        tasks = list(tasks)
        done = self.request("POST", f"/api/projects/{project_id}/import", params={"return_task_ids": "true"},
                            json=tasks)
        ids = done.get("task_ids")
        if ids is None or len(ids) != len(tasks):
            raise LabelStudioError(
                f"Label Studio imported {done.get('task_count', '?')} of {len(tasks)} tasks into project "
                f"{project_id} at {self.url} without returning their ids: the server may import in the background "
                "(a server with a Redis queue); list the project's tasks with `tasks()` once it is done")
        return [int(i) for i in ids]

    def tasks(self, project_id: int) -> list[dict[str, Any]]:
        """Every task of the project, with its annotations and predictions, page by page."""
        found: list[dict[str, Any]] = []
        page = 1
        while True:
            got = self.request("GET", "/api/tasks/", params={"project": project_id, "page": page,
                                                             "page_size": _PAGE_SIZE, "fields": "all"})
            batch = got["tasks"] if isinstance(got, dict) else got
            found.extend(batch)
            total = got.get("total", len(found)) if isinstance(got, dict) else len(found)
            if not batch or len(found) >= total:
                return found
            page += 1

    def export(self, project_id: int, *, all_tasks: bool = False) -> list[dict[str, Any]]:
        """The project's JSON export (what Label Studio's Export > JSON downloads): annotated tasks, or all."""
        return self.request("GET", f"/api/projects/{project_id}/export",
                            params={"exportType": "JSON", "download_all_tasks": str(all_tasks).lower()})

    def submit_annotation(self, task_id: int, result: list[dict[str, Any]], *,
                          lead_time_s: float | None = None) -> int:
        """Submit an annotation of a task as the token's user, as the Submit button does; its id."""
        body: dict[str, Any] = {"result": result}
        if lead_time_s is not None:
            body["lead_time"] = lead_time_s
        return int(self.request("POST", f"/api/tasks/{task_id}/annotations/", json=body)["id"])

    # --- one request --------------------------------------------------------------------------------------------

    def request(self, method: str, path: str, *, echo: bool = False, **kw: Any) -> Any:
        """One call of the API, its JSON answer. `echo`: a refusal may repeat the server's reasons in full
        (only for payloads without conversation data, such as a labeling config)."""
        try:
            response = self._http.request(method, path, **kw)
        except httpx.TransportError as exc:
            raise LabelStudioError(f"could not reach Label Studio for {method} {self.url}{path} "
                                   f"({type(exc).__name__}): check that the server runs and the URL") from None
        url = str(response.request.url)
        if response.is_success:
            try:
                return response.json()
            except ValueError:
                raise LabelStudioError(f"Label Studio answered {method} {url} with HTTP {response.status_code} "
                                       "but not with JSON: check that the URL is the server's root, without "
                                       "/api", status=response.status_code, url=url) from None
        fix = _FIXES.get(response.status_code) or (
            "see the server's log" if response.status_code >= 500 else "the server rejected the request's payload")
        raise LabelStudioError(f"Label Studio answered {method} {url} with HTTP {response.status_code} "
                               f"{response.reason_phrase}{_reasons(response, echo)}: {fix}",
                               status=response.status_code, url=url)


def _reasons(response: httpx.Response, echo: bool) -> str:
    """What of the server's answer an error may repeat: its `detail` sentence and the fields it rejected."""
    try:
        body = response.json()
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    parts = []
    errors = body.get("validation_errors")
    if isinstance(errors, dict) and errors:
        parts.append(json.dumps(errors, ensure_ascii=False)[:1000] if echo
                     else "rejected fields: " + ", ".join(sorted(map(str, errors))))
    elif isinstance(body.get("detail"), str) and (echo or response.status_code in _FIXES):
        parts.append(body["detail"][:_DETAIL_CHARS])
    return f" ({'; '.join(parts)})" if parts else ""
