"""The data steward's report: what is in the dataset, what was kept out and why, and whether to release.

data/reports/steward/: index.html (one page, PNG charts embedded), report.md, report.json (the same
numbers, machine-readable), summary.json, quality.csv and the PNG files. Sections: release verdict, the
funnel per upload and in total (report.funnel), every dropped file and rejected row with its uploaded
file, line and fix, quality per recording (quality.recordings), turn-taking per split and locale
(report.turntaking), counts by locale, source, consent, licence, split and language (normalized to the
locale pack's tags), redactions by PII type (types and counts only, never values), duration charts.
Audio and text are counted apart: a ticket's timestamps span hours but are not audio, and a chat
message is not a spoken turn. A conversation counts by what was uploaded (`rules.origin.record_kind`):
a chat or ticket the synth stage rendered as a call is a text conversation, its audio counted apart as
synthesized, and it is left out of quality per recording and of the turn-taking totals (its timing is
synth's gap model, shown apart and labelled so). Each section links to its asset in the Dagster UI.
One streamed pass over the manifest for the counters (plus the funnel's own pass).
"""

from __future__ import annotations

import base64
import bisect
import contextlib
import csv
import functools
import hashlib
import io
import itertools
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from ..layout import DataLayout, DataRoot
from ..manifest_hash import manifest_hash
from ..quality.recordings import METRICS, QualityIndex, QualityThresholds, RecordingQuality, recording_quality
from ..recipes.common import export_warnings
from ..release import ReleaseVerdict, read_verdict
from ..rules.origin import record_kind, synthesized_audio
from ..schema import RedactionLog, VakRecord
from ..speech.cleanup import cleanup_counts
from ..splits import DEFAULT_RATIOS, SplitStore, check_manifest, open_splits
from ..storage import atomic_open, atomic_write_bytes, atomic_write_json, atomic_write_text, iter_jsonl, resolve_inside
from .chart_cache import ChartCache
from .funnel import STAGES, SYNTH_STAGES, TEXT_STAGES, Funnel, UploadFunnel, build_funnel
from .turntaking import MEASURES, GroupStats, TurnTaking, TurnTakingSettings, add_record

# bump when the report for the same inputs would change (its code_version): 2 from a template; 3 long words
# wrap, the identity section; 4 charts laid out with fixed margins (no tight_layout)
REPORT_VERSION = "4"
CONV_EDGES = [0, 15, 30, 60, 120, 180, 300, 600, 900, 1800, 3600]
TURN_EDGES = [0, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60]
last_charts: dict[str, int] = {}  # the latest report's charts: drawn by matplotlib, reused from the store


class ReportSettings(BaseModel):
    """What shapes the report beyond the data: quality thresholds, turn-taking definitions, UI links, caps."""

    quality: QualityThresholds = Field(default_factory=QualityThresholds)
    turn_taking: TurnTakingSettings = Field(default_factory=TurnTakingSettings)
    dagster_url: str = Field(default_factory=lambda: os.environ.get("VAK_DAGSTER_URL", "http://localhost:3000"),
                             description="the Dagster UI the page links to (runs, assets, partitions); "
                                         "default $VAK_DAGSTER_URL or http://localhost:3000")
    rows_cap: int = 100  # rejected rows and drops listed in the page; the full lists are files
    run_id: str | None = None  # the Dagster run that builds the report (the page links to it)
    measure_snr: bool = True


@dataclass
class Histogram:
    edges: list[float]
    counts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.counts = [0] * len(self.edges)  # last bin is open-ended

    def add(self, value: float) -> None:
        self.counts[max(0, bisect.bisect_right(self.edges, value) - 1)] += 1

    def labels(self) -> list[str]:
        out = [f"{_num(a)}–{_num(b)}" for a, b in zip(self.edges, self.edges[1:], strict=False)]
        return out + [f"≥{_num(self.edges[-1])}"]


def _num(x: float) -> str:
    return f"{x:g}"


@functools.lru_cache(maxsize=4096)
def normalize_lang(tag: str | None, locale: str | None) -> str:
    """A language tag at the level of its locale pack (en-GB, en-IN, en under an English pack: en)."""
    from ..locales.registry import PACKS

    if not tag:
        return "(none)"
    base = "hi-Latn" if tag.startswith("hi-Latn") else tag.split("-")[0]
    pack = PACKS.get(locale or "")
    if pack is None:
        return base
    return base if base in pack.languages else tag


@dataclass
class StewardSummary:
    manifest_hash: str | None = None
    generated_at: str = ""
    conversations: int = 0
    with_audio: int = 0
    text_conversations: int = 0
    audio_hours: float = 0.0
    synthesized: int = 0  # text conversations with synthesized audio (also in text_conversations)
    synthesized_hours: float = 0.0
    turns: int = 0  # spoken turns of audio conversations (speech)
    text_messages: int = 0  # message turns of text conversations (no speech, no duration)
    tool_calls: int = 0
    by: dict[str, Counter] = field(
        default_factory=lambda: {
            k: Counter()
            for k in (
                "locale",
                "source",
                "consent",
                "license",
                "split",
                "language",
                "language.primary",
                "turn language",
                "pii_redacted",
                "kind",
            )
        }
    )
    rejected_rows: int = 0
    rejected_by_rule: Counter = field(default_factory=Counter)
    rejected_by_family: Counter = field(default_factory=Counter)
    redactions_by_type: Counter = field(default_factory=Counter)
    audio_masks: Counter = field(default_factory=Counter)
    redaction_logs_missing: int = 0
    unreadable_lines: int = 0
    conv_hist: Histogram = field(default_factory=lambda: Histogram(CONV_EDGES))  # audio conversations only
    turn_hist: Histogram = field(default_factory=lambda: Histogram(TURN_EDGES))  # spoken turns only
    splits_warnings: list[str] = field(default_factory=list)
    held_out: int = 0
    splits_errors: int = 0
    splits_stale: bool = False
    quality: list[RecordingQuality] = field(default_factory=list)
    turn_taking: TurnTaking = field(default_factory=TurnTaking)
    speech_cleanup: Counter = field(default_factory=Counter)  # cross-talk, bleed, hallucinations, diarizers
    # "locale" / "source" -> value -> split -> conversations (a value in one split only is a training warning)
    by_split: dict[str, dict[str, Counter]] = field(default_factory=lambda: {"locale": {}, "source": {}})
    audio_by_split: Counter = field(default_factory=Counter)  # real recordings per split
    verified_by_split: Counter = field(default_factory=Counter)  # ... of which a human reviewed (verified_by_human)
    split_names: list[str] = field(default_factory=list)  # the splits splits.json declares (ratios), in order

    def as_dict(self) -> dict[str, Any]:
        return {
            "manifest_hash": self.manifest_hash,
            "generated_at": self.generated_at,
            "conversations": self.conversations,
            "with_audio": self.with_audio,
            "text_conversations": self.text_conversations,
            "audio_hours": round(self.audio_hours, 4),
            "synthesized": self.synthesized,
            "synthesized_hours": round(self.synthesized_hours, 4),
            "turns": self.turns,
            "spoken_turns": self.turns,
            "text_messages": self.text_messages,
            "tool_calls": self.tool_calls,
            "by": {k: dict(v.most_common()) for k, v in self.by.items()},
            "rejected_rows": self.rejected_rows,
            "rejected_by_rule": dict(self.rejected_by_rule.most_common()),
            "rejected_by_family": dict(self.rejected_by_family.most_common()),
            "redactions_by_type": dict(self.redactions_by_type.most_common()),
            "audio_masks": dict(self.audio_masks),
            "redaction_logs_missing": self.redaction_logs_missing,
            "unreadable_lines": self.unreadable_lines,
            "held_out": self.held_out,
            "conversation_duration_s": dict(zip(self.conv_hist.labels(), self.conv_hist.counts, strict=True)),
            "turn_duration_s": dict(zip(self.turn_hist.labels(), self.turn_hist.counts, strict=True)),
            "splits_warnings": self.splits_warnings,
            "splits_errors": self.splits_errors,
            "splits_stale": self.splits_stale,
            "speech_cleanup": dict(self.speech_cleanup.most_common()),
            "human_verified_by_split": {k: {"recordings": n, "verified": self.verified_by_split[k],
                                            "share": round(self.verified_by_split[k] / n, 4)}
                                        for k, n in sorted(self.audio_by_split.items()) if n},
        }


class Verdict(BaseModel):
    """The steward's reading of a candidate: a view of its `release.ReleaseVerdict` (the one verdict model:
    what the release step decided, verdict.json) joined with what this report found, built only by `of`.
    release: nothing for a steward to look at; review: data was left out or flagged; blocked: do not train."""

    status: Literal["release", "review", "blocked"]
    reasons: list[str] = Field(default_factory=list)
    found: list[str] = Field(default_factory=list, description="the report's own findings, blocking ones first "
                                                               "(the reasons without the release step's)")

    @classmethod
    def of(cls, release: ReleaseVerdict | None, blocking: list[str], review: list[str]) -> Verdict:
        """Blocked when the release step blocked the candidate (its reasons first) or `blocking` is not empty."""
        decided = blocked_reasons(release) if release is not None and release.status == "blocked" else []
        blocked = decided + blocking
        return cls(status="blocked" if blocked else "review" if review else "release",
                   reasons=blocked + review, found=blocking + review)


def _in_out_dir(name: str) -> property:
    """A file of the report, named once: read as an attribute of the written report."""
    return property(lambda self: self.out_dir / name)


@dataclass
class StewardReport:
    out_dir: Path
    summary: StewardSummary
    funnel: Funnel | None = None
    verdict: Verdict | None = None

    html = _in_out_dir("index.html")
    markdown = _in_out_dir("report.md")
    json = _in_out_dir("report.json")
    summary_json = _in_out_dir("summary.json")
    quality_csv = _in_out_dir("quality.csv")


def summarize(data_root: DataRoot, settings: ReportSettings | None = None) -> StewardSummary:
    """One streamed pass over the manifest, the rejected rows and the redaction logs."""
    settings = settings or ReportSettings(measure_snr=False)
    layout = DataLayout.at(data_root)
    s = StewardSummary(generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    with contextlib.ExitStack() as closing:
        splits = open_splits(layout.splits)
        if splits is not None:
            closing.callback(splits.close)
            s.splits_warnings = list(splits.header.warnings)
            s.held_out = splits.count("held_out")
            s.split_names = [n for n, r in (splits.header.ratios or DEFAULT_RATIOS).items() if r > 0]
        _summarize_manifest(layout, splits, s, settings)
        s.splits_warnings += export_warnings(layout)  # empty exports and parts (build.json `warnings`)
        if splits is not None and layout.manifest.exists():
            s.splits_stale = splits.header.manifest_hash != s.manifest_hash
            s.splits_errors = sum(1 for i in check_manifest(layout.manifest, splits, layout.split_rows)
                                  if i.severity.value == "ERROR")  # summaries kept by each line's bytes
    if layout.rejected.exists():
        for jl in iter_jsonl(layout.rejected):
            if jl.value is None:
                continue
            s.rejected_rows += 1
            for issue in jl.value.get("issues") or []:
                if isinstance(issue, dict):
                    s.rejected_by_rule[str(issue.get("code", "?"))] += 1
                    s.rejected_by_family[str(issue.get("family", "?"))] += 1
    return s


def _split_label(splits: SplitStore | None, conv_id: str) -> str:
    if splits is None:
        return "(no splits.json)"
    return splits.split_of(conv_id) or ("held_out" if splits.held_out_reason(conv_id) is not None else "(unassigned)")


SUMMARY_FACTS_VERSION = "1"  # bump when what `_record_facts` holds, or how the summary reads it, changes


def _summarize_manifest(
    layout: DataLayout, splits: SplitStore | None, s: StewardSummary, settings: ReportSettings
) -> None:
    """Each record's share of the counters, kept by its line's bytes (`core.keyed_store.LineChunks`: after a
    delivery only its lines are validated), added up in manifest order with the splits looked up a batch at a
    time. Quality and turn-taking read a recording's whole record, so those lines are validated every time."""
    if not layout.manifest.exists():
        return
    from ..core.keyed_store import KeyedStore, LineChunks
    from ..locales.registry import packs_fingerprint
    from ..schema.record import SCHEMA_VERSION

    s.manifest_hash = manifest_hash(layout.manifest)
    index = QualityIndex(layout)
    with KeyedStore.open(layout.line_facts, "report_summary") as store:
        chunks = LineChunks(store, f"{SUMMARY_FACTS_VERSION}:{SCHEMA_VERSION}:{packs_fingerprint()}", _line_facts)
        lines = chunks.values(iter_jsonl(layout.manifest, parse=False), lambda jl: jl.raw or b"")
        while batch := list(itertools.islice(lines, 2000)):
            ids = [f[1] for jl, f in batch if jl.error is None and f[0] == "ok"]
            assigned = splits.get_many("assignment", ids) if splits is not None else {}
            for jl, facts in batch:
                if jl.error is not None or facts[0] != "ok":
                    s.unreadable_lines += 1
                    continue
                split = assigned.get(facts[1]) or _split_label(splits, facts[1])
                _add_facts(layout, s, facts, split, jl.raw, index, settings)


def _line_facts(raw: bytes) -> list[Any]:
    """A line's share of the summary as JSON: ["ok", id, ...] (`_record_facts`), or ["unreadable"]."""
    try:
        return _record_facts(VakRecord.model_validate_json(raw))
    except ValidationError:
        return ["unreadable"]


def _record_facts(record: VakRecord) -> list[Any]:
    m = record.meta
    audio = record_kind(record) == "audio"  # a real recording; synthesized audio belongs to a text conversation
    synthesized = synthesized_audio(record)
    turns = [t for t in record.turns if t.is_spoken]
    return ["ok", record.id, cleanup_counts(m), audio, synthesized,
            [record.locale, m.source, m.consent, m.license or "(none)", record.language.primary,
             normalize_lang(record.language.primary, record.locale), str(m.pii_redacted).lower()],
            bool(m.transcription is not None and m.transcription.verified_by_human),
            record.audio.duration_s if record.audio is not None else None,
            sum(1 for t in record.turns if t.tool_call is not None),
            [max(0.0, t.end - t.start) for t in turns] if audio else [],
            [normalize_lang(t.lang, record.locale) for t in turns] if audio else [],
            len(turns), m.redaction_log]


def _add_facts(layout: DataLayout, s: StewardSummary, facts: list[Any], split: str, raw: bytes | None,
               index: QualityIndex, settings: ReportSettings) -> None:
    """One record's facts (`_record_facts`) added to the summary."""
    (_, _id, cleanup, audio, synthesized, (locale, source, consent, license_, primary, language, pii), verified,
     duration, tool_calls, turn_lengths, turn_langs, spoken, redaction_log) = facts
    s.conversations += 1
    s.speech_cleanup.update(cleanup)
    for key, value in (
        ("locale", locale),
        ("source", source),
        ("consent", consent),
        ("license", license_),
        ("language.primary", primary),
        ("language", language),
        ("pii_redacted", pii),
        ("split", split),
        ("kind", "audio" if audio else "text (synthesized audio)" if synthesized else "text"),
    ):
        s.by[key][value] += 1
    for key, value in (("locale", locale), ("source", source)):
        s.by_split[key].setdefault(value, Counter())[split] += 1
    if audio:
        s.audio_by_split[split] += 1
        if verified:
            s.verified_by_split[split] += 1
        s.with_audio += 1
        s.audio_hours += duration / 3600
        s.conv_hist.add(duration)
    else:
        s.text_conversations += 1
        if synthesized and duration is not None:
            s.synthesized += 1
            s.synthesized_hours += duration / 3600
    s.tool_calls += tool_calls
    if audio:
        s.turns += spoken
        for length, lang in zip(turn_lengths, turn_langs, strict=True):
            s.turn_hist.add(length)
            s.by["turn language"][lang] += 1
    else:
        s.text_messages += spoken
    if (audio or synthesized) and raw is not None:
        d = VakRecord.model_validate_json(raw).dump()
        q = recording_quality(d, index, settings.quality, measure_snr=settings.measure_snr)
        if q is not None:  # real recordings only
            s.quality.append(q)
        add_record(s.turn_taking, d, split, settings.turn_taking)  # a synthesized call goes apart
    if redaction_log:
        _count_redactions(layout.release_root, redaction_log, s)


def _count_redactions(root: Path, rel: str, s: StewardSummary) -> None:
    path = resolve_inside(root, rel)
    if path is None or not path.is_file():
        s.redaction_logs_missing += 1
        return
    try:
        log = RedactionLog.model_validate_json(path.read_bytes())
    except ValidationError:
        s.redaction_logs_missing += 1
        return
    for span in log.spans:
        s.redactions_by_type[span.type] += 1  # the type only: the log holds no values, and we print none
        if span.audio is not None:
            s.audio_masks[span.audio.method] += 1


def blocked_reasons(release: ReleaseVerdict) -> list[str]:
    """The verdict lines of a blocked candidate: its root causes, and that the published release is unchanged."""
    return [f"not released: {r}" for r in release.reasons] + [
        "the published release in data/ is unchanged; this candidate is kept in "
        "work/.release-candidate/ (see " + ", ".join(release.where or ["verdict.json"]) + ")"]


def release_verdict(s: StewardSummary, funnel: Funnel, release: ReleaseVerdict | None = None) -> Verdict:
    """Blocked when a blocking check stopped this candidate (`release`, from verdict.json) or there is nothing
    sound to train on; review when anything was left out or flagged."""
    blocked, review = [], []
    if s.manifest_hash is None or s.conversations == 0:
        blocked.append("the manifest is missing or holds no valid conversation")
    if s.by["split"].get("(no splits.json)"):
        blocked.append("splits.json is missing")
    if s.splits_stale and not (release is not None and release.status == "blocked"):  # a consequence of a block
        blocked.append("splits.json was built from another manifest: re-materialize splits")
    if s.splits_errors:
        blocked.append(f"{s.splits_errors} split error(s): a speaker in two splits or an unassigned conversation")
    drops = [d for d in funnel.total.drops if d.stage not in ("valid", "published")]
    if drops:
        review.append(
            f"{len({d.file for d in drops})} uploaded file(s) with {len(drops)} drop(s) before "
            "validation (see Dropped files)"
        )
    if s.rejected_rows:
        review.append(f"{s.rejected_rows} row(s) rejected by validation (see Rejected rows)")
    if s.held_out:
        review.append(f"{s.held_out} conversation(s) held out of every split")
    flagged = [q for q in s.quality if q.flags]
    if flagged:
        review.append(f"{len(flagged)} recording(s) outside the quality thresholds (see Quality)")
    if s.unreadable_lines:
        blocked.append(f"{s.unreadable_lines} unreadable manifest line(s)")
    return Verdict.of(release, blocked, review)


def hms(seconds: float | None) -> str:
    """A duration a person reads: h:mm:ss (0:01:20), never fractional hours."""
    if seconds is None:
        return ""
    total = int(round(seconds))
    return f"{total // 3600}:{total % 3600 // 60:02d}:{total % 60:02d}"


def training_warnings(s: StewardSummary) -> list[str]:
    """What changes what may be trained on: a split with no real audio, a locale or source in one split only,
    a mix of consents or licences (each use must be allowed by every one of them)."""
    out = []
    splits = s.split_names or [k for k in s.by["split"] if not k.startswith("(") and k != "held_out"]
    if s.with_audio:
        where = ", ".join(f"{n} in {k}" for k, n in s.audio_by_split.most_common())
        for name in splits:
            if not s.audio_by_split.get(name):
                out.append(f"{name} holds no real audio: all {s.with_audio} real recording(s) are elsewhere ({where}); "
                           f"a speech model trained on {name} never hears a real call")
    if len(splits) > 1:
        for key in ("locale", "source"):
            for value, per in sorted(s.by_split[key].items()):
                present = [k for k in per if k in splits]
                if len(present) == 1:
                    out.append(f"{key} {value} is only in {present[0]} ({per[present[0]]} conversations): it cannot "
                               "be both trained on and evaluated")
    for key, label in (("consent", "consents"), ("license", "licences")):
        if len(s.by[key]) > 1:
            mix = ", ".join(f"{k} x{v}" for k, v in s.by[key].most_common())
            out.append(f"the release mixes {len(s.by[key])} {label} ({mix}): a use must be allowed by each of them")
    return out


def _line_digests(manifest: Path) -> set[bytes]:
    """The digests of a manifest's lines (as iter_jsonl reads them): what two manifests hold alike."""
    if not manifest.is_file():
        return set()
    return {hashlib.blake2b(jl.raw, digest_size=16).digest() for jl in iter_jsonl(manifest, parse=False) if jl.raw}


def _conversation_index(manifest: Path, skip: set[bytes] | None = None,
                        seen: set[bytes] | None = None) -> dict[str, tuple[str, str, float]]:
    """conv id -> (upload, source, real audio seconds) of a manifest's lines whose digest is not in `skip`
    (lines the other manifest holds byte for byte: neither added nor removed); `seen` gets every line's digest.

    A light JSON pass (issue 34: the report compares two whole manifests): only the lines that differ are
    parsed, and the model validates only a line whose id, source or duration is not of its type; a line the
    model refuses is left out, as before. Ids are unique in a validated manifest, so an id on a line both
    hold is on no other line."""
    from ..rules.origin import record_origin
    from ..schema import VakRecord

    out: dict[str, tuple[str, str, float]] = {}
    if not manifest.is_file():
        return out
    for jl in iter_jsonl(manifest, parse=False):
        if not jl.raw:
            continue
        digest = hashlib.blake2b(jl.raw, digest_size=16).digest()
        if seen is not None:
            seen.add(digest)
        if skip is not None and digest in skip:
            continue
        try:
            value = json.loads(jl.raw)
        except ValueError:
            continue
        if not _light_fields_ok(value):
            try:
                value = VakRecord.model_validate(value).model_dump(mode="json") if isinstance(value, dict) else None
            except ValidationError:
                value = None
        if value is None:
            continue
        secs = float(value["audio"]["duration_s"]) if record_kind(value) == "audio" else 0.0
        out[value["id"]] = (record_origin(value).upload or "(unknown)", value["meta"]["source"], secs)
    return out


def _light_fields_ok(value: Any) -> bool:
    """The fields `_conversation_index` reads are there with their types (a validated manifest's line)."""
    if not isinstance(value, dict) or not isinstance(value.get("id"), str) or not value["id"]:
        return False
    meta, audio = value.get("meta"), value.get("audio")
    if not isinstance(meta, dict) or not isinstance(meta.get("source"), str):
        return False
    if audio is None:
        return True
    return isinstance(audio, dict) and isinstance(audio.get("duration_s"), int | float) \
        and not isinstance(audio.get("duration_s"), bool)


def release_changes(layout: DataLayout) -> dict[str, Any]:
    """What this (candidate) release adds and removes against the published one, by upload and source."""
    published = layout.published()
    if not layout.is_candidate or not published.manifest.is_file():
        return {"previous_manifest_hash": None, "rows": []}
    before = _line_digests(published.manifest)
    now: set[bytes] = set()
    new = _conversation_index(layout.manifest, skip=before, seen=now)
    old = _conversation_index(published.manifest, skip=now)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for ids, here, sign in ((new.keys() - old.keys(), new, "added"), (old.keys() - new.keys(), old, "removed")):
        for cid in ids:
            upload, source, secs = here[cid]
            r = rows.setdefault((upload, source), {"upload": upload, "source": source, "added": 0, "removed": 0,
                                                   "added_s": 0.0, "removed_s": 0.0})
            r[sign] += 1
            r[f"{sign}_s"] += secs
    return {"previous_manifest_hash": manifest_hash(published.manifest),
            "rows": [rows[k] for k in sorted(rows)]}


# ---------------------------------------------------------------- charts


def _png(fig: Any) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def _trim(labels: list[str], counts: list[int]) -> tuple[list[str], list[int]]:
    """The bins from the first to the last non-empty one: bins fit the data."""
    nz = [i for i, c in enumerate(counts) if c]
    if not nz:
        return [], []
    return labels[nz[0]:nz[-1] + 1], counts[nz[0]:nz[-1] + 1]


def _chart_specs(s: StewardSummary) -> list[dict[str, Any]]:
    """What every chart plots (data only, JSON): a chart is drawn from its spec alone, so its spec is its key."""
    specs: list[dict[str, Any]] = []

    def bar(name: str, caption: str, labels: list[str], values: list[int], xlabel: str, section: str) -> None:
        if any(values):
            specs.append({"kind": "bar", "name": name, "caption": caption, "section": section, "xlabel": xlabel,
                          "labels": list(labels), "values": list(values)})

    for name, caption, hist in (
        ("conversation_durations.png", "Recording duration, seconds (real recordings)", s.conv_hist),
        ("turn_durations.png", "Spoken turn duration, seconds (real recordings)", s.turn_hist),
    ):
        bar(name, caption, *_trim(hist.labels(), hist.counts), "seconds", "charts")
    for name, caption, key, xlabel in (
        ("language_mix.png", "Language mix (spoken turns, pack language)", "turn language", "language"),
        ("locales.png", "Conversations by locale", "locale", "locale"),
    ):
        top = s.by[key].most_common(20)
        bar(name, caption, [k for k, _ in top], [v for _, v in top], xlabel, "charts")
    for measure, title in (
        ("gap_s", "Gaps between turns"),
        ("overlap_s", "Overlaps"),
        ("agent_latency_s", "Agent response latency"),
        ("turn_length_s", "Turn length"),
    ):
        groups = [(n, g.dist[measure]) for n, g in sorted(s.turn_taking.by_split.items()) if g.dist[measure].count]
        if not groups:
            continue
        specs.append({"kind": "hist", "name": f"turn_taking_{measure}.png", "section": "turn-taking",
                      "caption": f"{title} by split, seconds (real recordings)", "xlabel": "seconds",
                      "groups": [[n, d.count, [[x, c] for x, c in d.values()]] for n, d in groups]})
    return specs


def _draw(spec: dict[str, Any]) -> bytes:
    """One chart's PNG from its spec. The caption is the figure's only title (the page prints it once, under
    the image); count axes are integers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(8, 3.2), dpi=100)
    rotated = spec["kind"] == "bar" and len(spec["labels"]) > 6
    # fixed margins, not tight_layout (which measures every label by drawing the figure once more): room for
    # the y tick labels, the axis labels and, under a bar chart with many labels, labels turned 35 degrees
    fig.subplots_adjust(left=0.09, right=0.98, top=0.96, bottom=0.28 if rotated else 0.16)
    if spec["kind"] == "bar":
        labels, values = spec["labels"], spec["values"]
        ax.bar(range(len(values)), values, color="#4C72B0")
        ax.set_xticks(range(len(values)), labels, rotation=35 if rotated else 0,
                      ha="right" if rotated else "center", fontsize=8)
    else:
        # the binned values, expanded back to points at their bin centres, binned again to fit the data
        points = {n: np.repeat([x for x, _ in vals], [c for _, c in vals]) for n, _count, vals in spec["groups"]}
        every = np.concatenate(list(points.values()))
        edges = np.histogram_bin_edges(every, bins=min(20, max(3, int(np.sqrt(every.size)))))
        ax.hist([points[n] for n, _c, _v in spec["groups"]], bins=edges,
                label=[f"{n} (n={count})" for n, count, _v in spec["groups"]])
        ax.legend(fontsize=8)
    ax.set_xlabel(spec["xlabel"])
    ax.set_ylabel("count")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return _png(fig)


def _charts(s: StewardSummary, out: Path, cache: ChartCache | None = None) -> list[tuple[str, str, str]]:
    """(file name, caption, section id) of every PNG chart written; a chart with no data is not drawn, and one
    whose plotted data, REPORT_VERSION and matplotlib are those of a stored chart is copied from `cache`."""
    cache = cache or ChartCache(None, REPORT_VERSION)
    made: list[tuple[str, str, str]] = []
    for stale in out.glob("*.png"):  # a chart dropped since the last build must not linger
        stale.unlink()
    for spec in _chart_specs(s):
        atomic_write_bytes(out / spec["name"], cache.png(spec, _draw))
        made.append((spec["name"], spec["caption"], spec["section"]))
    return made


# ---------------------------------------------------------------- sections

# section id -> (title, Dagster asset keys it is about)
SECTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "verdict": ("Release verdict", ("steward_report",)),
    "overview": ("Overview", ("validated_manifest",)),
    "funnel": (
        "Funnel",
        (
            "raw_uploads",
            "normalized_audio",
            "transcripts",
            "tagged_turns",
            "redacted_manifest",
            "validated_manifest",
            "splits",
        ),
    ),
    "uploads": ("Per upload", ("raw_uploads", "redacted_manifest")),
    "dropped": ("Dropped files and rows", ("normalized_audio", "transcripts", "tagged_turns", "redacted_manifest")),
    "identity": ("Duplicates, erasure, text kept as text", ("validated_manifest", "synth")),
    "rejected": ("Rejected rows", ("validated_manifest",)),
    "quality": ("Quality per recording", ("normalized_audio", "transcripts")),
    "turn-taking": ("Turn-taking", ("tagged_turns", "splits")),
    "breakdowns": ("Breakdowns", ("validated_manifest", "splits")),
    "privacy": ("Redactions", ("redacted_manifest",)),
    "review": ("Human review", ("review_tasks", "tagged_turns")),
    "charts": ("Charts", ("validated_manifest",)),
}


def asset_url(base: str, key: str, checks: bool = False) -> str:
    return f"{base.rstrip('/')}/assets/{key}" + ("?view=checks" if checks else "")


def _rejected_rows(layout: DataLayout, cap: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if not layout.rejected.exists():
        return rows
    for jl in iter_jsonl(layout.rejected):
        if len(rows) >= cap:
            break
        v = jl.value
        if not isinstance(v, dict):
            continue
        issues = [i for i in v.get("issues") or [] if isinstance(i, dict)]
        first = next((i for i in issues if i.get("severity", "ERROR") == "ERROR"), issues[0] if issues else {})
        rows.append(
            {
                "file": v.get("file"),
                "line": v.get("line"),
                "record_id": v.get("record_id"),
                "rule": first.get("code"),
                "family": first.get("family"),
                "turn": first.get("turn_index"),
                "field": first.get("field"),
                "message": first.get("message"),
                "fix": first.get("fix"),
                "issues": len(issues),
            }
        )
    return rows


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _funnel_rows(funnel: Funnel) -> list[list[Any]]:
    t = funnel.total
    rows = []
    for st in STAGES:
        a = t.audio.get(st)
        rows.append(
            [
                st,
                a.recordings if a else "",
                "" if a is None or a.hours is None else hms(a.hours * 3600),
                t.text.get(st, "") if st in TEXT_STAGES else "n/a",
            ]
            + _synth_cells(t, st)
        )
        if st == "redacted":  # the synth stage runs between redaction and validation
            rows.append(["synthesized", "n/a", "n/a", "n/a"] + _synth_cells(t, "synthesized"))
    return rows


def _synth_cells(u: UploadFunnel, stage: str) -> list[Any]:
    a = u.synthesized.get(stage)
    return ["", ""] if a is None else [a.recordings, hms((a.hours or 0.0) * 3600)]


def upload_rows(funnel: Funnel) -> list[list[Any]]:
    """The funnel per upload and in total, one row per upload in UPLOAD_COLUMNS (the report's table and the
    steward_report asset's metadata)."""
    rows = []
    for u in funnel.uploads + [funnel.total]:
        rows.append(
            [u.upload, u.files]
            + [u.audio[st].recordings for st in STAGES]
            + [hms((u.audio["decoded"].hours or 0.0) * 3600), hms((u.audio["published"].hours or 0.0) * 3600)]
            + [u.text[st] for st in TEXT_STAGES]
            + [u.synthesized[st].recordings for st in SYNTH_STAGES]
            + [hms((u.synthesized["published"].hours or 0.0) * 3600)]
            + [len(u.drops)]
        )
    return rows


UPLOAD_COLUMNS = (
    ["upload", "files"]
    + [f"audio {st}" for st in STAGES]
    + ["audio decoded (h:mm:ss)", "audio published (h:mm:ss)"]
    + [f"text {st}" for st in TEXT_STAGES]
    + [f"synthesized {st}" for st in SYNTH_STAGES]
    + ["synthesized published (h:mm:ss)"]
    + ["drops"]
)
DROP_COLUMNS = ("upload", "stage", "file", "line", "record_id", "code", "message", "fix")
REJECTED_COLUMNS = ("file", "line", "record_id", "rule", "family", "turn", "field", "message", "fix", "issues")
QUALITY_COLUMNS = ("conv_id", "file", "locale", "duration_s") + METRICS + ("flags",)


def _tt_rows(groups: dict[str, GroupStats]) -> list[list[Any]]:
    rows = []
    for name, g in sorted(groups.items()):
        d = g.summary()
        rows.append(
            [
                name,
                d["conversations"],
                d["spoken_turns"],
                d["gaps"],
                d["overlaps"],
                d["interruptions"],
                d["backchannels"],
            ]
            + [f"{_fmt(d[m]['p10'])} / {_fmt(d[m]['p50'])} / {_fmt(d[m]['p90'])}" for m in MEASURES]
        )
    return rows


TT_COLUMNS = ["group", "conversations", "spoken turns", "gaps", "overlaps", "interruptions", "backchannels"] + [
    f"{m} p10/p50/p90" for m in MEASURES
]


def _tables(
    s: StewardSummary, funnel: Funnel, verdict: Verdict, layout: DataLayout, settings: ReportSettings
) -> dict[str, list[tuple[str, list[str], list[list[Any]], str]]]:
    """section id -> [(caption, columns, rows, note)]: the one description HTML and Markdown render."""
    cap = settings.rows_cap
    overview = [
        ["audio conversations (real recordings)", s.with_audio],
        ["audio duration, h:mm:ss (real recordings)", hms(s.audio_hours * 3600)],
        ["spoken turns (real recordings only)", s.turns],
        ["text conversations", s.text_conversations],
        ["  of which with synthesized audio (synth stage)", s.synthesized],
        ["  synthesized audio, h:mm:ss", hms(s.synthesized_hours * 3600)],
        ["text messages (not speech)", s.text_messages],
        ["tool calls", s.tool_calls],
        ["conversations in the manifest", s.conversations],
        ["rejected rows", s.rejected_rows],
        ["held out by splits", s.held_out],
        ["unreadable manifest lines", s.unreadable_lines],
        ["redaction logs missing/unreadable", s.redaction_logs_missing],
    ]
    drops = funnel.total.drops
    by_reason = funnel.total.drops_by_reason()
    flagged = [q for q in s.quality if q.flags]
    out: dict[str, list[tuple[str, list[str], list[list[Any]], str]]] = {
        "verdict": [("", ["status", "reason"], [[verdict.status, r] for r in verdict.reasons], "")],
        "overview": [("Audio and text are counted apart", ["", "count"], overview, "")],
        "funnel": [
            (
                "Total",
                [
                    "stage",
                    "audio recordings",
                    "audio (h:mm:ss)",
                    "text conversations",
                    "of which synthesized audio",
                    "synthesized (h:mm:ss)",
                ],
                _funnel_rows(funnel),
                "in: files received; decoded: audio normalized; transcribed: ASR done; turns: canonical "
                "records; redacted: PII redacted; synthesized: text conversations the synth stage rendered as "
                "calls; valid: in vakforge.jsonl; published: assigned to a split. Audio columns are real "
                "recordings only; a synthesized call stays a text conversation.",
            ),
            (
                "Published by split",
                [
                    "split",
                    "audio recordings",
                    "audio (h:mm:ss)",
                    "text conversations",
                    "of which synthesized",
                    "synthesized (h:mm:ss)",
                ],
                [
                    [
                        k,
                        v["audio"],
                        hms(v["audio_hours"] * 3600),
                        v["text"],
                        v["synthesized"],
                        hms(v["synthesized_hours"] * 3600),
                    ]
                    for k, v in sorted(funnel.total.published_by_split.items())
                ],
                "",
            ),
            ("Drops by reason", ["reason", "count"], [[k, v] for k, v in by_reason.items()], ""),
        ],
        "uploads": [("", UPLOAD_COLUMNS, upload_rows(funnel), "")],
        "dropped": [
            (
                f"{len(drops)} drop(s) in {len({d.file for d in drops})} uploaded file(s)",
                list(DROP_COLUMNS),
                [[getattr(d, c) for c in DROP_COLUMNS] for d in drops[:cap]],
                f"showing {min(cap, len(drops))} of {len(drops)}; all of them in report.json (funnel.drops)",
            )
        ],
        "rejected": [
            (
                f"{s.rejected_rows} rejected row(s)",
                list(REJECTED_COLUMNS),
                [[r[c] for c in REJECTED_COLUMNS] for r in _rejected_rows(layout, cap)],
                f"showing at most {cap}; the full list: {_final_path(layout, layout.rejected)}",
            ),
            ("By rule", ["rule", "count"], [list(x) for x in s.rejected_by_rule.most_common()], ""),
            ("By family", ["family", "count"], [list(x) for x in s.rejected_by_family.most_common()], ""),
        ],
        "quality": [
            (
                f"{len(flagged)} of {len(s.quality)} recording(s) flagged",
                list(QUALITY_COLUMNS),
                [[q.row()[c] for c in QUALITY_COLUMNS] for q in s.quality[:cap]],
                "thresholds: "
                + ", ".join(f"{k}={v}" for k, v in settings.quality.model_dump().items())
                + "; all recordings in quality.csv. Cross-talk and hallucination drops are empty when the "
                "speech stage did not measure them.",
            ),
            (
                "Speech clean-up: cross-talk, bleed, hallucinations, diarizers",
                ["what", "count"],
                [list(x) for x in s.speech_cleanup.most_common()],
                "words kept out of the turns because they were the other channel heard through the line (bleed), "
                "segments dropped as invented on silence, noise or music, and which diarizer mono calls got",
            ),
        ],
        "turn-taking": [
            ("By split", TT_COLUMNS, _tt_rows(s.turn_taking.by_split), "real recordings only; times in seconds"),
            ("By locale", TT_COLUMNS, _tt_rows(s.turn_taking.by_locale), ""),
            ("All", TT_COLUMNS, _tt_rows({"all": s.turn_taking.total}), ""),
            (
                "Synthesized calls (synth's settings, not data)",
                TT_COLUMNS,
                _tt_rows({"synthesized": s.turn_taking.synthesized}) if s.turn_taking.synthesized.conversations else [],
                "chats and tickets the synth stage rendered as calls: their timing is synth's gap model; "
                "never in the rows above",
            ),
        ],
        "breakdowns": [
            (f"By {k}", [k, "count"], [list(x) for x in s.by[k].most_common()], "")
            for k in (
                "split",
                "kind",
                "locale",
                "source",
                "consent",
                "license",
                "pii_redacted",
                "language",
                "language.primary",
                "turn language",
            )
        ]
        + ([("Split warnings", ["warning"], [[w] for w in s.splits_warnings], "")] if s.splits_warnings else []),
        "privacy": [
            (
                "Redactions by PII type",
                ["type", "count"],
                [list(x) for x in s.redactions_by_type.most_common()],
                "types and counts only; never values",
            ),
            ("Audio masks by method", ["method", "count"], [list(x) for x in s.audio_masks.most_common()], ""),
        ],
    }
    out["identity"] = _identity_tables(layout, funnel)
    out["review"] = _review_tables(layout, funnel, s, cap)
    # no empty tables, no empty sections (the verdict section always stays: the page opens with it)
    return {sid: kept for sid, parts in out.items()
            if (kept := [p for p in parts if p[2]]) or sid == "verdict"}


def _review_tables(layout: DataLayout, funnel: Funnel, s: StewardSummary, cap: int
                   ) -> list[tuple[str, list[str], list[list[Any]], str]]:
    """How much of each split a human verified, and every correction that no longer fits (never applied)."""
    from .stage_reports import stage_issues

    shares = [[k, n, s.verified_by_split[k], f"{100 * s.verified_by_split[k] / n:.1f}%"]
              for k, n in sorted(s.audio_by_split.items()) if n] if s.verified_by_split else []
    unfit = [[u.upload, si.issue.code, si.issue.record_id or "(erased)", si.issue.message, si.issue.fix]
             for u in funnel.uploads for si in stage_issues(layout, u.upload) if si.issue.family == "review"]
    return [
        ("Human-verified recordings by split", ["split", "audio recordings", "human-verified", "share"], shares,
         "a recording whose review (vak review import) was applied: meta.transcription.verified_by_human"),
        (f"{len(unfit)} review correction(s) not applied", ["upload", "code", "record", "why", "fix"], unfit[:cap],
         "corrections whose turn, audio or conversation is gone; they stay in work/review/corrections.jsonl"),
    ]


def _identity_tables(layout: DataLayout, funnel: Funnel) -> list[tuple[str, list[str], list[list[Any]], str]]:
    """Duplicate groups left out (reports/duplicates.json), erasure requests (the ledger: references and counts,
    never values), what ingest refused as erased, and the text conversations synth kept as text, by reason."""
    from ..erasure.verify import summary as erasure_summary
    from .stage_reports import stage_issues

    try:
        dups = json.loads(layout.duplicates_report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        dups = {"groups": []}
    erased = erasure_summary(layout)
    refused: Counter = Counter()
    for upload in (u.upload for u in funnel.uploads):
        for si in stage_issues(layout, upload):
            if si.issue.code in ("audio_erased", "record_erased"):
                refused[(upload, si.issue.code)] += 1
    kept_text = [[u.upload, reason, n] for u in funnel.uploads for reason, n in sorted(u.stayed_text.items())]
    return [
        ("Duplicates left out (the first delivery is released)", ["kept from upload", "copies in upload", "kind",
                                                                   "copies", "audio (h:mm:ss)"],
         [[g["kept_upload"], g["upload"], g["kind"].replace("_", " "), g["copies"], hms(g["hours"] * 3600)]
          for g in dups.get("groups", [])], "exact or near (fingerprint) audio, exact or near (MinHash) text; "
         "every copy is in reports/rejected.jsonl as duplicate_of its kept conversation"),
        ("Erasure requests", ["reference", "carried out", "selector", "conversations", "audio (h:mm:ss)"],
         [[e["reference"], e["at"], e["selector"], e["conversations"], hms(e["hours"] * 3600)]
          for e in erased["by_reference"]], "from work/erasure/ledger.jsonl: references and counts, never values"),
        ("Refused on ingest as erased (a restored, renamed or re-encoded copy)", ["upload", "what", "count"],
         [[u, "recording" if code == "audio_erased" else "text record", n] for (u, code), n in sorted(refused.items())],
         ""),
        ("Text conversations kept as text (not rendered as calls)", ["upload", "why", "count"], kept_text,
         "over_budget / upload_chose_none: the upload's synth choice in upload.yaml (docs/synth.md)"),
    ]


def _markdown(
    s: StewardSummary, verdict: Verdict, tables: dict, charts: list[tuple[str, str, str]], settings: ReportSettings
) -> str:
    def cell(v: Any) -> str:
        return _fmt(v).replace("|", "/").replace("\n", " ")

    lines = [
        "# Steward report",
        "",
        f"Generated at {s.generated_at}. Manifest sha256: `{s.manifest_hash}`.",
        "",
        f"**Release verdict: {verdict.status}**",
        "",
    ]
    for sid, parts in tables.items():
        title, assets = SECTIONS[sid]
        links = ", ".join(f"[{a}]({asset_url(settings.dagster_url, a)})" for a in assets)
        lines += [f"## {title}", "", f"Dagster: {links}", ""]
        for caption, cols, rows, note in parts:
            if caption:
                lines += [f"### {caption}", ""]
            lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
            lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows] or [
                "| " + " | ".join(["(none)"] + [""] * (len(cols) - 1)) + " |"
            ]
            lines += (["", f"_{note}_"] if note else []) + [""]
    lines += ["## Charts", ""] + [f"![{t}]({n})" for n, t, _ in charts]
    return "\n".join(lines) + "\n"


PAGE_DATA = "page.json"  # what index.html is rendered from: re-rendered when the release step decides
PARTITIONED = frozenset({"raw_uploads", "normalized_audio", "transcripts", "tagged_turns", "redacted_manifest"})


_CLOCK = re.compile(r"\d+:\d\d:\d\d")


def _cell(v: Any) -> dict[str, Any]:
    """A table cell; numbers and h:mm:ss durations align right."""
    num = (isinstance(v, int | float) and not isinstance(v, bool)) or (isinstance(v, str) and bool(_CLOCK.fullmatch(v)))
    return {"v": _fmt(v), "num": num}


def _page_data(s: StewardSummary, funnel: Funnel, verdict: Verdict, tables: dict, charts: list[tuple[str, str, str]],
               layout: DataLayout, settings: ReportSettings) -> dict[str, Any]:
    """Everything the page shows, as JSON: the status block is added when the page is rendered."""
    sections = []
    for sid, (title, assets) in SECTIONS.items():
        parts = [{"caption": c, "columns": list(cols), "rows": [[_cell(v) for v in r] for r in rows], "note": note}
                 for c, cols, rows, note in tables.get(sid, [])]
        figs = [{"file": n, "caption": t} for n, t, sec in charts if sec == sid]
        if parts or figs or sid == "verdict":
            sections.append({"id": sid, "title": title, "assets": list(assets), "tables": parts, "charts": figs})
    return {
        "generated_at": s.generated_at, "manifest_hash": s.manifest_hash, "run_id": settings.run_id,
        "dagster_url": settings.dagster_url, "uploads": [u.upload for u in funnel.uploads],
        "verdict": verdict.model_dump(mode="json"), "warnings": training_warnings(s),
        "changes": release_changes(layout), "sections": sections,
    }


def render_page(data_root: DataRoot, out_dir: str | Path | None = None) -> Path:
    """(Re-)render index.html from page.json and the release's verdict files; returns its path."""
    import json

    import jinja2

    layout = DataLayout.at(data_root)
    out = Path(out_dir) if out_dir is not None else layout.steward_dir
    page = json.loads((out / PAGE_DATA).read_text(encoding="utf-8"))
    from .status import release_status

    status = release_status(layout, page["manifest_hash"], out)
    for sec in page["sections"]:
        for ch in sec["charts"]:
            ch["data"] = base64.b64encode((out / ch["file"]).read_bytes()).decode("ascii")
    base = page["dagster_url"].rstrip("/")
    headline = {
        "live": "LIVE: this release is published",
        "blocked": "BLOCKED: this candidate was not released",
        "candidate": "CANDIDATE: built, not (yet) released",
        "superseded": "SUPERSEDED: another release is live",
    }[status.headline]
    env = jinja2.Environment(loader=jinja2.PackageLoader("vak_pipeline.report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    shown = page["verdict"]["reasons"]
    if status.headline == "blocked":  # the causes are listed above them already
        shown = [r for r in shown if not r.startswith("not released: ")]
    html_text = env.get_template("steward.html.j2").render(
        page=page, status=status, headline_text=headline, hms=hms, shown=shown,
        run_url=lambda run_id: f"{base}/runs/{run_id}",
        asset_url=lambda key, checks=False: asset_url(base, key, checks),
        a_partitions=lambda key: [{"name": u, "url": f"{asset_url(base, key)}?partition={u}"}
                                  for u in page["uploads"]] if key in PARTITIONED else [],
    )
    atomic_write_text(out / "index.html", html_text)
    return out / "index.html"


def _write_quality_csv(path: Path, quality: list[RecordingQuality]) -> None:
    with atomic_open(path, "w") as fh:
        w = csv.DictWriter(fh, fieldnames=list(RecordingQuality.model_fields), lineterminator="\n")
        w.writeheader()
        for q in quality:
            w.writerow({k: _fmt(v) for k, v in q.row().items()})


def _final_path(layout: DataLayout, path: Path) -> Path:
    """Where a release file will be read: a candidate's files move to data/ when it is released."""
    verdict = read_verdict(layout)
    return path.resolve() if verdict is not None and verdict.status == "blocked" else layout.final(path)


def build_steward_report(
    data_root: DataRoot, out_dir: str | Path | None = None, settings: ReportSettings | None = None
) -> StewardReport:
    """Write index.html, report.md, report.json, summary.json, quality.csv and the PNG charts."""
    settings = settings or ReportSettings()
    layout = DataLayout.at(data_root)
    out = Path(out_dir) if out_dir is not None else layout.steward_dir
    out.mkdir(parents=True, exist_ok=True)
    s = summarize(data_root, settings)
    with contextlib.ExitStack() as closing:
        splits = open_splits(layout.splits)
        if splits is not None:
            closing.callback(splits.close)
        funnel = build_funnel(layout, splits)
    verdict = release_verdict(s, funnel, read_verdict(layout))
    chart_cache = ChartCache(layout.publish_cache / "report_charts", REPORT_VERSION)
    charts = _charts(s, out, chart_cache)
    chart_cache.close()
    last_charts.clear()
    last_charts.update(drawn=chart_cache.drawn, reused=chart_cache.reused)
    tables = _tables(s, funnel, verdict, layout, settings)
    report = StewardReport(out, s, funnel, verdict)
    atomic_write_text(report.markdown, _markdown(s, verdict, tables, charts, settings))
    atomic_write_json(out / PAGE_DATA, _page_data(s, funnel, verdict, tables, charts, layout, settings))
    render_page(layout, out)
    atomic_write_json(report.summary_json, s.as_dict())
    _write_quality_csv(report.quality_csv, s.quality)
    atomic_write_json(
        report.json,
        {
            "generated_at": s.generated_at,
            "manifest_hash": s.manifest_hash,
            "verdict": verdict.model_dump(mode="json"),
            "training_warnings": training_warnings(s),
            "summary": s.as_dict(),
            "funnel": funnel.as_dict(),
            "quality": {
                "thresholds": settings.quality.model_dump(mode="json"),
                "flagged": sum(1 for q in s.quality if q.flags),
                "recordings": [q.model_dump(mode="json") for q in s.quality],
            },
            "turn_taking": s.turn_taking.as_dict(),
            "rejected_rows": {
                "count": s.rejected_rows,
                "path": str(_final_path(layout, layout.rejected)),
                "shown": _rejected_rows(layout, settings.rows_cap),
            },
            "links": {
                sid: [asset_url(settings.dagster_url, a) for a in assets] for sid, (_t, assets) in SECTIONS.items()
            },
        },
    )
    return report


def summary_markdown(s: StewardSummary, limit: int = 8) -> str:
    """A short Markdown digest for Dagster metadata."""

    def top(c: Counter) -> str:
        return ", ".join(f"{k} {v}" for k, v in c.most_common(limit)) or "none"

    return "\n".join(
        [
            f"**{s.conversations} conversations**: {s.with_audio} recordings ({hms(s.audio_hours * 3600)}, "
            f"{s.turns} spoken "
            f"turns), {s.text_conversations} text conversations ({s.text_messages} messages; {s.synthesized} with "
            f"synthesized audio, {hms(s.synthesized_hours * 3600)})",
            f"- splits: {top(s.by['split'])}",
            f"- locales: {top(s.by['locale'])}",
            f"- consent: {top(s.by['consent'])}",
            f"- rejected rows: {s.rejected_rows} ({top(s.rejected_by_rule)})",
            f"- redactions: {top(s.redactions_by_type)}",
            f"- languages: {top(s.by['language'])}",
            f"- flagged recordings: {sum(1 for q in s.quality if q.flags)} of {len(s.quality)}",
        ]
    )


__all__ = [
    "ReportSettings",
    "StewardReport",
    "StewardSummary",
    "Verdict",
    "build_steward_report",
    "hms",
    "render_page",
    "training_warnings",
    "normalize_lang",
    "release_verdict",
    "summarize",
    "summary_markdown",
]
