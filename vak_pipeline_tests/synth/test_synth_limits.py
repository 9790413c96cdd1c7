"""Synth refuses to render an over-long conversation (issue 26): a 20 MB chat message used to be rendered for
minutes at 7.7 GB; now the record is left text-only with a reason, before anything is rendered."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from vak_pipeline.layout import DataLayout
from vak_pipeline.synth import SynthSettings, synth_upload
from vak_pipeline.synth.stage import over_limits
from vak_pipeline_tests import processes

from ..builders import make_record, turn, write_manifest

pytestmark = pytest.mark.timeout(300)
UPLOAD = "chats"
REPO = Path(__file__).resolve().parents[2]


def _setup(root: Path, records) -> DataLayout:
    layout = DataLayout.at(root)
    layout.upload_dir(UPLOAD).mkdir(parents=True)
    layout.work(UPLOAD).mkdir(parents=True)
    write_manifest(layout.redacted(UPLOAD), records)
    return layout


def _chat(conv_id: str, text: str):
    return make_record(conv_id, turns=[turn("user", 0, 0, text), turn("agent", 0, 0, "Sure, one moment.")],
                       locale="en-GB")


def test_limits_name_the_turn_or_the_whole_conversation():
    s = SynthSettings(max_turn_chars=20, max_record_chars=50)
    assert over_limits(_chat("a", "short"), s) is None
    why, setting, turn_index = over_limits(_chat("b", "x" * 21), s)
    assert (setting, turn_index) == ("max_turn_chars", 0) and "21 characters" in why
    long = make_record("c", turns=[turn("user", 0, 0, "x" * 19), turn("agent", 0, 0, "y" * 19),
                                   turn("user", 0, 0, "z" * 19)], locale="en-GB")
    assert over_limits(long, s)[1:] == ("max_record_chars", None)


def test_the_limits_do_not_change_what_a_rendered_conversation_is_keyed_by():
    assert SynthSettings().fingerprint() == SynthSettings(max_turn_chars=9, max_record_chars=99).fingerprint()


def test_an_over_long_turn_is_left_text_only_with_a_reason_and_the_rest_is_rendered(tmp_path):
    layout = _setup(tmp_path, [_chat("long", "word " * 1000), _chat("short", "Hello, my parcel is late.")])
    res = synth_upload(layout, UPLOAD, SynthSettings())
    assert res.rendered == 1 and res.failed == 0
    (issue,) = [i for i in res.issues if i.code == "synth_text_too_long"]
    assert (issue.record_id, issue.line, issue.turn_index) == ("long", 1, 0) and "max_turn_chars" in issue.fix
    out = {r["id"]: r for r in map(json.loads, layout.synthesized(UPLOAD).read_text().splitlines())}
    assert out["long"].get("audio") is None and out["short"]["audio"]["synthesis"]
    assert not layout.published_audio("long").exists()


def test_a_20_mb_message_is_refused_fast_in_under_1_gib(tmp_path):
    _setup(tmp_path, [_chat("huge", "blah " * (4 << 20))])
    code = textwrap.dedent(f"""
        import json, resource
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from vak_pipeline.layout import DataLayout
        from vak_pipeline.synth import SynthSettings, synth_upload
        res = synth_upload(DataLayout.at({str(tmp_path)!r}), {UPLOAD!r}, SynthSettings())
        print(json.dumps({{"rendered": res.rendered, "codes": [i.code for i in res.issues]}}))
    """)
    env = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = processes.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd=REPO)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"rendered": 0, "codes": ["synth_text_too_long"]}
