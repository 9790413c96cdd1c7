"""Load a committed script (a fixture generator under bench/data/ or scripts/) as a module, so a test can call
its functions: the scripts are not a package, and must stay runnable on their own."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_script(path: Path) -> ModuleType:
    """The script at `path`, executed once as a module named after its file."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None, f"{path} is not a Python file"
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
