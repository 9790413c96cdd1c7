"""Text sources of an upload: `*.aidb.jsonl` and `*.messages.jsonl` streamed as canonical records.

The tagged_turns stage joins these records with the transcribed calls. Records are yielded one at a
time (bounded memory); every problem is yielded as an Issue and the rest of the upload goes on.
aidb records carry typed pseudonym tokens already: their redaction logs are written here, atomically,
to redactions/<conv_id>.json, and the redaction stage adds its own spans to the same log.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core.issue import Issue
from ..layout import DataLayout
from ..schema.record import VakRecord
from ..storage import JsonlWriter, atomic_write_json
from .aidb import AidbImportContext, ImportedRecord, iter_aidb_file
from .descriptor import load_descriptor
from .inventory import is_plain_file
from .messages import MessagesImportContext, iter_messages_file

AIDB_SUFFIX = ".aidb.jsonl"
MESSAGES_SUFFIX = ".messages.jsonl"


def text_files(upload_dir: Path) -> list[tuple[str, Path]]:
    """(path relative to the upload, path) of every text-source file, sorted; hidden entries skipped."""
    out = []
    for p in sorted(Path(upload_dir).rglob("*.jsonl")):
        rel = p.relative_to(upload_dir).as_posix()
        if any(part.startswith(".") for part in rel.split("/")) or not is_plain_file(upload_dir, p):
            continue
        if rel.lower().endswith((AIDB_SUFFIX, MESSAGES_SUFFIX)):
            out.append((rel, p))
    return out


def iter_text_records(layout: DataLayout, upload: str, write_logs: bool = True) -> Iterator[VakRecord | Issue]:
    """Canonical records (and Issues) from the text sources of data/raw/<upload>/.

    Without a usable upload.yaml nothing is imported: provenance cannot be inferred safely.
    """
    upload_dir = layout.upload_dir(upload)
    files = text_files(upload_dir)
    if not files:
        return
    descriptor, issues = load_descriptor(upload_dir)
    yield from issues
    if descriptor is None:
        return
    for rel, path in files:
        settings = descriptor.settings_for(rel)
        name = f"{upload}/{rel}"
        if rel.lower().endswith(AIDB_SUFFIX):
            ctx = AidbImportContext(upload=upload, file=name, settings=settings, layout=layout)
            for item in iter_aidb_file(path, ctx):
                if isinstance(item, ImportedRecord):
                    if write_logs and item.redaction_log is not None:
                        write_redaction_log(layout, item)
                    yield item.record
                else:
                    yield item
        else:
            mctx = MessagesImportContext(upload=upload, file=name, settings=settings)
            for item in iter_messages_file(path, mctx):
                yield item if isinstance(item, Issue) else item[0]


def write_redaction_log(layout: DataLayout, item: ImportedRecord) -> Path:
    """redactions/<conv_id>.json under the data root (the path meta.redaction_log names)."""
    assert item.record.meta.redaction_log is not None and item.redaction_log is not None
    path = layout.root / item.record.meta.redaction_log
    atomic_write_json(path, item.redaction_log.model_dump(mode="json", exclude_none=True))
    return path


def import_text_upload(upload_dir: Path, out_path: Path) -> tuple[int, list[Issue]]:
    """`vak import-text`: write the canonical records of one upload folder to `out_path` (JSONL).

    The data root is the folder above raw/ when the upload sits in <root>/raw/<upload>; otherwise the
    output file's folder, so the redaction logs land beside the manifest that names them.
    """
    upload_dir = Path(upload_dir)
    if upload_dir.parent.name == "raw":
        layout: DataLayout = DataLayout.at(upload_dir.parent.parent)
    else:
        layout = _DetachedLayout(root=Path(out_path).parent, upload_path=upload_dir)
    issues: list[Issue] = []
    with JsonlWriter(Path(out_path)) as w:
        for item in iter_text_records(layout, upload_dir.name):
            if isinstance(item, Issue):
                issues.append(item)
            else:
                w.write(item.dump())
    return w.count, issues


@dataclass(frozen=True)
class _DetachedLayout(DataLayout):
    """A layout whose one upload lives outside root/raw (the CLI pointed at an arbitrary folder)."""

    upload_path: Path = Path(".")

    def upload_dir(self, upload: str) -> Path:
        return self.upload_path
