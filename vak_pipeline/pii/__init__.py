"""The PII layer's shared vocabulary: the placeholder format every stage writes and every reader skips.

The recognizers (`pii.recognizers`) and the locale packs (`locales`) are the rest of this layer;
they sit above this module and below the stages (see the import-linter contracts in pyproject.toml).
"""

from .placeholders import PLACEHOLDER_RE, UPSTREAM_PLACEHOLDER_RE, format_placeholder
from .scan import PiiFinding, scan_pii

__all__ = ["PLACEHOLDER_RE", "UPSTREAM_PLACEHOLDER_RE", "PiiFinding", "format_placeholder", "scan_pii"]
