"""`*.vakforge.jsonl` imports of an upload, and what an imported record may name as its audio.

`iter_vakforge_imports` streams the records (tagged_turns joins them with the calls and the other text
sources); an imported record may name as its audio a recording of its own upload only.

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
from ..layout import DataLayout
from ..schema.record import VakRecord
from ..storage import iter_models
from ..uploads.inventory import is_plain_file, kind_of, links
from ..uploads.limits import DEFAULT_LIMITS, InputLimits
from ..uploads.links import data_rel, first_link, inside, link_issue
from .text import turn_too_long

PUBLISHED_DIRS = ("audio", "alignments", "redactions", "exports", "reports")
VAKFORGE_SUFFIX = ".vakforge.jsonl"


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


def vakforge_files(upload_dir: Path) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    if Path(upload_dir).is_symlink():  # refused by the descriptor; its folder is not even listed
        return out
    for p in sorted(Path(upload_dir).rglob(f"*{VAKFORGE_SUFFIX}")):
        rel = p.relative_to(upload_dir).as_posix()
        if is_plain_file(upload_dir, p) and not any(part.startswith(".") for part in rel.split("/")):
            out.append((rel, p))
    return out


def iter_vakforge_imports(layout: DataLayout, upload: str, limits: InputLimits = DEFAULT_LIMITS):
    """Records of `*.vakforge.jsonl` files of the upload (VakRecord or line-numbered Issue), streamed.

    A linked import file is an issue naming the link; a line over limits.max_line_bytes is skipped unread;
    a record with a turn over limits.max_turn_chars, or whose audio is not a recording of this upload
    (`audio_path_problem`), is refused with an issue and the rest of the file goes on."""
    upload_dir = layout.upload_dir(upload)
    for rel in links(upload_dir):
        if rel.lower().endswith(VAKFORGE_SUFFIX):
            yield link_issue(upload_dir, upload_dir / rel, "vakforge_symlink", "the import is not read", "structure")
    for rel, path in vakforge_files(upload_dir):
        for ml in iter_models(path, VakRecord, max_line_bytes=limits.max_line_bytes):
            if ml.value is not None:
                raw = {"id": ml.value.id, "turns": [{"text": t.text} for t in ml.value.turns]}
                issue = (turn_too_long(raw, "vakforge", limits, f"{upload}/{rel}", ml.line)
                         or audio_path_issue(ml.value, upload, upload_dir, f"{upload}/{rel}", ml.line))
                if issue is not None:
                    yield issue
                    continue
                yield _with_origin(ml.value, upload, rel, ml.line)
            elif ml.code == "invalid":
                yield Issue(code="vakforge_invalid", message=ml.error or "",
                            fix="fix the record to match the vakforge.jsonl schema", family="structure",
                            file=f"{upload}/{rel}", line=ml.line, field=ml.field, record_id=ml.record_id)
            else:
                fix = ("split the record, or raise the data resource's limits.max_line_bytes"
                       if ml.code == "line_too_long" else "fix or remove the line")
                yield Issue(code=f"vakforge_{ml.code}", message=ml.error or "", fix=fix, family="structure",
                            file=f"{upload}/{rel}", line=ml.line or None)


def _with_origin(rec: VakRecord, upload: str, rel: str, line: int) -> VakRecord:
    """meta.origin of an imported record: the uploaded file and line (as the text importers set it)."""
    origin = {"format": "vakforge.jsonl", "upload": upload, "file": f"{upload}/{rel}", "line": line}
    meta = rec.meta.model_copy(update={"origin": origin})
    return rec.model_copy(update={"meta": meta})
