"""vak_pipeline: raw calls, chats and tickets -> validated, redacted, split vakforge.jsonl and exports.

The library below this package never imports Dagster; `vak_pipeline.defs` is the thin Dagster layer.
"""

__version__ = "0.1.0"
