"""The README's Layout section tells the truth: its tree block lists every package and top-level module of
`vak_pipeline/` and nothing that is gone, and its layer chain is the import-linter `layers` contract, in order.
A branch that adds a package, moves a module or changes the contract is told here what to write."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PACKAGE = REPO / "vak_pipeline"
ARROW = " → "


def layout_section(text: str) -> str:
    start = text.index("\n## Layout\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def fenced_blocks(section: str) -> list[str]:
    return re.findall(r"^```[^\n]*\n(.*?)^```", section, re.M | re.S)


def listed_entries(tree: str) -> dict[str, int]:
    """The names under `vak_pipeline/` in the tree block (`defs/`, `cli.py`; several per line allowed),
    each with its README-relative line number inside the block."""
    entries: dict[str, int] = {}
    inside = False
    for n, line in enumerate(tree.splitlines(), 1):
        if not line.startswith(" "):
            inside = line.split()[0] == "vak_pipeline/" if line.strip() else inside
            continue
        if inside and line.startswith("  ") and not line.startswith("   "):
            names = re.split(r" {2,}", line.strip(), maxsplit=1)[0]
            for name in names.split():
                entries[name] = n
    return entries


def tree_entries() -> set[str]:
    """Every package (a folder with __init__.py) and top-level module of vak_pipeline/, __init__.py aside."""
    found = set()
    for p in PACKAGE.iterdir():
        if p.is_dir() and (p / "__init__.py").is_file():
            found.add(f"{p.name}/")
        elif p.suffix == ".py" and p.name != "__init__.py":
            found.add(p.name)
    return found


def contract_chain() -> str:
    """The `layers` contract of pyproject.toml written as the README writes it."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    [layers] = [c["layers"] for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers"]
    return ARROW.join(re.sub(r"\bvak_pipeline\.", "", layer).strip() for layer in layers)


def readme_chain(section: str) -> str | None:
    chains = [b.strip() for b in fenced_blocks(section) if ARROW in b]
    return " ".join(chains[0].split()) if chains else None


def test_every_package_and_top_level_module_is_in_the_readme_layout_and_every_listed_one_exists():
    section = layout_section(README.read_text(encoding="utf-8"))
    tree = fenced_blocks(section)[0]
    listed = listed_entries(tree)
    actual = tree_entries()
    missing = sorted(actual - set(listed))
    gone = sorted(set(listed) - actual)
    fixes = []
    if missing:
        fixes.append(f"add a line under `vak_pipeline/` for each of {missing} (two spaces, the name, then what "
                     "it holds), in the layer order of the chain below the block")
    if gone:
        fixes.append(f"remove or rename the lines of {gone} (block lines {[listed[g] for g in gone]}): "
                     "they no longer exist under vak_pipeline/")
    assert not fixes, "README.md, section Layout: " + "; ".join(fixes)


def test_the_readme_layer_chain_is_the_import_linter_layers_contract():
    section = layout_section(README.read_text(encoding="utf-8"))
    expected = contract_chain()
    got = readme_chain(section)
    assert got is not None, (
        "README.md, section Layout: add a fenced block holding the layer chain (top layer first, layers "
        f"joined by '{ARROW.strip()}'), i.e. exactly:\n{expected}")
    assert got == expected, (
        "README.md, section Layout: the layer chain disagrees with pyproject.toml "
        "[[tool.importlinter.contracts]] id = \"layers\"; replace the chain's block with:\n"
        f"{expected}\n(README has:\n{got})")


def test_the_layout_parser_reads_names_several_to_a_line_and_only_under_the_package():
    tree = ("vak_pipeline/            the library\n"
            "  storage.py layout.py   atomic writes; every path\n"
            "  core/                  the bottom layer  with two spaces inside\n"
            "vak_pipeline_tests/      pytest\n"
            "  not_ours.py            under another folder\n")
    assert set(listed_entries(tree)) == {"storage.py", "layout.py", "core/"}
