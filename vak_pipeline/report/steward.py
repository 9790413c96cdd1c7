"""The data steward's report: what is in the dataset and what was kept out, in one page.

data/reports/steward/index.html, report.md and PNG charts: counts by locale, source, consent, licence
and split; rejected rows by rule (reports/rejected.jsonl); redactions by PII type (redaction logs —
types and counts only, never values); conversation and turn duration histograms; language mix.
One streamed pass over the manifest keeping only counters and binned histograms.
"""

from __future__ import annotations

import bisect
import contextlib
import html
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..layout import DataLayout
from ..manifest_hash import manifest_hash
from ..recipes.common import iter_records
from ..schema import RedactionLog
from ..splits import SplitStore, open_splits
from ..storage import atomic_write_bytes, atomic_write_json, atomic_write_text, iter_jsonl, resolve_inside

CONV_EDGES = [0, 15, 30, 60, 120, 180, 300, 600, 900, 1800, 3600]
TURN_EDGES = [0, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60]


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


@dataclass
class StewardSummary:
    manifest_hash: str | None = None
    conversations: int = 0
    with_audio: int = 0
    audio_hours: float = 0.0
    turns: int = 0
    tool_calls: int = 0
    by: dict[str, Counter] = field(default_factory=lambda: {k: Counter() for k in (
        "locale", "source", "consent", "license", "split", "language.primary", "turn language", "pii_redacted")})
    rejected_rows: int = 0
    rejected_by_rule: Counter = field(default_factory=Counter)
    rejected_by_family: Counter = field(default_factory=Counter)
    redactions_by_type: Counter = field(default_factory=Counter)
    audio_masks: Counter = field(default_factory=Counter)
    redaction_logs_missing: int = 0
    unreadable_lines: int = 0
    conv_hist: Histogram = field(default_factory=lambda: Histogram(CONV_EDGES))
    turn_hist: Histogram = field(default_factory=lambda: Histogram(TURN_EDGES))
    splits_warnings: list[str] = field(default_factory=list)
    held_out: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "manifest_hash": self.manifest_hash, "conversations": self.conversations, "with_audio": self.with_audio,
            "audio_hours": round(self.audio_hours, 4), "turns": self.turns, "tool_calls": self.tool_calls,
            "by": {k: dict(v.most_common()) for k, v in self.by.items()},
            "rejected_rows": self.rejected_rows, "rejected_by_rule": dict(self.rejected_by_rule.most_common()),
            "rejected_by_family": dict(self.rejected_by_family.most_common()),
            "redactions_by_type": dict(self.redactions_by_type.most_common()),
            "audio_masks": dict(self.audio_masks), "redaction_logs_missing": self.redaction_logs_missing,
            "unreadable_lines": self.unreadable_lines, "held_out": self.held_out,
            "conversation_duration_s": dict(zip(self.conv_hist.labels(), self.conv_hist.counts, strict=True)),
            "turn_duration_s": dict(zip(self.turn_hist.labels(), self.turn_hist.counts, strict=True)),
            "splits_warnings": self.splits_warnings,
        }


@dataclass
class StewardReport:
    out_dir: Path
    summary: StewardSummary

    @property
    def html(self) -> Path:
        return self.out_dir / "index.html"

    @property
    def markdown(self) -> Path:
        return self.out_dir / "report.md"


def summarize(data_root: str | Path) -> StewardSummary:
    """One streamed pass over the manifest, the rejected rows and the redaction logs."""
    layout = DataLayout.at(data_root)
    s = StewardSummary()
    with contextlib.ExitStack() as closing:
        splits = open_splits(layout.splits)
        if splits is not None:
            closing.callback(splits.close)
            s.splits_warnings = list(splits.header.warnings)
            s.held_out = splits.count("held_out")
        _summarize_manifest(layout, splits, s)
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


def _summarize_manifest(layout: DataLayout, splits: SplitStore | None, s: StewardSummary) -> None:
    if not layout.manifest.exists():
        return
    s.manifest_hash = manifest_hash(layout.manifest)
    for _line, record, _err in iter_records(layout.manifest):
        if record is None:
            s.unreadable_lines += 1
            continue
        s.conversations += 1
        m = record.meta
        for key, value in (("locale", record.locale), ("source", m.source), ("consent", m.consent),
                           ("license", m.license or "(none)"), ("language.primary", record.language.primary),
                           ("pii_redacted", str(m.pii_redacted).lower()),
                           ("split", _split_label(splits, record.id))):
            s.by[key][value] += 1
        spoken_end = max((t.end for t in record.turns), default=0.0)
        if record.audio is not None:
            s.with_audio += 1
            s.audio_hours += record.audio.duration_s / 3600
            s.conv_hist.add(record.audio.duration_s)
        else:
            s.conv_hist.add(spoken_end)
        for t in record.turns:
            if t.tool_call is not None:
                s.tool_calls += 1
            if t.is_spoken:
                s.turns += 1
                s.turn_hist.add(max(0.0, t.end - t.start))
                s.by["turn language"][t.lang or "(none)"] += 1
        if m.redaction_log:
            _count_redactions(layout.root, m.redaction_log, s)


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


def _charts(s: StewardSummary, out: Path) -> list[tuple[str, str]]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made: list[tuple[str, str]] = []

    def bar(name: str, title: str, labels: list[str], values: list[int], xlabel: str) -> None:
        fig, ax = plt.subplots(figsize=(8, 3.2), dpi=100)
        ax.bar(range(len(values)), values, color="#4C72B0")
        ax.set_xticks(range(len(values)), labels, rotation=35, ha="right", fontsize=8)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("count")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        plt.close(fig)
        atomic_write_bytes(out / name, buf.getvalue())
        made.append((name, title))

    bar("conversation_durations.png", "Conversation duration", s.conv_hist.labels(), s.conv_hist.counts, "seconds")
    bar("turn_durations.png", "Spoken turn duration", s.turn_hist.labels(), s.turn_hist.counts, "seconds")
    langs = s.by["turn language"].most_common(20)
    bar("language_mix.png", "Language mix (spoken turns)", [k for k, _ in langs] or ["(none)"],
        [v for _, v in langs] or [0], "turn lang")
    locales = s.by["locale"].most_common(20)
    bar("locales.png", "Conversations by locale", [k for k, _ in locales] or ["(none)"],
        [v for _, v in locales] or [0], "locale")
    return made


def _sections(s: StewardSummary) -> list[tuple[str, list[tuple[str, Any]]]]:
    overview = [("conversations", s.conversations), ("with audio", s.with_audio),
                ("audio hours", round(s.audio_hours, 2)), ("spoken turns", s.turns), ("tool calls", s.tool_calls),
                ("rejected rows", s.rejected_rows), ("held out by splits", s.held_out),
                ("unreadable manifest lines", s.unreadable_lines),
                ("redaction logs missing/unreadable", s.redaction_logs_missing)]
    out = [("Overview", overview)]
    for key in ("split", "locale", "source", "consent", "license", "pii_redacted", "language.primary"):
        out.append((f"By {key}", s.by[key].most_common()))
    out.append(("Rejected rows by rule (issue code)", s.rejected_by_rule.most_common()))
    out.append(("Rejected rows by family", s.rejected_by_family.most_common()))
    out.append(("Redactions by PII type", s.redactions_by_type.most_common()))
    out.append(("Audio masks by method", s.audio_masks.most_common()))
    return out


def _markdown(s: StewardSummary, charts: list[tuple[str, str]]) -> str:
    lines = ["# Steward report", "", f"Manifest sha256: `{s.manifest_hash}`", ""]
    for title, rows in _sections(s):
        lines += [f"## {title}", "", "| | count |", "|---|---|"]
        lines += [f"| {str(k).replace('|', '/')} | {v} |" for k, v in rows] or ["| (none) | 0 |"]
        lines.append("")
    if s.splits_warnings:
        lines += ["## Split warnings", ""] + [f"- {w}" for w in s.splits_warnings] + [""]
    lines += ["## Charts", ""] + [f"![{t}]({n})" for n, t in charts]
    return "\n".join(lines) + "\n"


def _html(s: StewardSummary, charts: list[tuple[str, str]]) -> str:
    e = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>vak steward report</title>",
             "<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;"
             "margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}"
             "td.n{text-align:right}.grid{display:flex;flex-wrap:wrap;gap:2em}</style></head><body>",
             "<h1>Steward report</h1>", f"<p>Manifest sha256: <code>{e(str(s.manifest_hash))}</code></p>",
             "<div class='grid'>"]
    for title, rows in _sections(s):
        body = "".join(f"<tr><td>{e(str(k))}</td><td class='n'>{v}</td></tr>" for k, v in rows) or \
            "<tr><td>(none)</td><td class='n'>0</td></tr>"
        parts.append(f"<section><h2>{e(title)}</h2><table><tr><th></th><th>count</th></tr>{body}</table></section>")
    parts.append("</div>")
    if s.splits_warnings:
        parts.append("<h2>Split warnings</h2><ul>" + "".join(f"<li>{e(w)}</li>" for w in s.splits_warnings) + "</ul>")
    parts.append("<h2>Charts</h2>")
    parts += [f"<figure><img src='{e(n)}' alt='{e(t)}'><figcaption>{e(t)}</figcaption></figure>" for n, t in charts]
    parts.append("</body></html>")
    return "\n".join(parts)


def build_steward_report(data_root: str | Path, out_dir: str | Path | None = None) -> StewardReport:
    """Write index.html, report.md, summary.json and the PNG charts; returns where they are."""
    layout = DataLayout.at(data_root)
    out = Path(out_dir) if out_dir is not None else layout.steward_dir
    out.mkdir(parents=True, exist_ok=True)
    s = summarize(data_root)
    charts = _charts(s, out)
    atomic_write_text(out / "report.md", _markdown(s, charts))
    atomic_write_text(out / "index.html", _html(s, charts))
    atomic_write_json(out / "summary.json", s.as_dict())
    return StewardReport(out, s)


def summary_markdown(s: StewardSummary, limit: int = 8) -> str:
    """A short Markdown digest for Dagster metadata."""
    def top(c: Counter) -> str:
        return ", ".join(f"{k} {v}" for k, v in c.most_common(limit)) or "none"

    return "\n".join([
        f"**{s.conversations} conversations**, {s.with_audio} with audio ({s.audio_hours:.2f} h), {s.turns} turns",
        f"- splits: {top(s.by['split'])}", f"- locales: {top(s.by['locale'])}",
        f"- consent: {top(s.by['consent'])}", f"- rejected rows: {s.rejected_rows} ({top(s.rejected_by_rule)})",
        f"- redactions: {top(s.redactions_by_type)}", f"- turn languages: {top(s.by['turn language'])}",
    ])


__all__ = ["StewardReport", "StewardSummary", "build_steward_report", "summarize", "summary_markdown"]
