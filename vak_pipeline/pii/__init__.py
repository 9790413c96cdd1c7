"""The PII layer's shared vocabulary: the placeholder format every stage writes and every reader skips.

The recognizers (`pii.recognizers`) and the locale packs (`locales`) are the rest of this layer;
they sit above this module and below the stages (see the import-linter contracts in pyproject.toml).
"""

from typing import TYPE_CHECKING, Any

from .placeholders import PLACEHOLDER_RE, UPSTREAM_PLACEHOLDER_RE, format_placeholder

if TYPE_CHECKING:
    from .scan import PiiFinding, scan_pii


def __getattr__(name: str) -> Any:
    """scan_pii and PiiFinding load the locale packs (~0.15 s): imported when first asked for, so a reader
    that only needs the placeholder format (every export) does not pay for them."""
    if name in ("PiiFinding", "scan_pii"):
        from . import scan

        return getattr(scan, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["PLACEHOLDER_RE", "UPSTREAM_PLACEHOLDER_RE", "PiiFinding", "format_placeholder", "scan_pii"]
