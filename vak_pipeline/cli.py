"""`vak`: the command line. Every command but `run` works without Dagster; imports stay lazy."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="vak_pipeline: voice-agent training data.")


@app.command()
def schema(out: Path = typer.Option(Path("data/vakforge.schema.json"), help="Where to write the JSON Schema.")) -> None:
    """Write vakforge.schema.json, generated from the pydantic models."""
    from .schema import write_json_schema

    write_json_schema(out)
    typer.echo(f"wrote {out}")


@app.command()
def validate(
    path: Path = typer.Argument(..., help="A vakforge.jsonl manifest, or a dataset directory holding one."),
    fmt: str = typer.Option("text", "--format", help="text (for people) or json (one issue object per line)."),
    audio: bool = typer.Option(True, help="Open every audio file and check rate, channels and duration."),
    pii: bool = typer.Option(True, help="Re-check pii_redacted rows with the locale pack's PII scanner."),
    allow_unconsented: bool = typer.Option(False, help="Let consent: none through (never for published data)."),
    splits: Path | None = typer.Option(None, help="splits.json to check (default: beside the manifest, if any)."),
    max_line_bytes: int = typer.Option(64 * 1024 * 1024, help="Longest line accepted; longer ones are errors."),
) -> None:
    """Validate a manifest against every rule of the format. Exit 0 valid, 1 invalid, 2 usage error."""
    from .rules import ManifestSummary, Severity, ValidationContext, validate_manifest

    if fmt not in ("text", "json"):
        raise typer.BadParameter("--format must be text or json")
    from .layout import DataLayout

    manifest = DataLayout.at(path).manifest if path.is_dir() else path
    if not manifest.is_file():
        typer.echo(f"error: {manifest} does not exist (give a vakforge.jsonl or a directory holding one)", err=True)
        raise typer.Exit(2)
    ctx = ValidationContext(base_dir=manifest.parent, check_audio=audio, check_pii=pii,
                            allow_unconsented=allow_unconsented)
    summary = ManifestSummary()
    errors = 0
    for result in validate_manifest(manifest, ctx, splits_path=splits, max_line_bytes=max_line_bytes,
                                    summary=summary):
        for issue in result.issues:
            errors += issue.severity is Severity.ERROR
            if fmt == "json":
                typer.echo(issue.model_dump_json(exclude_none=True))
            else:
                typer.echo(issue.render())
    if fmt == "text":
        typer.echo(f"{manifest}: {summary.records} records, {summary.valid} valid, {summary.invalid} invalid"
                   + (f"; issues: {dict(sorted(summary.issues_by_code.items()))}" if summary.issues_by_code else ""))
    raise typer.Exit(1 if errors else 0)


@app.command()
def run(
    data: str = typer.Option("data", "--data", help="Dataset directory (uploads under DATA/raw/<upload>/), or an "
                                                    "fsspec URL such as s3://bucket/dataset (worked on in a local "
                                                    "mirror; needs the backend, e.g. pip install s3fs)."),
    upload: list[str] = typer.Option(None, "--upload", help="Only these uploads (repeatable); default: all."),
    config: Path | None = typer.Option(None, "--config", help="YAML run config (resources/ops), e.g. whisper model."),
    executor: str = typer.Option("in_process", help="in_process | multiprocess | dask | k8s (see README: scale)."),
    parallel_uploads: int = typer.Option(1, help="Upload partitions run at once (with a non-in_process executor)."),
    log_level: str = typer.Option("CRITICAL", help="Dagster console log level (DEBUG, INFO, WARNING, ERROR). The "
                                               "default shows only this command's own summary; ERROR adds "
                                               "Dagster's step failures with their stack traces."),
    force: bool = typer.Option(False, help="Re-run uploads and publish even when nothing changed."),
    instance: Path | None = typer.Option(None, "--instance", help="Dagster instance directory (a DAGSTER_HOME) "
                                         "for the runs; default: $DAGSTER_HOME when set, else DATA/.dagster "
                                         "(each dataset its own runs in the UI)."),
) -> None:
    """Materialize the whole asset graph with Dagster for DATA and print what it produced and where."""
    import yaml

    from .mirror import is_url, local_root
    from .orchestrate import run_pipeline

    default_signals()

    if not is_url(data) and not (Path(data) / "raw").is_dir():
        typer.echo(f"error: {data}/raw does not exist; put each delivery in {data}/raw/<upload>/", err=True)
        raise typer.Exit(2)
    run_config = yaml.safe_load(config.read_text()) if config else None
    if not is_url(data) and (Path(data) / "locales").is_dir():  # the data's own packs, before the registry loads
        others = [d for d in os.environ.get("VAK_LOCALE_DIRS", "").split(os.pathsep) if d]
        os.environ["VAK_LOCALE_DIRS"] = os.pathsep.join([str((Path(data) / "locales").resolve()), *others])
    try:
        with _progress_bars(enabled=executor == "in_process"):
            report = run_pipeline(data, uploads=upload or None, run_config=run_config, echo=typer.echo,
                                  executor=executor, parallel_uploads=parallel_uploads, log_level=log_level.upper(),
                                  force=force, instance_dir=instance)
    except OSError as exc:
        from .core.os_errors import describe_os_error, is_environment_error

        if not is_environment_error(exc):
            if not isinstance(exc, FileNotFoundError):
                raise
            typer.echo(f"error: {exc}", err=True)  # a URL root: no bucket, no raw/
            raise typer.Exit(2) from exc
        typer.echo(_paragraph(f"error: {describe_os_error(exc, 'running vak run')}"), err=True)
        raise typer.Exit(1) from None
    except (ImportError, ValueError) as exc:  # a URL root: no backend
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    for r in report.runs:
        status = ("unchanged, skipped" if r.skipped else "BLOCKED" if r.failed_checks else "ok" if r.success
                  else "FAILED")
        extra = ""
        if r.errors:
            extra += f" failed steps: {', '.join(r.errors)}"
        if r.failed_checks:
            extra += f" blocking checks failed: {', '.join(r.failed_checks)}"
        run_id = "" if r.skipped else f" (run {r.run_id[:8]})"
        typer.echo(f"{r.name}{'[' + r.partition + ']' if r.partition else ''}: {status}{run_id}{extra}")
        for step, err in r.errors.items():
            typer.echo(f"  {step}: {err}")
    if any(r.errors for r in report.runs):
        typer.echo("  (full stack traces: the run in `dagster dev`, or run again with --log-level ERROR)")
    if is_url(data):
        typer.echo(f"(outputs were pushed to {data}; local mirror below)")
    root = local_root(data)
    if report.release == "blocked":
        publish = report.runs[-1]
        typer.echo(_blocked_paragraph(root, report.blocked_reasons, data_problem=bool(publish.failed_checks)))
    _print_outputs(root, report.release)
    raise typer.Exit(0 if report.success else 1)


def default_signals() -> None:
    """Give SIGINT and SIGTERM back their default actions when this process inherited them ignored.

    A background job of a non-interactive shell (`vak run &`, CI scripts) starts with SIGINT ignored.
    Dagster copies SIGINT's disposition onto SIGTERM after every run, so the compute-log `tail -F`
    processes of later steps would ignore SIGTERM: each step then waits 30 s for its tail, and the tails
    outlive the run holding its stdout. Handlers someone installed on purpose are left alone.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def _progress_bars(enabled: bool) -> Iterator[None]:
    """A rich bar per stage and upload (files, or audio seconds while transcribing) for steps in this process."""
    if not enabled:
        yield
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from . import progress

    tasks: dict[tuple[str, str], Any] = {}
    bars = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed:g}/{task.total:g} "
                    "{task.fields[unit]}"), TimeRemainingColumn(), transient=True)

    def sink(t: progress.Tick) -> None:
        key = (t.stage, t.upload)
        if key not in tasks:
            tasks[key] = bars.add_task(f"{t.stage} {t.upload}", total=t.total or None, unit=t.unit)
        bars.update(tasks[key], completed=t.done, total=t.total or None)

    remove = progress.add_sink(sink)
    try:
        with bars:
            yield
    finally:
        remove()


def _paragraph(text: str) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, 110, break_long_words=False, break_on_hyphens=False))


def _blocked_paragraph(root: Path, reasons: list[str], data_problem: bool = True) -> str:
    """One paragraph: what failed, where the rows are, what to do; the published release is untouched."""
    import textwrap

    from .layout import DataLayout

    layout = DataLayout.at(root)
    cand = layout.candidate()
    where = [str(p) for p in (cand.rejected, cand.steward_html) if p.is_file()]
    published = (f"The published release in {root} is unchanged (manifest, splits, exports and steward report stay "
                 "together)" if layout.manifest.is_file() else f"There is no published release in {root} yet")
    text = (f"Release BLOCKED: {'; '.join(reasons)}. {published}. The candidate and its verdict are kept in "
            f"{cand.release_root}" + (f"; the rows that blocked it, each with its file, line, rule and fix, are in "
                                      f"{where[0]}" if where else "") +
            (f"; its steward report is {where[1]}" if len(where) > 1 else "") +
            (". Fix or remove those rows in the upload (or drop the upload folder), then run `vak run` again."
             if data_problem else ". No row caused this: run again with --log-level ERROR for the stack trace (or "
             "open the run in `dagster dev`), fix the cause, then run `vak run` again."))
    return "\n".join(textwrap.wrap(text, 110, break_long_words=False, break_on_hyphens=False))


def _print_outputs(data: Path, release: str = "unchanged") -> None:
    """What the published release under DATA holds, with counts, so a user knows where to look."""
    from .layout import DataLayout

    layout = DataLayout.at(data)

    def lines(p: Path) -> int:
        with open(p, "rb") as fh:
            return sum(1 for line in fh if line.strip())

    typer.echo({"released": "published release (new):", "blocked": "published release (unchanged, the new "
                "candidate was blocked):"}.get(release, "published release (unchanged, nothing new to publish):"))
    for label, path in (("manifest", layout.manifest), ("rejected rows", layout.rejected),
                        ("schema", layout.schema), ("splits", layout.splits)):
        if path.is_file():
            count = f" ({lines(path)} lines)" if path.suffix == ".jsonl" else ""
            typer.echo(f"  {label:14} {path}{count}")
    exports = layout.exports
    if exports.is_dir():
        for d in sorted(p for p in exports.iterdir() if p.is_dir()):
            n = sum(1 for f in d.rglob("*") if f.is_file())
            typer.echo(f"  export         {d} ({n} files)")
    for upload in layout.uploads():
        problems = upload_problems(layout, upload)
        if problems:
            by_code: dict[str, int] = {}
            for p in problems:
                by_code[p.get("code", "?")] = by_code.get(p.get("code", "?"), 0) + 1
            summary = ", ".join(f"{c} x{n}" for c, n in sorted(by_code.items()))
            typer.echo(f"  upload {upload}: {len(problems)} file(s)/record(s) not used: {summary} "
                       f"(details: {layout.work(upload)}/*report.json)")
    steward = layout.steward_html
    if steward.is_file():
        typer.echo(f"  steward report {steward}")
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            verdict = json.loads(layout.steward_json.read_text(encoding="utf-8"))["verdict"]
            typer.echo(f"  release verdict: {verdict['status']}" + "".join(f"\n    - {r}" for r in verdict["reasons"]))


@app.command("lookup")
def lookup_cmd(conv_id: str = typer.Argument(..., help="A published conversation id (meta, file names, splits)."),
               data: Path = typer.Option(Path("data"), "--data", help="Dataset directory (reads its private work/)."),
               fmt: str = typer.Option("text", "--format", help="text or json (one match per line).")) -> None:
    """Which raw file a published id came from: PII-free ids hide caller names, the private map under
    work/<upload>/names/ keeps them (only someone with access to work/ can read it)."""
    from .uploads.names import lookup

    found = lookup(data, conv_id)
    if not found:
        typer.echo(f"{conv_id}: not in any name map under {data}/work/ (run `vak run --data {data}` first)", err=True)
        raise typer.Exit(1)
    for hit in found:
        if fmt == "json":
            typer.echo(json.dumps({"id": conv_id} | hit, ensure_ascii=False))
        else:
            rec = f" record {hit['record']}" if hit.get("record") else ""
            typer.echo(f"{conv_id}: raw/{hit['upload']}/{hit['file']}{rec} (published as {hit['public_file']})")


@app.command("import-text")
def import_text(upload_dir: Path = typer.Argument(..., help="An upload folder (data/raw/<upload>)."),
                out: Path = typer.Argument(..., help="Canonical JSONL to write.")) -> None:
    """Import the upload's *.aidb.jsonl and *.messages.jsonl files as canonical records."""
    from .sources.text import import_text_upload

    count, issues = import_text_upload(upload_dir, out)
    for i in issues:
        typer.echo(i.render(), err=True)
    errors = sum(1 for i in issues if i.severity.value == "ERROR")
    typer.echo(f"wrote {count} records to {out}; {errors} errors, {len(issues) - errors} warnings")
    raise typer.Exit(1 if errors else 0)


@app.command("locales")
def locales_cmd(fmt: str = typer.Option("text", "--format", help="text (a table) or json (one pack per line).")
                ) -> None:
    """List the locale packs: id, languages, PII types, and the file each came from (docs/locale-packs.md)."""
    from .locales import PACKS

    for p in sorted(PACKS.values(), key=lambda p: p.id):
        if fmt == "json":
            typer.echo(json.dumps({"id": p.id, "languages": list(p.languages), "pii_types": list(p.pii_types),
                                   "source": p.source}))
        else:
            typer.echo(f"{p.id:<11} {','.join(p.languages):<22} {','.join(p.pii_types)}  [{p.source}]")


@app.command("export-aidb")
def export_aidb_cmd(manifest: Path = typer.Argument(..., help="Canonical manifest (vakforge.jsonl)."),
                    out: Path = typer.Argument(..., help="aidb.conversation/1.0 JSONL to write."),
                    parquet: Path | None = typer.Option(None, help="Also write the same layout as Parquet."),
                    dataset: str = typer.Option("vakforge", help="dataset id for records not imported from aidb.")
                    ) -> None:
    """Export a canonical manifest as aidb.conversation/1.0 (JSONL, optionally Parquet)."""
    from .sources.aidb_export import export_aidb

    summary = export_aidb(manifest, out, parquet, dataset)
    for i in summary.issues:
        typer.echo(i.render(), err=True)
    typer.echo(f"wrote {summary.written} records to {out}; refused {summary.refused}")
    raise typer.Exit(1 if summary.refused else 0)


@app.command("inspect")
def inspect_audio(
    path: Path = typer.Argument(..., help="A recording (wav, flac, mp3, ogg, m4a) or a directory of them."),
    fmt: str = typer.Option("table", "--format", help="table (for people) or json (one report per line)."),
) -> None:
    """Measure recordings: rate, channels, duration, levels, silence, clipping, speech per channel."""
    from .audio.inspect import inspect_path

    if fmt not in ("table", "json"):
        raise typer.BadParameter("--format must be table or json")
    if not path.exists():
        typer.echo(f"error: {path} does not exist", err=True)
        raise typer.Exit(2)
    reports, errors = inspect_path(path)
    if fmt == "json":
        import json

        for rep in reports:
            typer.echo(rep.model_dump_json())
        for name, code, message, fix in errors:
            typer.echo(json.dumps({"file": name, "code": code, "message": message, "fix": fix}, ensure_ascii=False))
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table("file", "rate", "ch", "duration", "rms dBFS", "peak dBFS", "silence", "clipping", "speech",
                      "notes")
        for r in reports:
            table.add_row(r.file, str(r.sample_rate), str(r.channels), f"{r.duration_s:.2f}s",
                          " / ".join(f"{v:.1f}" for v in r.rms_dbfs), " / ".join(f"{v:.1f}" for v in r.peak_dbfs),
                          f"{r.silence_ratio:.0%}", f"{r.clipping_ratio:.2%}",
                          " / ".join(f"{v:.0%}" for v in r.speech_ratio), "; ".join(r.notes))
        console = Console()
        console.print(table)
        for name, code, message, fix in errors:
            console.print(f"[red]{name}[/red]: {code}: {message} -> fix: {fix}", markup=True, highlight=False)
    raise typer.Exit(1 if errors else 0)


@app.command()
def split(
    data: Path = typer.Argument(..., help="Dataset directory holding vakforge.jsonl; writes DATA/splits.json."),
    seed: int = typer.Option(1234, help="Seed ordering new groups of conversations (recorded in splits.json)."),
    ratios: str = typer.Option("train=0.8,validation=0.1,test=0.1", help="name=share,... (normalised)."),
    roles: str = typer.Option("agent,user", help="meta.speakers roles that tie conversations together."),
) -> None:
    """Speaker-disjoint splits; conversations already in splits.json never move. Exit 1 on a leak or gap."""
    from .splits import SplitConfig, split_manifest

    try:
        shares = {k.strip(): float(v) for k, v in (p.split("=", 1) for p in ratios.split(",") if p.strip())}
        config = SplitConfig(seed=seed, ratios=shares, roles=[r.strip() for r in roles.split(",") if r.strip()])
    except ValueError as exc:
        raise typer.BadParameter(f"--ratios/--roles: {exc}") from exc
    from .layout import DataLayout

    layout = DataLayout.at(data)
    if not layout.manifest.is_file():
        typer.echo(f"error: {layout.manifest} does not exist", err=True)
        raise typer.Exit(2)
    from .core.erasure import forget_in_splits
    from .identity import split_links

    with split_links(layout.content_index) as links:  # duplicate groups land in one split
        result, issues = split_manifest(layout.manifest, layout.splits, config, links=links,
                                        forget=forget_in_splits(layout.root), cache=layout.split_rows)
    for w in result.warnings:
        typer.echo(f"warning: {w}", err=True)
    for issue in issues:
        typer.echo(issue.render())
    typer.echo(f"wrote {data / 'splits.json'}: {result.counts}")
    raise typer.Exit(1 if any(i.severity.value == "ERROR" for i in issues) else 0)


@app.command("export")
def export_cmd(
    recipe: str = typer.Argument(..., help="moshi_lora | turn_based | cascaded | parquet | duplex_s2s | steward"),
    data: Path = typer.Argument(..., help="Dataset directory holding vakforge.jsonl and splits.json."),
    option: list[str] = typer.Option([], "--option", "-o", help="Recipe setting key=value (JSON values allowed), "
                                                                "e.g. -o overlap_policy=merge -o parts='[\"llm\"]'."),
    allow_synthetic_stereo: bool = typer.Option(False, help="moshi_lora: rebuild two streams from mono."),
    embed_audio: bool = typer.Option(False, help="parquet: embed audio bytes (FLAC; -o audio_format=wav)."),
) -> None:
    """Build exports/<recipe>/ (build.json names the manifest hash; skipped.jsonl says what was left out)."""
    import json

    from pydantic import ValidationError

    from .recipes import RECIPES
    from .recipes.common import MissingInput

    if recipe == "steward":
        from .report.steward import build_steward_report

        report = build_steward_report(data)
        typer.echo(f"wrote {report.html}, {report.markdown} and {report.json}")
        return
    if recipe not in RECIPES:
        raise typer.BadParameter(f"unknown recipe {recipe!r}; choose from {', '.join([*RECIPES, 'steward'])}")
    config_cls, export = RECIPES[recipe]
    settings: dict = {}
    for item in option:
        key, _, raw = item.partition("=")
        try:
            settings[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            settings[key.strip()] = raw
    if allow_synthetic_stereo:
        settings["allow_synthetic_stereo"] = True
    if embed_audio:
        settings["embed_audio"] = True
    try:
        config = config_cls(**settings)
        result = export(data, config)
    except ValidationError as exc:
        raise typer.BadParameter(f"settings for {recipe}: {exc}") from exc
    except MissingInput as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(f"wrote {result.out_dir} (manifest {result.manifest_hash[:12]}): counts {result.counts}; "
               f"skipped {result.skipped or 0}; flags {result.flags or 0}")
    for warning in result.warnings:  # an empty split or part (TTS voices) is never silent
        typer.echo(f"warning: {warning}", err=True)


@app.command("erase")
def erase_cmd(
    data: Path = typer.Option(Path("data"), "--data", help="Dataset directory."),
    conversation: list[str] = typer.Option(None, "--conversation", help="A conversation id (repeatable)."),
    speaker: list[str] = typer.Option(None, "--speaker", help="A speaker id: every conversation they speak in."),
    upload: list[str] = typer.Option(None, "--upload", help="A whole delivery (folder under raw/)."),
    file: list[str] = typer.Option(None, "--file", help="A source file, as <upload>/<path in the upload>."),
    value: list[str] = typer.Option(None, "--value", help="A value the data subject gives (phone number, e-mail, "
                                                         "customer id), matched in normalised form; never printed."),
    by: str | None = typer.Option(None, "--by", help="Who carries the request out (kept in the ledger)."),
    reference: str | None = typer.Option(None, "--reference", help="A ticket or request id (kept in the ledger)."),
    yes: bool = typer.Option(False, "--yes", help="Carry it out (without it: show what would be removed)."),
    purge_raw: bool = typer.Option(False, "--purge-raw", help="Also delete the raw files (a text file shared with "
                                                              "other conversations loses only their lines)."),
    publish: bool = typer.Option(True, help="Re-run the affected uploads and publish the next release at once."),
) -> None:
    """Withdraw conversations from every artifact, for good (GDPR Art. 17): see docs/erasure.md."""
    from .erasure import carry_out, plan, verify
    from .storage import data_lock

    chosen = [(k, v) for k, v in (("conversation", conversation), ("speaker", speaker), ("upload", upload),
                                  ("file", file), ("value", value)) if v]
    if len(chosen) != 1:
        typer.echo("error: give exactly one of --conversation, --speaker, --upload, --file, --value "
                   "(repeat it for several)", err=True)
        raise typer.Exit(2)
    selector, values = chosen[0]
    p = plan(data, selector, list(values))  # type: ignore[arg-type]
    if not p.found:
        typer.echo(f"nothing to erase: no conversation matches the {selector} given")
        raise typer.Exit(0)
    typer.echo(f"{'erasing' if yes else 'would erase'} ({selector}):")
    for line in p.describe():
        typer.echo(f"  {line}")
    if not yes:
        typer.echo("dry run: nothing was changed; pass --yes to carry it out")
        raise typer.Exit(0)
    with data_lock(data, typer.echo):  # never beside a run rewriting the same uploads: plan again once it holds
        p = plan(data, selector, list(values))  # type: ignore[arg-type]
        entry = carry_out(data, p, by=by, reference=reference, purge_raw=purge_raw)
    typer.echo(f"ledger: work/erasure/ledger.jsonl (+1 entry: {len(entry.conversations)} conversation(s), "
               f"{len(entry.files)} raw file fingerprint(s), {entry.purged_raw} raw file(s) purged)")
    if publish:
        from .orchestrate import run_pipeline

        report = run_pipeline(data, run_config=None, echo=typer.echo)
        typer.echo(f"next release: {report.release}")
    with data_lock(data, typer.echo):  # a first run may be making the instance this opens
        _scrub_run_history(data, p.conv_ids)
    traces = verify(data)
    for t in traces:
        typer.echo(f"  trace: {t.render()}")
    typer.echo("verified: no trace left" if not traces else
               "traces remain (publish again, or run `vak verify-erased` after the next run)")
    raise typer.Exit(0 if not traces else 1)


def _scrub_run_history(data: Path, conv_ids: list[str]) -> None:
    """Runs of the dataset's Dagster instance that named an erased id are deleted and its files compacted."""
    import os

    from .defs.erasure import compact_instance_files, scrub_instance
    from .orchestrate import instance_home, open_instance

    home = instance_home(data)
    with open_instance(home, persistent=True) as inst:
        deleted = scrub_instance(inst, conv_ids)
    busy = compact_instance_files(str(home) if home else os.environ.get("DAGSTER_HOME"))
    typer.echo(f"run history: {deleted} run(s) that named an erased conversation deleted"
               + (f"; in use, not compacted: {', '.join(busy)}" if busy else ""))


@app.command("verify-erased")
def verify_erased_cmd(
    data: Path = typer.Option(Path("data"), "--data", help="Dataset directory."),
    include_raw: bool = typer.Option(False, "--include-raw", help="Check raw/ too (after --purge-raw)."),
) -> None:
    """Check the release and the private area against the erasure ledger; exit 1 naming each trace."""
    from .erasure import verify

    traces = verify(data, include_raw=include_raw)
    for t in traces:
        typer.echo(t.render())
    typer.echo(f"{len(traces)} trace(s) of erased conversations" if traces else "no trace of any erased conversation")
    raise typer.Exit(1 if traces else 0)


def upload_problems(layout, upload: str) -> list[dict]:
    """Every issue the stages recorded for an upload (in work/<upload>/*report.json), streamed from disk, with
    file names and record ids shown without PII (uploads.names.shown_issue)."""
    import json

    from .uploads.names import shown_issue

    out: list[dict] = []
    for path in sorted(layout.work(upload).glob("*report.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        sections = [data] + [v for v in data.values() if isinstance(v, dict)] if isinstance(data, dict) else []
        for sec in sections:
            out.extend(shown_issue(i) for i in sec.get("issues", [])
                       if isinstance(i, dict) and i.get("severity") != "WARN")
    return out


def main() -> None:  # pragma: no cover - console entry
    app()


review_app = typer.Typer(no_args_is_help=True, help="Human review in Label Studio: export tasks, import corrections "
                         "(docs/review.md).")
app.add_typer(review_app, name="review")


@review_app.command("export")
def review_export_cmd(
    data: Path = typer.Option(Path("data"), "--data", help="Dataset directory (reads its work/ and release)."),
    conversation: list[str] = typer.Option(None, "--conversation", help="Export every turn of this conversation id "
                                           "(repeatable); default: the turns the thresholds flag."),
    private_audio: bool = typer.Option(False, "--private-audio", help="Send the unredacted audio and transcript "
                                       "(only for reviewers cleared to hear PII)."),
    max_avg_logprob: float | None = typer.Option(None, help="Flag turns whose ASR avg log-prob is below this."),
    min_no_speech_prob: float | None = typer.Option(None, help="Flag turns with a no-speech probability this high."),
    min_diarization_confidence: float | None = typer.Option(None, help="Flag mono calls diarized less surely."),
    out: Path | None = typer.Option(None, "--out", help="Tasks file (default DATA/work/review/tasks.json)."),
) -> None:
    """Write Label Studio tasks (one per conversation, pre-filled) for what needs a human."""
    from .review.settings import ReviewSettings
    from .review.tasks import LABEL_CONFIG, export_tasks

    given = {"conversations": conversation or [], "private_audio": private_audio, "max_avg_logprob": max_avg_logprob,
             "min_no_speech_prob": min_no_speech_prob, "min_diarization_confidence": min_diarization_confidence}
    settings = ReviewSettings(**{k: v for k, v in given.items() if v is not None})
    res = export_tasks(data, settings, out)
    for issue in res.issues:
        typer.echo(issue.render(), err=True)
    why = ", ".join(f"{k} {n}" for k, n in res.reasons.items()) or "none"
    typer.echo(f"wrote {res.tasks} task(s), {res.turns} turns ({res.flagged_turns} flagged: {why}) to {res.path}"
               + (f"; {res.left_out} more flagged conversation(s) left for the next round" if res.left_out else ""))
    typer.echo(f"labeling config: {LABEL_CONFIG}")


@review_app.command("import")
def review_import_cmd(
    file: Path | None = typer.Argument(None, help="Label Studio's JSON export of the project (Export > JSON)."),
    data: Path = typer.Option(Path("data"), "--data", help="Dataset directory (the store: DATA/work/review/)."),
    url: str | None = typer.Option(None, "--url", help="Label Studio's URL, to read the export over its API."),
    token: str | None = typer.Option(None, "--token", envvar="LABEL_STUDIO_API_KEY",
                                     help="API token (Account & Settings); or $LABEL_STUDIO_API_KEY."),
    project: int | None = typer.Option(None, "--project", help="Project id (with --url)."),
) -> None:
    """Read reviewers' corrections into the corrections store; the next `vak run` applies them."""
    from .review.annotations import import_export
    from .review.label_studio import LabelStudio, LabelStudioError

    if (file is None) == (url is None):
        typer.echo("error: give an export FILE, or --url with --token and --project", err=True)
        raise typer.Exit(2)
    if file is not None:
        try:
            tasks = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            typer.echo(f"error: {file}: not a readable JSON export ({type(exc).__name__}); export the project as "
                       "JSON in Label Studio", err=True)
            raise typer.Exit(2) from None
    else:
        if not token or project is None:
            typer.echo("error: --url needs --token (or $LABEL_STUDIO_API_KEY) and --project", err=True)
            raise typer.Exit(2)
        try:
            with LabelStudio(url, token) as ls:
                tasks = ls.export(project)
        except LabelStudioError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
    if not isinstance(tasks, list):
        typer.echo("error: the export is not a list of tasks; export the project as JSON", err=True)
        raise typer.Exit(2)
    res = import_export(data, tasks)
    for issue in res.issues:
        typer.echo(issue.render(), err=True)
    kinds = ", ".join(f"{k} {n}" for k, n in res.kinds.items()) or "none"
    typer.echo(f"{res.tasks} task(s): {res.reviewed} reviewed, {res.unreviewed} not yet; {res.changed_turns} turn(s) "
               f"corrected ({kinds}), {res.confirmed_turns} confirmed; {res.stored} stored in "
               f"{data}/work/review/corrections.jsonl. Run `vak run --data {data}` to apply them.")
