"""Streamed, atomic Parquet writing: the storage piece every Parquet writer shares (exports, aidb export).

Below the stages and the recipes, so a text importer can write Parquet without importing a recipe.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from ..storage import atomic_open


def arrow():
    """pyarrow, imported lazily: keeps `vak` and the code location's start fast."""
    import pyarrow as pa

    return pa


class ParquetStreamWriter:
    """Rows (dicts) -> one Parquet file, written in row-group batches, atomically (temp file + rename)."""

    def __init__(self, path: str | Path, schema, batch_size: int = 1000, compression: str = "zstd") -> None:
        self.path, self.schema, self.batch_size, self.compression = Path(path), schema, batch_size, compression
        self.rows = 0
        self._buf: list[dict[str, Any]] = []
        self._stack = contextlib.ExitStack()
        self._writer = None

    def __enter__(self) -> ParquetStreamWriter:
        import pyarrow.parquet as pq

        fh: IO[bytes] = self._stack.enter_context(atomic_open(self.path, "wb", encoding=None))
        self._writer = pq.ParquetWriter(fh, self.schema, compression=self.compression)
        return self

    def write(self, row: dict[str, Any]) -> None:
        self._buf.append(row)
        if len(self._buf) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        if self._buf:
            self._writer.write_batch(arrow().RecordBatch.from_pylist(self._buf, schema=self.schema))
            self.rows += len(self._buf)
            self._buf = []

    def __exit__(self, *exc: Any) -> bool | None:
        try:
            if exc[0] is None:
                self.flush()
            self._writer.close()
        except BaseException as err:  # the temp file is deleted, never renamed into place
            self._stack.__exit__(type(err), err, err.__traceback__)
            raise
        return self._stack.__exit__(*exc)  # renames on success, deletes when the caller failed


def write_parquet(rows: Iterable[dict[str, Any]], path: str | Path, schema, batch_size: int = 1000) -> int:
    """Stream `rows` into a Parquet file at `path` (atomic); returns the number of rows written."""
    with ParquetStreamWriter(path, schema, batch_size) as w:
        for row in rows:
            w.write(row)
    return w.rows
