"""Symbolic links in an upload: found without following them, and named as errors name them.

Why: a link in raw/ (the upload folder, its descriptor, a CSV, an events file, a text source, a recording)
would make the pipeline read, and publish, a file outside the data directory. Every reader refuses them
(docs/security.md); these helpers say where the first link on a path is and how to name it.
"""

from __future__ import annotations

from pathlib import Path

from ..core.issue import Issue


def first_link(upload_dir: Path, path: Path) -> Path | None:
    """The first symbolic link on the way from the upload folder (itself included) to `path`, or None.

    A path that is not under `upload_dir` counts as its own link: it is never read either.
    """
    path, upload_dir = Path(path), Path(upload_dir)
    if upload_dir.is_symlink():
        return upload_dir
    try:
        rel = path.relative_to(upload_dir)
    except ValueError:
        return path
    cur = upload_dir
    for part in rel.parts:
        cur = cur / part
        if cur.is_symlink():
            return cur
    return None


def inside(upload_dir: Path, path: Path) -> bool:
    """`path` resolves inside the resolved upload folder (no link anywhere above it slipped through)."""
    try:
        real, base = Path(path).resolve(), Path(upload_dir).resolve()
    except (OSError, RuntimeError):
        return False
    return real == base or base in real.parents


def data_rel(upload_dir: Path, path: Path | str) -> str:
    """A path of the upload as errors name it: relative to the data root (raw/<upload>/...)."""
    upload_dir = Path(upload_dir)
    top = f"raw/{upload_dir.name}" if upload_dir.parent.name == "raw" else upload_dir.name
    try:
        rel = Path(path).relative_to(upload_dir).as_posix()
    except ValueError:
        rel = str(path)
    return top if rel in ("", ".") else f"{top}/{rel}"


def link_issue(upload_dir: Path, path: Path, code: str, what: str, family: str = "upload") -> Issue:
    """The issue of a refused link, naming it relative to the data root (never its target)."""
    upload_dir = Path(upload_dir)
    try:
        rel = Path(path).relative_to(upload_dir).as_posix()
    except ValueError:
        rel = Path(path).name
    file = upload_dir.name if rel in ("", ".") else f"{upload_dir.name}/{rel}"
    return Issue(code=code, message=f"{data_rel(upload_dir, path)} is a symbolic link; {what}",
                 fix="replace the link with the file itself (links are never followed, so nothing outside the "
                     "data directory is read)", family=family, file=file)
