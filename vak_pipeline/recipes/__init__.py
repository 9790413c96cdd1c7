"""Recipe adapters: pure functions of the manifest + splits + config, writing exports/<recipe>/ with lineage.

Modules are imported lazily (`RECIPES` maps a name to its config class and export function on demand),
so importing this package stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from typing import Any

_RECIPES = {
    "moshi_lora": ("moshi_lora", "MoshiConfig", "export_moshi_lora"),
    "turn_based": ("turn_based", "TurnBasedConfig", "export_turn_based"),
    "cascaded": ("cascaded", "CascadedConfig", "export_cascaded"),
    "parquet": ("parquet", "ParquetConfig", "export_parquet"),
    "duplex_s2s": ("duplex_s2s", "DuplexS2SConfig", "export_duplex_s2s"),
}


class _Registry(Mapping[str, tuple[type, Callable[..., Any]]]):
    def __getitem__(self, name: str) -> tuple[type, Callable[..., Any]]:
        module, config, fn = _RECIPES[name]
        mod = import_module(f"{__name__}.{module}")
        return getattr(mod, config), getattr(mod, fn)

    def __iter__(self) -> Iterator[str]:
        return iter(_RECIPES)

    def __len__(self) -> int:
        return len(_RECIPES)


RECIPES = _Registry()

__all__ = ["RECIPES"]
