"""Audio stored once (issue 34): bytes of every export against the bytes of the published audio, per export.

Corpus shaped like the quick e2e (scripts/make_corpus.py: espeak-ng calls with planted PII, so every call has
redacted spans the audio exports re-mask, plus chats that synth renders as calls on its default budget), run
through the whole pipeline once (`run_pipeline`, as `vak run`) with default settings. Quick: 6 calls + 2,000
chats; full: 20 calls + 10,000 chats (the quick e2e corpus). Bytes are counted on disk by inode, so a file
hard-linked to the published audio, or a clip two exports share, costs nothing the second time
(bench_e2e.export_bytes). Aim: all exports <= 2x the published audio with defaults.

Where bytes are a setting (Parquet `embed_audio` / `audio_format`, duplex_s2s `audio` / `audio_format`), the
other choices are built from the same release into a temporary folder and their bytes printed beside the
default's (outside the release, so nothing there is shared with the other exports).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from .bench_e2e import bytes_rows, make_corpus, pipeline_run
from .common import row

ROOT = Path(__file__).resolve().parent.parent


def _disk_bytes(folder: Path, published: Path) -> int:
    """Bytes under `folder`, less the files that are hard links of `published`'s."""
    shared = {(p.stat().st_dev, p.stat().st_ino) for p in published.rglob("*") if p.is_file()}
    seen: set[tuple[int, int]] = set()
    total = 0
    for p in folder.rglob("*"):
        if p.is_file() and not p.is_symlink():
            key = (p.stat().st_dev, p.stat().st_ino)
            if key not in shared and key not in seen:
                seen.add(key)
                total += p.stat().st_size
    return total


def setting_rows(bench: str, root: Path, tmp: Path) -> list[dict]:
    """Each byte-costing setting of Parquet and duplex_s2s, built from the published release, against its audio."""
    import importlib.util

    from vak_pipeline.recipes.duplex_s2s import DuplexS2SConfig, export_duplex_s2s
    from vak_pipeline.recipes.parquet import ParquetConfig, export_parquet

    audio = sum(p.stat().st_size for p in (root / "audio").rglob("*") if p.is_file())
    choices = [("parquet", "audio_format: wav", lambda out: export_parquet(root, ParquetConfig(audio_format="wav"),
                                                                            out)),
               ("parquet", "embed_audio: false", lambda out: export_parquet(root, ParquetConfig(embed_audio=False),
                                                                             out))]
    if importlib.util.find_spec("lhotse") is not None:  # duplex_s2s needs the `nemo` extra
        choices += [("duplex_s2s", "audio_format: wav",
                     lambda out: export_duplex_s2s(root, DuplexS2SConfig(audio_format="wav"), out)),
                    ("duplex_s2s", "audio: reference",
                     lambda out: export_duplex_s2s(root, DuplexS2SConfig(audio="reference"), out))]
    rows = []
    for recipe, setting, build in choices:
        out = tmp / f"{recipe}-{setting.replace(': ', '-')}"
        build(out)
        n = _disk_bytes(out, root / "audio")
        rows.append(row(bench, f"bytes of export {recipe} with {setting}", n, "B", reference=audio,
                        ratio=round(n / max(audio, 1), 3),
                        note="a setting; reference = bytes of the published audio/ (linked files not counted)"))
        shutil.rmtree(out, ignore_errors=True)
    return rows


def run(quick: bool) -> list[dict]:
    calls, texts = (6, 2000) if quick else (20, 10_000)
    tmp = Path(tempfile.mkdtemp(prefix="vak-bench-bytes-"))
    b = "bytes"
    try:
        root = tmp / "data"
        made = make_corpus(root, calls, texts)
        res = pipeline_run(root, tmp / "dagster")
        rows = [row(b, "corpus", f"{calls} calls ({sum(m['audio_seconds'] for m in made):.0f} s), {texts:,} chats",
                    note="scripts/make_corpus.py, one `run_pipeline` with default settings"
                         + ("" if res["success"] else f"; failed: {', '.join(res['failed'])}"))]
        rows += bytes_rows(b, "default settings", root)
        rows += setting_rows(b, root, tmp)
        return rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover
    sys.path.insert(0, str(ROOT))
    from .__main__ import print_table

    print_table(run(quick="--full" not in sys.argv))
