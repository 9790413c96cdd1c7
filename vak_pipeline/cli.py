"""`vak`: the command line. Every command but `run` works without Dagster; imports stay lazy."""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="vak_pipeline: voice-agent training data.")


@app.command()
def schema(out: Path = typer.Option(Path("data/vakforge.schema.json"), help="Where to write the JSON Schema.")) -> None:
    """Write vakforge.schema.json, generated from the pydantic models."""
    from .schema import write_json_schema

    write_json_schema(out)
    typer.echo(f"wrote {out}")


def main() -> None:  # pragma: no cover - console entry
    app()
