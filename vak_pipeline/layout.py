"""Where every stage reads and writes under a data directory (DESIGN.md §2-§3).

One place names the paths so the Dagster assets, the CLI and the tests agree on them.

    data/
      raw/<upload>/                  untouched uploads (never written)
      work/<upload>/inventory.json   raw_uploads: every file with size, sha256, kind
      work/<upload>/audio.jsonl      normalized_audio: one row per recording (NormalizedAudio)
      work/<upload>/audio/<conv>.wav normalized 24 kHz 16-bit PCM, unredacted: private, never published
      work/<upload>/alignments/<conv>.json  word timings from transcription, unredacted: private
      work/<upload>/report.json      per-upload report: files the pipeline could not use, with reasons
      work/<upload>/speech_report.json     transcripts + tagged_turns issues and counts (one section each)
      work/<upload>/redaction_report.json  redacted_manifest issues and counts
      work/<upload>/ledger/<stage>.jsonl   a stage's ledger: per item its key, outputs or failure (core.stage)
      work/<upload>/redaction_state.json   redaction's previous per-record state (read once, then a ledger)
      work/<upload>/ingest_done.json the key of the last successful ingest run of the upload (vak run)
      work/<upload>/transcripts.jsonl  transcripts: per conversation ASR words per speaker
      work/<upload>/conversations.jsonl tagged_turns: canonical records before redaction
      work/<upload>/redacted.jsonl   redacted_manifest: canonical records after redaction
      work/<upload>/synthesized.jsonl  synth: the redacted records, text-only ones with rendered audio
      work/<upload>/synth/<conv>.json  synth: surrogates spoken for placeholders (fake values), voices, cache key
      audio/<conv_id>.wav            published audio: the normalized copy with PII masked (redacted_manifest)
      alignments/<conv_id>.json      published word timings, PII words replaced (schema.Alignment)
      redactions/<conv_id>.json      redaction logs (schema.RedactionLog)
      vakforge.jsonl                 validated_manifest: valid records only
      vakforge.schema.json           exported JSON Schema
      reports/                       rejected rows, check reports, steward report
      reports/validation.jsonl       every validation issue of the last validated_manifest run
      reports/steward/index.html     the steward report (and report.md, summary.json, charts)
      .publish_done.json             the key of the last successful publish run (vak run)
      splits.json                    splits
      exports/<recipe>/              recipe outputs
      work/.release-candidate/       the next release (manifest, schema, splits, reports, exports), built
                                     by the publish assets and swapped in whole by `release`; a blocked
                                     candidate stays here with verdict.json saying why

The release is what `vak validate data/` and every consumer read: vakforge.jsonl, its schema, splits.json
(and its index), reports/ and exports/. `DataLayout.candidate()` is the same layout with those files in
the candidate folder; audio, alignments and redaction logs are shared (conversation ids are unique).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

RELEASE_ITEMS = ("vakforge.jsonl", "vakforge.schema.json", "splits.json", ".splits.json.sqlite", "reports", "exports")


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

    @property
    def candidate_dir(self) -> Path:
        return self.root / "work" / ".release-candidate"

    def candidate(self) -> DataLayout:
        """This layout with the release files in the candidate folder (what the publish assets write)."""
        return DataLayout(self.root, self.candidate_dir)

    def published(self) -> DataLayout:
        return DataLayout(self.root)

    @property
    def is_candidate(self) -> bool:
        return self.release_dir is not None

    @property
    def release_verdict(self) -> Path:
        return self.release_root / "verdict.json"

    @property
    def release_journal(self) -> Path:
        """Written before a release swap starts, removed after it ends: a crash in between is finished later."""
        return self.root / "work" / ".release-swap.json"

    @property
    def previous_release_dir(self) -> Path:
        return self.root / "work" / ".release-previous"

    # --- inputs
    @property
    def raw(self) -> Path:
        return self.root / "raw"

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

    def inventory(self, upload: str) -> Path:
        return self.work(upload) / "inventory.json"

    def audio_index(self, upload: str) -> Path:
        return self.work(upload) / "audio.jsonl"

    def upload_report(self, upload: str) -> Path:
        return self.work(upload) / "report.json"

    def transcripts(self, upload: str) -> Path:
        return self.work(upload) / "transcripts.jsonl"

    def conversations(self, upload: str) -> Path:
        return self.work(upload) / "conversations.jsonl"

    def redacted(self, upload: str) -> Path:
        return self.work(upload) / "redacted.jsonl"

    def synthesized(self, upload: str) -> Path:
        return self.work(upload) / "synthesized.jsonl"

    def synth_sidecar(self, upload: str, conv_id: str) -> Path:
        return self.work(upload) / "synth" / f"{conv_id}.json"

    def manifest_input(self, upload: str) -> Path:
        """What validation reads for an upload: the synth stage's output once it ran, else the redacted records."""
        synth = self.synthesized(upload)
        return synth if synth.is_file() else self.redacted(upload)

    # --- per-upload stage state and reports (every file a stage reads or writes is named here)
    def speech_report(self, upload: str) -> Path:
        return self.work(upload) / "speech_report.json"

    def redaction_report(self, upload: str) -> Path:
        return self.work(upload) / "redaction_report.json"

    def redaction_state(self, upload: str) -> Path:
        return self.work(upload) / "redaction_state.json"

    def stage_ledger(self, upload: str, stage: str) -> Path:
        return self.work(upload) / "ledger" / f"{stage}.jsonl"

    def stage_reports(self, upload: str) -> list[Path]:
        """Every report file of the upload's stages (what `vak run` shows problems from)."""
        return [self.upload_report(upload), self.speech_report(upload), self.redaction_report(upload)]

    def ingest_marker(self, upload: str) -> Path:
        return self.work(upload) / "ingest_done.json"

    # --- private per-conversation files: unredacted, under work/, never referenced by the manifest
    def normalized_audio_rel(self, upload: str, conv_id: str) -> str:
        return f"work/{upload}/audio/{conv_id}.wav"

    def work_alignment(self, upload: str, conv_id: str) -> Path:
        return self.work(upload) / "alignments" / f"{conv_id}.json"

    # --- published per-conversation files (paths relative to root are what records store)
    @property
    def audio_dir(self) -> Path:
        return self.root / "audio"

    def audio_rel(self, conv_id: str) -> str:
        return f"audio/{conv_id}.wav"

    def published_audio(self, conv_id: str) -> Path:
        return self.root / self.audio_rel(conv_id)

    def alignment(self, conv_id: str) -> Path:
        return self.root / "alignments" / f"{conv_id}.json"

    def redaction_rel(self, conv_id: str) -> str:
        return f"redactions/{conv_id}.json"

    # --- dataset-level outputs
    @property
    def manifest(self) -> Path:
        return self.release_root / "vakforge.jsonl"

    @property
    def schema(self) -> Path:
        return self.release_root / "vakforge.schema.json"

    @property
    def splits(self) -> Path:
        return self.release_root / "splits.json"

    @property
    def reports(self) -> Path:
        return self.release_root / "reports"

    @property
    def rejected(self) -> Path:
        return self.reports / "rejected.jsonl"

    @property
    def validation_report(self) -> Path:
        return self.reports / "validation.jsonl"

    @property
    def steward_dir(self) -> Path:
        return self.reports / "steward"

    @property
    def steward_html(self) -> Path:
        return self.steward_dir / "index.html"

    @property
    def publish_marker(self) -> Path:
        return self.root / ".publish_done.json"

    def export_dir(self, recipe: str) -> Path:
        return self.release_root / "exports" / recipe


DataRoot = str | Path | DataLayout  # what the library's entry points accept as a data directory
