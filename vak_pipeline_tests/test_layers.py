"""The library's layers (DESIGN.md §1) hold: `lint-imports` keeps the contracts in pyproject.toml.

An import only points down (core -> schema -> pii -> stages -> splits -> rules -> recipes/report ->
defs/orchestrate/cli), nothing below `defs` imports Dagster, and no package's modules import each other
in a circle. CI runs only `./dev test`, so this test is what runs import-linter in CI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from vak_pipeline_tests import processes

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "vak_pipeline"


def _contracts() -> dict[str, dict]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    return {c["id"]: c for c in config["contracts"]}


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` over the package found in `cwd` (with the repo's contracts), uncached."""
    exe = Path(sys.executable).with_name("lint-imports")
    env = dict(os.environ, PYTHONPATH=str(cwd))
    return processes.run(
        [str(exe), "--no-cache", str(REPO / "pyproject.toml")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _layer_modules(layers: list[str]) -> set[str]:
    names = set()
    for layer in layers:
        for part in layer.replace(":", "|").split("|"):
            names.add(part.strip().strip("()"))
    return names


def test_the_repository_keeps_every_import_contract():
    proc = _lint_imports(REPO)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_the_contracts_are_the_documented_ones():
    contracts = _contracts()
    assert contracts["layers"]["type"] == "layers"
    assert contracts["no-dagster-below-defs"]["type"] == "forbidden"
    assert "dagster" in contracts["no-dagster-below-defs"]["forbidden_modules"]
    assert contracts["acyclic"]["type"] == "acyclic_siblings"
    order = [part.strip().strip("()") for layer in contracts["layers"]["layers"]
             for part in layer.replace(":", "|").split("|")]
    # bottom-up: core < schema < locale packs < pii < stages < splits < rules < recipes < defs
    ranks = {name: len(order) - i for i, name in enumerate(order)}
    chain = [
        "vak_pipeline.storage",
        "vak_pipeline.core",
        "vak_pipeline.schema",
        "vak_pipeline.locales",
        "vak_pipeline.pii",
        "vak_pipeline.sources",
        "vak_pipeline.audio",
        "vak_pipeline.speech",
        "vak_pipeline.splits",
        "vak_pipeline.rules",
        "vak_pipeline.recipes",
        "vak_pipeline.report",
        "vak_pipeline.defs",
        "vak_pipeline.cli",
    ]
    assert [ranks[m] for m in chain] == sorted(ranks[m] for m in chain)


def test_every_package_of_the_library_has_a_layer():
    """A new package (a new stage) must be placed in the layers before it can land."""
    layered = _layer_modules(_contracts()["layers"]["layers"])
    top = {
        p.stem if p.is_file() else p.name
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").exists())
    }
    missing = sorted(m for m in top if f"vak_pipeline.{m}" not in layered)
    assert missing == [], f"add these to the 'layers' contract in pyproject.toml: {missing}"
    no_dagster = _contracts()["no-dagster-below-defs"]
    assert no_dagster["source_modules"] == ["vak_pipeline.*"]  # every package, new ones included
    exempt = {rule.split(" -> ")[0].removesuffix(".**") for rule in no_dagster["ignore_imports"]}
    assert exempt == {"vak_pipeline.defs", "vak_pipeline.definitions", "vak_pipeline.orchestrate"}


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    shutil.copytree(PACKAGE, tmp_path / "vak_pipeline", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_an_upward_import_breaks_the_layers(package_copy: Path):
    (package_copy / "vak_pipeline" / "core" / "upward.py").write_text(
        "from vak_pipeline.recipes import RECIPES  # the core reaching up to the recipes\n"
    )
    proc = _lint_imports(package_copy)
    assert proc.returncode != 0
    assert "vak_pipeline.core.upward -> vak_pipeline.recipes" in proc.stdout
    assert "Layers: core" in proc.stdout and "BROKEN" in proc.stdout


def test_dagster_below_defs_breaks_the_contract(package_copy: Path):
    (package_copy / "vak_pipeline" / "schema" / "with_dagster.py").write_text("import dagster\n")
    proc = _lint_imports(package_copy)
    assert proc.returncode != 0
    assert "vak_pipeline.schema.with_dagster -> dagster" in proc.stdout


def test_a_new_package_importing_dagster_breaks_the_contract(package_copy: Path):
    new = package_copy / "vak_pipeline" / "newstage"
    new.mkdir()
    (new / "__init__.py").write_text("")
    (new / "stage.py").write_text("import dagster as dg\n")
    proc = _lint_imports(package_copy)
    assert proc.returncode != 0
    assert "vak_pipeline.newstage.stage -> dagster" in proc.stdout


def test_a_cycle_inside_a_package_breaks_the_contract(package_copy: Path):
    defs = package_copy / "vak_pipeline" / "defs"
    resources = defs / "resources.py"
    resources.write_text(resources.read_text() + "\nfrom . import speech  # noqa\n")
    proc = _lint_imports(package_copy)
    assert proc.returncode != 0
    assert "No cycles are allowed in vak_pipeline.defs" in proc.stdout
