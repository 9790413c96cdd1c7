"""Headless Chromium for the report tests: a screenshot and a layout check of a page, as a reader sees it.

`chromium()` finds Debian's chromium, installs it with apt-get where the tests run as root and it is missing,
and skips the test with the reason where neither works (fails it in CI:
`servers.missing`). `look_at` renders the page twice with a fresh profile:
a screenshot of the first viewport and of the full page (kept as test artefacts, paths printed) and a DOM dump
of a copy of the page carrying a small script that measures every table and the verdict block.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from vak_pipeline_tests import processes
from vak_pipeline_tests.servers import missing

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]
VIEWPORT = (1280, 900)

_MEASURE = """<script>
window.addEventListener('load', () => {
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const clipped = [];
  document.querySelectorAll('table').forEach((t, i) => {
    const box = t.parentElement, r = t.getBoundingClientRect(), b = box.getBoundingClientRect();
    const scrolls = ['auto', 'scroll'].includes(getComputedStyle(box).overflowX);
    if (b.right > vw + 1 || (!scrolls && r.right > b.right + 1)) {
      clipped.push(i + ': ' + ((t.querySelector('caption') || {}).textContent || t.rows[0].textContent).slice(0, 60));
    }
  });
  const wide = [];  // what sticks out of the page, named so a failure says where to look
  document.querySelectorAll('body *').forEach((e) => {
    if (e.getBoundingClientRect().right > vw + 1 && wide.length < 5 && !e.closest('.scroll')) {
      wide.push(e.tagName + '.' + e.className + ': ' + (e.textContent || '').slice(0, 80));
    }
  });
  const v = document.getElementById('verdict').getBoundingClientRect();
  document.body.setAttribute('data-layout', JSON.stringify({
    viewport: [vw, vh], page_width: document.documentElement.scrollWidth, clipped: clipped, wide: wide,
    verdict: [v.top, v.bottom], tables: document.querySelectorAll('table').length}));
});
</script>"""


def chromium() -> str:
    """The chromium binary; installs Debian's package when missing (root + apt-get), else skips with the reason."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if shutil.which("apt-get") and os.geteuid() == 0:
        try:
            processes.run(["apt-get", "install", "-y", "-q", "chromium"], capture_output=True, timeout=600,
                          check=False, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        except subprocess.TimeoutExpired:
            pass
        found = shutil.which("chromium")
        if found:
            return found
    missing("needs Debian's chromium: apt-get install -y chromium (not installable here: not root or no apt-get)")


def _run(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    return processes.run([binary, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, timeout=120,
                         check=True, text=True)


def look_at(page: Path, out: Path, name: str) -> dict:
    """Screenshots (`<name>-viewport.png`, `<name>-full.png` in `out`) and the layout measured in the browser."""
    binary = chromium()
    out.mkdir(parents=True, exist_ok=True)
    w, h = VIEWPORT
    viewport, full = out / f"{name}-viewport.png", out / f"{name}-full.png"
    _run(binary, out / f"{name}-profile-1", f"--window-size={w},{h}", f"--screenshot={viewport}", page.as_uri())
    _run(binary, out / f"{name}-profile-2", f"--window-size={w},6000", f"--screenshot={full}", page.as_uri())
    probe = page.with_name(f".{name}-probe.html")  # beside the page: its relative links and images still resolve
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", _MEASURE + "</body>"), encoding="utf-8")
    try:
        dom = _run(binary, out / f"{name}-profile-3", f"--window-size={w},{h}", "--virtual-time-budget=5000",
                   "--dump-dom", probe.as_uri()).stdout
    finally:
        probe.unlink()
    found = re.search(r'data-layout="([^"]*)"', dom)
    assert found, "the layout probe did not run"
    import html

    layout = json.loads(html.unescape(found.group(1)))
    layout["screenshots"] = [str(viewport), str(full)]
    print(f"screenshots of {page}: {viewport} {full}")
    return layout
