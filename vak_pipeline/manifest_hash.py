"""The manifest's identity: sha256 of its bytes. Every export and splits.json names the hash it was built from."""

from __future__ import annotations

from pathlib import Path

from .storage import sha256_file


def manifest_hash(path: str | Path) -> str:
    """sha256 (hex) of the manifest file's bytes: the data version of validated_manifest."""
    return sha256_file(Path(path))
