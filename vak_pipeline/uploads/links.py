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


class LinkedDataPath(ValueError):
    """The data root, raw/ or an upload folder is a symbolic link: nothing is run, the message says which."""


def data_root_link(root: Path | str, upload: str | None = None) -> str | None:
    """The sentence refusing a linked data root, `raw/` or `raw/<upload>` (with the fix), or None.

    Why the root too: every guarantee that nothing outside the data directory is read is checked against
    the folder as it was named; through a link, `raw/` of another dataset (or any directory) would be read
    and its files published. Components above the data root are the operator's machine and not checked.
    """
    root = Path(root)
    if root.is_symlink():
        return (f"the data directory {root} is a symbolic link; nothing is read through a link. Pass the real "
                f"directory instead (vak run --data {root.resolve()}), or replace the link with the folder itself")
    raw = root / "raw"
    if raw.is_symlink():
        return (f"{raw} is a symbolic link; nothing is read through a link (it would publish files from outside "
                f"the data directory). Replace the link with a folder and move the deliveries into {raw}/<upload>/")
    if upload is not None and (raw / upload).is_symlink():
        return (f"{raw / upload} is a symbolic link; nothing is read through a link. Replace it with the upload "
                "folder itself (copy or move the delivery there)")
    return None


def refuse_linked_root(root: Path | str, upload: str | None = None) -> None:
    """Raise LinkedDataPath with `data_root_link`'s sentence when the root, raw/ or the upload is a link."""
    why = data_root_link(root, upload)
    if why is not None:
        raise LinkedDataPath(why)


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
