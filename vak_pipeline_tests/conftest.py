"""Shared fixtures: the format document's example record in a dataset directory with its audio and log."""

from __future__ import annotations

import copy
import json
import shutil
import signal
from pathlib import Path

import pytest

from vak_pipeline.speech.asr import AsrSettings, pin_numerics

# the `label_studio` fixture: one real Label Studio server per session, for the review tests
pytest_plugins = ["vak_pipeline_tests.label_studio"]

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    """The suite behaves the same however it was started. A background job of a non-interactive shell
    (`./dev test &`) inherits SIGINT ignored; Dagster copies SIGINT's disposition onto SIGTERM after each
    run, so every later compute-log `tail -F` would start with SIGTERM ignored and outlive its step
    (30 s each, then orphaned on the test's stdout). Same restore as `vak run` (cli.default_signals)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # the default CPU numerics before any test module imports ctranslate2 (it reads them once per process), so
    # in-process transcriptions run the same kernels as the pipeline's and the tests' child processes
    pin_numerics(AsrSettings().cpu_isa)


def _instance_home(home: Path) -> str:
    """A Dagster home holding a copy of the repo's dagster.yaml; storage defaults to the home itself."""
    home.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "dagster.yaml", home / "dagster.yaml")
    return str(home)


@pytest.fixture(scope="session", autouse=True)
def _session_dagster_home(tmp_path_factory: pytest.TempPathFactory):
    """Tests never write to the user's instance (`./dev` points DAGSTER_HOME at the repo's .dagster/):
    module- and session-scoped fixtures run on a temp instance of the session."""
    mp = pytest.MonkeyPatch()
    mp.setenv("DAGSTER_HOME", _instance_home(tmp_path_factory.mktemp("dagster_home")))
    yield
    mp.undo()


@pytest.fixture(autouse=True)
def _test_dagster_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own temp Dagster instance: runs of one test never show up in another."""
    monkeypatch.setenv("DAGSTER_HOME", _instance_home(tmp_path_factory.mktemp("dagster_home")))


def _example() -> dict:
    return json.loads((FIXTURES / "format" / "example_record.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def example_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset dir holding the example record's 47.3 s stereo 24 kHz WAV and its redaction log."""
    import numpy as np
    import soundfile as sf

    root = tmp_path_factory.mktemp("example_dataset")
    (root / "audio").mkdir()
    (root / "redactions").mkdir()
    sr = 24000
    t = np.arange(int(47.3 * sr)) / sr
    stereo = np.stack([0.1 * np.sin(2 * np.pi * 220 * t), 0.1 * np.sin(2 * np.pi * 330 * t)], axis=1)
    sf.write(root / "audio" / "conv_000123.wav", stereo, sr, subtype="PCM_16")
    shutil.copy(FIXTURES / "format" / "example_redaction_log.json", root / "redactions" / "conv_000123.json")
    (root / "audio" / "not_audio.wav").write_text("this is text, not a RIFF file\n")
    (root / "redactions" / "list.json").write_text("[]\n")
    (root / "vakforge.jsonl").write_text(json.dumps(_example(), ensure_ascii=False) + "\n", encoding="utf-8")
    return root


@pytest.fixture
def example_record() -> dict:
    return copy.deepcopy(_example())
