"""A real Label Studio server for the review tests: started on a free localhost port, stopped with its children.

Label Studio lives in a venv of its own, `.venv-label-studio/` at the repo root (its Django pins would fight
Dagster's), which `./dev test` creates once; `VAK_LABEL_STUDIO_BIN` names another `label-studio` executable
(another worktree's). Where neither exists the tests that need the server are skipped, with the reason.

The server runs on SQLite in a temp data dir (LABEL_STUDIO_BASE_DATA_DIR), with one user whose legacy API token
is set at the first start (LABEL_STUDIO_USERNAME / _PASSWORD / _USER_TOKEN, LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN),
and nothing phones home (no Sentry, no analytics, no version check). Audio: files under `Server.document_root`
are served at `/data/local-files/?d=...` (LOCAL_FILES_SERVING_ENABLED / LOCAL_FILES_DOCUMENT_ROOT) to projects
that connect a local-files storage on their folder: `client.connect_local_storage(project, folder)`, then name
`server.audio_url(path)` in the task's data.

A fresh data dir is migrated on the first start, which is most of the start-up (about 80 s on a busy 2-core
machine, 14 s on an already migrated one), so the pytest fixture is one server per session.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from vak_pipeline_tests import processes

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = REPO / ".venv-label-studio" / "bin" / "label-studio"
# How long a start may take (migrating a fresh SQLite database on a busy machine is most of it).
START_TIMEOUT_S = 420.0
# The test user: a throwaway account on a server that listens on localhost only, for one test session.
USERNAME = "reviewer@example.com"
PASSWORD = "vak-review-pass-1"
TOKEN = "vakreviewtoken0123456789abcdef"


@dataclass(frozen=True)
class Server:
    """A running server: where it listens, who may log in, and where the audio it serves lies."""

    url: str
    token: str
    username: str
    password: str
    document_root: Path  # files under here (in a folder a project connects) are served to that project's tasks
    data_dir: Path
    log: Path

    def client(self):
        """A client of the library, as the test user (close it, or use it in a `with`)."""
        from vak_pipeline.review.label_studio import LabelStudio

        return LabelStudio(self.url, self.token)

    def audio_url(self, path: Path) -> str:
        """The URL a task names for a file under `document_root`."""
        from vak_pipeline.review.label_studio import local_file_url

        return local_file_url(path, self.document_root)


def binary() -> str:
    """The `label-studio` executable: VAK_LABEL_STUDIO_BIN, else the repo's .venv-label-studio; skips without."""
    named = os.environ.get("VAK_LABEL_STUDIO_BIN")
    found = Path(named) if named else VENV_BIN
    if found.is_file() and os.access(found, os.X_OK):
        return str(found)
    pytest.skip(f"needs Label Studio at {found}: `./dev test` installs it into .venv-label-studio "
                "(pip install 'label-studio>=1.13'), or set VAK_LABEL_STUDIO_BIN to a label-studio executable")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _environment(data_dir: Path, document_root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LABEL_STUDIO_", "HEARTEX_", "DJANGO_")) and k not in ("SENTRY_DSN",)}
    env.update({
        "LABEL_STUDIO_BASE_DATA_DIR": str(data_dir),
        "LABEL_STUDIO_USERNAME": USERNAME, "LABEL_STUDIO_PASSWORD": PASSWORD, "LABEL_STUDIO_USER_TOKEN": TOKEN,
        "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",
        "LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED": "true",
        "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT": str(document_root),
        # offline and quiet: no error reports, analytics or version checks leave the machine
        "SENTRY_DSN": "", "FRONTEND_SENTRY_DSN": "", "LABEL_STUDIO_COLLECT_ANALYTICS": "false",
        "LABEL_STUDIO_LATEST_VERSION_CHECK": "false", "LABEL_STUDIO_CONVERTER_DOWNLOAD_RESOURCES": "false",
    })
    return env


def _tail(log: Path, lines: int = 30) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    return "(no log)"


def _wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout_s: float) -> None:
    import httpx

    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"label-studio exited with {proc.returncode} before it answered {url}/health; "
                               f"its log ({log}) ends:\n{_tail(log)}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                return
        if time.monotonic() >= deadline:
            raise TimeoutError(f"label-studio did not answer {url}/health within {timeout_s:.0f} s; its log "
                               f"({log}) ends:\n{_tail(log)}")
        time.sleep(0.5)


@contextlib.contextmanager
def running(root: Path, *, timeout_s: float = START_TIMEOUT_S) -> Iterator[Server]:
    """A server whose data dir, document root and log are under `root`; stopped with its children on exit."""
    executable = binary()
    data_dir, document_root, log = root / "data", root / "files", root / "label-studio.log"
    data_dir.mkdir(parents=True, exist_ok=True)
    document_root.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    with log.open("wb") as out, processes.spawned(
            [executable, "start", "--no-browser", "--internal-host", "127.0.0.1", "--port", str(port)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=root,
            env=_environment(data_dir, document_root), grace_s=20.0) as proc:
        _wait_healthy(url, proc, log, timeout_s)
        print(f"label-studio answered {url}/health after {time.monotonic() - started:.1f} s (log: {log})")
        yield Server(url=url, token=TOKEN, username=USERNAME, password=PASSWORD, document_root=document_root,
                     data_dir=data_dir, log=log)


@pytest.fixture(scope="session")
def label_studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One real Label Studio server for the test session (skipped where it is not installed)."""
    with running(tmp_path_factory.mktemp("label-studio")) as server:
        yield server


# --- what a reviewer sees: the labeling page of a task, in headless Chromium ------------------------------------

class _DevTools:
    """Chromium's DevTools protocol over one page's websocket: a call waits for its own answer."""

    def __init__(self, ws_url: str, timeout_s: float):
        import websocket  # websocket-client

        self._ws = websocket.create_connection(ws_url, timeout=timeout_s, suppress_origin=True)
        self._next = 0

    def call(self, method: str, **params):
        import json

        self._next += 1
        self._ws.send(json.dumps({"id": self._next, "method": method, "params": params}))
        while True:
            message = json.loads(self._ws.recv())
            if message.get("id") == self._next:
                if "error" in message:
                    raise RuntimeError(f"Chromium refused {method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str):
        got = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return got.get("result", {}).get("value")

    def wait_for(self, expression: str, what: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not self.evaluate(expression):
            if time.monotonic() >= deadline:
                raise TimeoutError(f"the page did not show {what} within {timeout_s:.0f} s (at "
                                   f"{self.evaluate('location.href')})")
            time.sleep(0.5)

    def close(self) -> None:
        self._ws.close()


def _page_socket(port: int, timeout_s: float) -> str:
    import httpx

    deadline = time.monotonic() + timeout_s
    while True:
        with contextlib.suppress(httpx.HTTPError, ValueError):
            pages = [t for t in httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=5).json()
                     if t.get("type") == "page"]
            if pages:
                return pages[0]["webSocketDebuggerUrl"]
        if time.monotonic() >= deadline:
            raise TimeoutError(f"Chromium's DevTools did not answer on port {port} within {timeout_s:.0f} s")
        time.sleep(0.3)


def screenshot_task(server: Server, project_id: int, task_id: int, out: Path, *, shows: str = "",
                    size: tuple[int, int] = (1440, 1000), timeout_s: float = 120.0) -> dict:
    """Log in as the test user, open the task's labeling page, wait until it is drawn (and, when `shows` is
    given, holds that text), and save a PNG of the viewport to `out`. The page's visible text and the PNG's path."""
    import base64
    import json

    from vak_pipeline_tests import chromium

    binary = chromium.chromium()
    out.parent.mkdir(parents=True, exist_ok=True)
    port, profile = _free_port(), out.parent / f".{out.stem}-profile"
    args = [binary, *chromium.FLAGS, f"--remote-debugging-port={port}", "--remote-allow-origins=*",
            f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}", "about:blank"]
    with out.with_suffix(".chromium.log").open("wb") as log, processes.spawned(
            args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, grace_s=10.0):
        page = _DevTools(_page_socket(port, 60.0), timeout_s)
        try:
            page.call("Page.enable")
            page.call("Emulation.setDeviceMetricsOverride", width=size[0], height=size[1], deviceScaleFactor=1,
                      mobile=False)
            page.call("Page.navigate", url=f"{server.url}/user/login/")
            page.wait_for("!!document.querySelector('#login-form input[name=email]')", "the login form", timeout_s)
            page.evaluate(f"""(() => {{
                const form = document.querySelector('#login-form');
                form.querySelector('input[name=email]').value = {json.dumps(server.username)};
                form.querySelector('input[name=password]').value = {json.dumps(server.password)};
                form.submit(); return true; }})()""")
            page.wait_for("!location.pathname.startsWith('/user/login') && document.readyState === 'complete'",
                          "a page past the login (wrong user or password?)", timeout_s)
            page.call("Page.navigate", url=f"{server.url}/projects/{project_id}/data?task={task_id}")
            page.wait_for("!!document.querySelector('.lsf-main-view, [class*=\"lsf-main-view\"]')",
                          "the labeling interface", timeout_s)
            if shows:
                page.wait_for(f"document.body.innerText.includes({json.dumps(shows)})", repr(shows), timeout_s)
            time.sleep(2.0)  # the waveform and the regions are drawn after the text
            shot = page.call("Page.captureScreenshot", format="png")
            text = page.evaluate("document.body.innerText") or ""
        finally:
            page.close()
    out.write_bytes(base64.b64decode(shot["data"]))
    print(f"screenshot of task {task_id} (project {project_id}): {out}")
    return {"png": out, "text": text}
