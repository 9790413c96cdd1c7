"""What an imported `*.vakforge.jsonl` record may name as its audio: a recording of its own upload only.

Why: `audio.path` is resolved against the data root, so without this rule an imported record could name
`work/<upload>/audio/<conv>.wav` (the unredacted private recording, then published byte for byte),
`raw/<another upload>/...` (someone else's delivery, under someone else's consent) or another record's
published `audio/...`. An import names only files of its own upload (`raw/<its upload>/...`), reached
without a symbolic link; anything else refuses the record with an issue that names the rule, never the path.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core.issue import Issue
from ..schema.record import VakRecord
from .inventory import kind_of
from .links import data_rel, first_link, inside

PUBLISHED_DIRS = ("audio", "alignments", "redactions", "exports", "reports")


def audio_path_problem(path: str, upload: str, upload_dir: Path) -> tuple[str, str] | None:
    """(code, what is wrong) when `path` (an imported record's audio.path) is not a recording of `upload`."""
    if (not path or "\x00" in path or os.path.isabs(path) or path.startswith(("/", "\\"))
            or (len(path) > 1 and path[1] == ":")):
        return "audio_path_absolute", "audio.path is absolute; an import may only name files of its own upload"
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        return "audio_path_parent", "audio.path has a '..' segment; an import may only name files of its own upload"
    if not parts:
        return "audio_path_outside_upload", "audio.path names no file"
    top = parts[0]
    if top == "work":
        return "audio_path_private", ("audio.path names a file under work/, the pipeline's private (unredacted) "
                                      "files; an import may only name files of its own upload")
    if top in PUBLISHED_DIRS or top.startswith("."):
        return "audio_path_published", ("audio.path names a published file of another record (or the pipeline's "
                                        "own files); an import may only name files of its own upload")
    if top != "raw":
        return "audio_path_outside_upload", "audio.path is not in the upload's folder (raw/<upload>/)"
    if len(parts) < 3 or parts[1] != upload:
        return "audio_path_foreign_upload", ("audio.path names a file of another upload; an import may only name "
                                             "files of its own upload")
    target = Path(upload_dir, *parts[2:])
    link = first_link(upload_dir, target)
    if link is not None:
        return "audio_path_symlink", f"audio.path goes through {data_rel(upload_dir, link)}, a symbolic link"
    if kind_of("/".join(parts[2:])) != "audio":
        return "audio_path_not_audio", "audio.path does not name a recording (.wav, .flac, .mp3, .ogg, .m4a, .aac)"
    if not target.is_file() or not inside(upload_dir, target):
        return "audio_path_missing", "audio.path names a file that is not in the upload"
    return None


def audio_path_issue(rec: VakRecord, upload: str, upload_dir: Path, file: str, line: int) -> Issue | None:
    """The issue refusing an imported record whose audio is not a recording of its own upload, or None."""
    if rec.audio is None:
        return None
    problem = audio_path_problem(rec.audio.path, upload, upload_dir)
    if problem is None:
        return None
    code, message = problem
    return Issue(code=f"vakforge_{code}", message=f"{message}; the record is refused",
                 fix=f"copy the recording into this upload's folder and set audio.path to raw/{upload}/<file name>, "
                     "or leave audio out",
                 family="audio", record_id=rec.id[:80], field="audio.path", file=file, line=line)
