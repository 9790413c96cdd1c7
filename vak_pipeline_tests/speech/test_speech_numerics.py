"""cpu_isa pins the CPU numerics of the process that transcribes: CTranslate2's kernels, its GEMM library and that
library's instruction set, set before ctranslate2 loads, and what is in effect is part of the transcript's cache
key. No Whisper model: an empty channel goes through the transcriber's imports of faster-whisper only."""

import json
import os
import sys
from pathlib import Path

import pytest

from vak_pipeline.speech.asr import NUMERICS_ENV, AsrSettings, effective_isa, numerics_env
from vak_pipeline_tests import processes

REPO = Path(__file__).resolve().parents[2]

_CHILD = """
import json, os, sys
import numpy as np
from vak_pipeline.speech.asr import AsrSettings, Transcriber
Transcriber(AsrSettings.model_validate_json(sys.argv[1])).transcribe_channel(np.zeros(0, np.float32), 16000, 0)
print(json.dumps({"ctranslate2": "ctranslate2" in sys.modules, "env": {k: os.environ.get(k) for k in sys.argv[2:]}}))
"""


def transcribe_nothing_in_new_process(settings: AsrSettings) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in NUMERICS_ENV} | {"PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-c", _CHILD, settings.model_dump_json(), *NUMERICS_ENV]
    out = processes.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.parametrize("batch_size", [1, 8])
def test_the_default_pin_reaches_the_transcribing_process_before_ctranslate2_loads(batch_size):
    child = transcribe_nothing_in_new_process(AsrSettings(device="cpu", batch_size=batch_size))
    # pin_numerics sets nothing once ctranslate2 is loaded: the variables being there means they came first
    assert child["ctranslate2"]
    assert child["env"] == {
        "CT2_FORCE_CPU_ISA": "AVX2",
        "CT2_USE_MKL": "0",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
        "MKL_CBWR": "AVX2,STRICT",
    }


def test_native_pins_nothing():
    assert transcribe_nothing_in_new_process(AsrSettings(device="cpu", cpu_isa="native"))["env"] == dict.fromkeys(
        NUMERICS_ENV
    )


def test_every_pinned_isa_uses_one_gemm_library_on_every_cpu():
    for isa in ("AVX2", "AVX512", "AVX", "GENERIC"):
        assert numerics_env(isa)["CT2_USE_MKL"] == "0" and set(numerics_env(isa)) == set(NUMERICS_ENV)


def test_the_numerics_in_effect_are_part_of_the_cache_key(monkeypatch):
    for name, value in numerics_env("AVX2").items():
        monkeypatch.setenv(name, value)
    settings = AsrSettings(device="cpu")
    pinned = settings.fingerprint()
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "ALL")  # set outside the process: kept, and reported
    assert "ONEDNN_MAX_CPU_ISA=ALL" in effective_isa()
    assert settings.fingerprint() != pinned
