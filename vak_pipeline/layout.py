"""Where every stage reads and writes under a data directory (DESIGN.md §2-§3).

One place names the paths so the Dagster assets, the CLI and the tests agree on them.

    data/
      raw/<upload>/                  untouched uploads (never written)
      work/<upload>/inventory.json   raw_uploads: every file with size, sha256, kind
      work/<upload>/audio.jsonl      normalized_audio: one row per recording (NormalizedAudio)
      work/<upload>/audio/<conv>.wav normalized 24 kHz 16-bit PCM, unredacted: private, never published
      work/<upload>/alignments/<conv>.json  word timings from transcription, unredacted: private
      work/<upload>/report.json      per-upload report: files the pipeline could not use, with reasons
      work/<upload>/speech_report.json     transcripts, text_import, tagged_turns issues and counts (a section each)
      work/<upload>/redaction_report.json  redacted_manifest issues and counts
      work/<upload>/synth_report.json      synth: rendered, cached, and why text conversations stayed text
      work/<upload>/ledger/<stage>.jsonl   a stage's ledger: per item its key, outputs or failure (core.stage)
      work/<upload>/.writer.lock     the upload's writer lock and lease (vak_pipeline.writers)
      work/.publish.lock             the publish writer lock and lease
      work/<upload>/transcripts.jsonl  transcripts: per conversation ASR words per speaker
      work/<upload>/text_records.jsonl  text import (in tagged_turns): records of the upload's text sources
      work/<upload>/conversations.jsonl tagged_turns: canonical records before redaction
      work/<upload>/redacted.jsonl   redacted_manifest: canonical records after redaction
      work/<upload>/synthesized.jsonl  synth: the redacted records, text-only ones with rendered audio
      work/<upload>/names/<source>.json  private map: public (PII-free) ids and file names -> raw names
      work/<upload>/synth/<conv>.json  synth: surrogates spoken for placeholders (fake values), voices, cache key
      work/<upload>/release/         the upload's files as a release holds them (the redaction and synth
                                     stages' output and cache): audio/<conv>.wav with PII masked,
                                     alignments/<conv>.json with PII words replaced, redactions/<conv>.json
      audio/<conv_id>.wav            published audio of a RELEASED record (placed into the candidate by
      alignments/<conv_id>.json      publish, swapped in by `release`); word timings (schema.Alignment)
      redactions/<conv_id>.json      redaction logs (schema.RedactionLog)
      vakforge.jsonl                 validated_manifest: valid records only
      vakforge.schema.json           exported JSON Schema
      reports/                       rejected rows, check reports, steward report
      reports/validation.jsonl       every validation issue of the last validated_manifest run
      reports/duplicates.json        duplicate groups left out by content, per pair of uploads (identity)
      reports/steward/index.html     the steward report (and report.md, summary.json, charts)
      .publish_done.json             the key of the last successful publish run (vak run)
      splits.json                    splits
      exports/<recipe>/              recipe outputs
      work/.identity/content.sqlite  content index: exact keys and fingerprints of every conversation (identity)
      work/.release-candidate/       the next release (manifest, schema, splits, reports, exports), built
                                     by the publish assets and swapped in whole by `release`; a blocked
                                     candidate stays here with verdict.json saying why

The release is what `vak validate data/` and every consumer read: vakforge.jsonl, its schema, splits.json
(and its index), audio/, alignments/, redactions/, reports/ and exports/. `DataLayout.candidate()` is the
same layout with those files in the candidate folder. Records store paths relative to their release root
(`audio/<conv>.wav`): resolve them against `release_root`, never `root`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import overload

# every top-level entry of a release: `promote` swaps exactly these (an entry the new release lacks goes)
RECORD_FILE_DIRS = ("audio", "alignments", "redactions")  # per-conversation files, named by records
RELEASE_ITEMS = ("vakforge.jsonl", "vakforge.schema.json", "splits.json", ".splits.json.sqlite", *RECORD_FILE_DIRS,
                 "reports", "exports")


class _Under:
    """A path property of the layout: another of its paths (`base`: root, release_root, reports ...) joined
    with `parts`, so each file is named once, in a table that reads like the tree above."""

    def __init__(self, base: str, *parts: str) -> None:
        self.base, self.parts = base, parts

    @overload
    def __get__(self, layout: None, owner: type | None = None) -> _Under: ...

    @overload
    def __get__(self, layout: DataLayout, owner: type | None = None) -> Path: ...

    def __get__(self, layout: DataLayout | None, owner: type | None = None) -> Path | _Under:
        return self if layout is None else getattr(layout, self.base).joinpath(*self.parts)


def _in_work(*parts: str) -> Callable[[DataLayout, str], Path]:
    """A per-upload path method of the layout: work/<upload>/<parts>."""

    def path(self: DataLayout, upload: str) -> Path:
        return self.work(upload).joinpath(*parts)

    return path


@dataclass(frozen=True)
class DataLayout:
    root: Path
    release_dir: Path | None = None  # where the dataset-level files live; None = root (the published release)

    @classmethod
    def at(cls, root: str | Path | DataLayout) -> DataLayout:
        return root if isinstance(root, DataLayout) else cls(Path(root))

    # --- releases
    @property
    def release_root(self) -> Path:
        return self.release_dir or self.root

    candidate_dir = _Under("root", "work", ".release-candidate")

    def candidate(self) -> DataLayout:
        """This layout with the release files in the candidate folder (what the publish assets write)."""
        return DataLayout(self.root, self.candidate_dir)

    def published(self) -> DataLayout:
        return DataLayout(self.root)

    def final(self, path: Path) -> Path:
        """Where a file of this layout's release will be read once released: a candidate's files move to the
        data root with `release` (what asset metadata links to, so the links stay true after the swap)."""
        path = Path(path)
        if self.is_candidate and path.is_relative_to(self.release_root):
            return (self.root / path.relative_to(self.release_root)).resolve()
        return path.resolve()

    @property
    def is_candidate(self) -> bool:
        return self.release_dir is not None

    release_verdict = _Under("release_root", "verdict.json")

    # written before a release swap starts, removed after it ends: a crash in between is finished later
    release_journal = _Under("root", "work", ".release-swap.json")
    # every conversation ever indexed by content (identity.ContentIndex): duplicates across deliveries
    content_index = _Under("root", "work", ".identity", "content.sqlite")
    # what earlier publishes checked and built, by content: file digests, audio checks, export shards
    publish_cache = _Under("root", "work", ".publish")
    line_facts = _Under("publish_cache", "lines.sqlite")  # per manifest line, by its bytes (rules.line_facts)
    shard_plans = _Under("publish_cache", "plans.sqlite")  # the exports' shared shard cut (recipes.incremental)
    split_rows = _Under("publish_cache", "splits.sqlite")  # split summaries per chunk of lines (splits.manifest_rows)
    previous_release_dir = _Under("root", "work", ".release-previous")
    blocked_candidates_dir = _Under("root", "work", ".release-blocked")  # every blocked candidate's verdict + report

    # --- inputs
    raw = _Under("root", "raw")

    def upload_dir(self, upload: str) -> Path:
        return self.raw / upload

    def uploads(self) -> list[str]:
        """Upload folders under raw/, sorted; hidden folders ignored."""
        if not self.raw.is_dir():
            return []
        return sorted(p.name for p in self.raw.iterdir() if p.is_dir() and not p.name.startswith("."))

    # --- per-upload work files
    def work(self, upload: str) -> Path:
        return self.root / "work" / upload

    inventory = _in_work("inventory.json")

    def name_map(self, upload: str, source: str = "audio") -> Path:
        """work/<upload>/names/<source>.json: the private map from public names back to raw ones (vak lookup)."""
        return self.work(upload) / "names" / f"{source}.json"

    audio_index = _in_work("audio.jsonl")
    upload_report = _in_work("report.json")
    transcripts = _in_work("transcripts.jsonl")
    text_records = _in_work("text_records.jsonl")
    conversations = _in_work("conversations.jsonl")
    redacted = _in_work("redacted.jsonl")
    synthesized = _in_work("synthesized.jsonl")

    def synth_sidecar(self, upload: str, conv_id: str) -> Path:
        return self.work(upload) / "synth" / f"{conv_id}.json"

    def manifest_input(self, upload: str) -> Path:
        """What validation reads for an upload: the synth stage's output once it ran, else the redacted records."""
        synth = self.synthesized(upload)
        return synth if synth.is_file() else self.redacted(upload)

    # --- per-upload stage state and reports (every file a stage reads or writes is named here)
    speech_report = _in_work("speech_report.json")
    redaction_report = _in_work("redaction_report.json")
    synth_report = _in_work("synth_report.json")

    def stage_ledger(self, upload: str, stage: str) -> Path:
        return self.work(upload) / "ledger" / f"{stage}.jsonl"

    def stage_reports(self, upload: str) -> list[Path]:
        """Every report file of the upload's stages (what `vak run` shows problems from)."""
        return [self.upload_report(upload), self.speech_report(upload), self.redaction_report(upload),
                self.synth_report(upload)]

    writer_lock = _in_work(".writer.lock")
    publish_lock = _Under("root", "work", ".publish.lock")

    # --- private per-conversation files: unredacted, under work/, never referenced by the manifest
    def normalized_audio_rel(self, upload: str, conv_id: str) -> str:
        return f"work/{upload}/audio/{conv_id}.wav"

    def work_alignment_rel(self, upload: str, conv_id: str) -> str:
        return f"work/{upload}/alignments/{conv_id}.json"

    def work_alignment(self, upload: str, conv_id: str) -> Path:
        return self.root / self.work_alignment_rel(upload, conv_id)

    # --- an upload's per-conversation release files, kept privately until a release places them
    def release_files(self, upload: str) -> Path:
        """work/<upload>/release/: this upload's records' files under the paths records store (audio/<conv>.wav,
        ...). Only a release that keeps the record links them into its tree (release.place_record_files)."""
        return self.work(upload) / "release"

    # --- released per-conversation files (paths relative to the release root are what records store)
    audio_dir = _Under("release_root", "audio")

    def audio_rel(self, conv_id: str) -> str:
        return f"audio/{conv_id}.wav"

    def published_audio(self, conv_id: str) -> Path:
        return self.release_root / self.audio_rel(conv_id)

    def alignment_rel(self, conv_id: str) -> str:
        return f"alignments/{conv_id}.json"

    def alignment(self, conv_id: str) -> Path:
        return self.release_root / self.alignment_rel(conv_id)

    def redaction_rel(self, conv_id: str) -> str:
        return f"redactions/{conv_id}.json"

    # --- dataset-level outputs
    manifest = _Under("release_root", "vakforge.jsonl")
    schema = _Under("release_root", "vakforge.schema.json")
    splits = _Under("release_root", "splits.json")
    splits_index = _Under("release_root", ".splits.json.sqlite")  # its SQLite index (splits.store.index_path)
    reports = _Under("release_root", "reports")
    rejected = _Under("reports", "rejected.jsonl")
    duplicates_report = _Under("reports", "duplicates.json")
    validation_report = _Under("reports", "validation.jsonl")
    steward_dir = _Under("reports", "steward")
    steward_html = _Under("steward_dir", "index.html")
    steward_json = _Under("steward_dir", "report.json")
    exports = _Under("release_root", "exports")
    # a candidate's clips by content (sha256), linked by every export that cuts the same one; never released
    shared_clips = _Under("release_root", ".shared-clips")
    publish_marker = _Under("root", ".publish_done.json")

    def export_dir(self, recipe: str) -> Path:
        return self.exports / recipe


DataRoot = str | Path | DataLayout  # what the library's entry points accept as a data directory
