"""Parallelism on one machine gives the same bytes as one process: the redaction stage with a process pool
(spawned; `pool_from=1` so these small uploads use it) writes the same redacted.jsonl, redaction logs, masked
audio, ledger and issues (in the same order) as workers=1; and a second parallel run redoes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import soundfile as sf

from vak_pipeline.core.stage import Ledger
from vak_pipeline.layout import DataLayout
from vak_pipeline.redaction.stage import STAGE, RedactionSettings, _RedactStage, redact_upload

UPLOAD = "u1"
SR = 24000
TEXTS = ["Priya here, my number is 98765 43210", "email me at asha.k@example.com", "nothing personal in here",
         "card 4111 1111 1111 1111 please", "call Rahul Verma on +91 98111 22233"]


def _rec(i: int) -> dict:
    source = "synthetic" if i % 7 == 3 else "real"
    rec = {"id": f"c{i:03d}", "schema_version": "0.1", "locale": "en-IN", "language": {"primary": "en"},
           "turns": [{"speaker": "user", "start": 0.1, "end": 1.9, "text": TEXTS[i % len(TEXTS)], "lang": "en"},
                     {"speaker": "agent", "start": 2.0, "end": 2.5, "text": f"ticket {i}", "lang": "en"}],
           "meta": {"source": source, "consent": "synthetic" if source == "synthetic" else "recorded_verbal"}}
    if source == "real":
        rec["meta"]["consent_ref"] = "p1"
    if i % 10 == 0:
        rec["audio"] = {"path": f"work/{UPLOAD}/audio/c{i:03d}.wav", "sample_rate": SR, "channels": 2,
                        "channel_map": {"0": "user", "1": "agent"}, "duration_s": 3.0}
    return rec


def _setup(root: Path, n: int = 40) -> DataLayout:
    layout = DataLayout.at(root)
    up = layout.upload_dir(UPLOAD)
    up.mkdir(parents=True)
    (up / "upload.yaml").write_text("locale: en-IN\nconsent: recorded_verbal\nconsent_ref: p1\n"
                                    "names: [Priya Sharma]\n", encoding="utf-8")
    normalized = layout.work(UPLOAD) / "audio"
    normalized.mkdir(parents=True)
    t = np.arange(3 * SR) / SR
    lines = []
    for i in range(n):
        rec = _rec(i)
        if "audio" in rec:
            sf.write(normalized / f"c{i:03d}.wav", np.stack([0.3 * np.sin(2 * np.pi * 300 * t)] * 2, axis=1),
                     SR, subtype="PCM_16")
        lines.append(json.dumps(rec))
        if i == 17:
            lines.append("{broken")  # a bad line mid-file: its issue keeps its place in the issue list
        if i == 25:
            lines.append(json.dumps({"id": "bad", "turns": "not a list"}))
    layout.conversations(UPLOAD).parent.mkdir(parents=True, exist_ok=True)
    layout.conversations(UPLOAD).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return layout


def _outputs(layout: DataLayout) -> dict[str, bytes]:
    kept = layout.release_files(UPLOAD)  # what redaction writes for a release to publish
    files = [layout.redacted(UPLOAD), *sorted((kept / "redactions").glob("*.json")),
             *sorted((kept / "audio").glob("*.wav")), *sorted((kept / "alignments").glob("*.json"))]
    out = {p.relative_to(layout.root).as_posix(): p.read_bytes() for p in files}
    ledger = Ledger.load(layout.stage_ledger(UPLOAD, STAGE)).previous.values()
    entries = [e.model_dump(mode="json", exclude={"key"}) for e in ledger]
    for entry in entries:  # file stamps hold mtimes, which differ between the two dirs (and so do the keys)
        published = entry["outputs"].get("published", {})
        entry["outputs"]["published"] = {k: v[0] if isinstance(v, list) else v for k, v in published.items()}
    out["ledger"] = json.dumps(entries, sort_keys=True).replace(str(layout.root), "<root>").encode()
    return out


def _summary(res) -> dict:
    d = {k: getattr(res, k) for k in ("records", "redacted", "unchanged", "synthetic", "failed", "audio_masked",
                                      "spans", "schema_misfits")}
    d["counts"] = dict(sorted(res.counts_by_type.items()))
    d["issues"] = [(i.code, i.line, i.record_id) for i in res.issues]
    return d


def test_redaction_with_a_process_pool_writes_the_same_bytes_as_one_process(tmp_path):
    one = _setup(tmp_path / "one")
    many = _setup(tmp_path / "many")
    r1 = redact_upload(one, UPLOAD, RedactionSettings(), workers=1)
    r2 = redact_upload(many, UPLOAD, RedactionSettings(), workers=2, batch=4, pool_from=1)
    assert r1.redacted > 20 and r1.audio_masked >= 3 and r1.failed == 2 and r1.synthetic > 0
    assert _summary(r2) == _summary(r1)
    out1, out2 = _outputs(one), _outputs(many)
    assert out1.keys() == out2.keys()
    for name in out1:
        assert out1[name] == out2[name], name


def test_a_second_parallel_run_redoes_nothing_and_keeps_the_output(tmp_path):
    layout = _setup(tmp_path / "d")
    r_first = redact_upload(layout, UPLOAD, RedactionSettings(), workers=2, batch=4, pool_from=1)
    before = _outputs(layout)
    again = redact_upload(layout, UPLOAD, RedactionSettings(), workers=2, batch=4, pool_from=1)
    assert again.redacted == 0 and again.unchanged == r_first.redacted
    assert _outputs(layout) == before


def test_a_changed_record_is_redone_alone(tmp_path):
    layout = _setup(tmp_path / "d")
    r_first = redact_upload(layout, UPLOAD, RedactionSettings(), workers=2, batch=4, pool_from=1)
    path = layout.conversations(UPLOAD)
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace("nothing personal", "my mail is x.y@example.org, nothing personal")
    path.write_text("\n".join(lines) + "\n")
    again = redact_upload(layout, UPLOAD, RedactionSettings(), workers=2, batch=4, pool_from=1)
    assert again.redacted == 1 and again.unchanged == r_first.redacted - 1
    fresh = _setup(tmp_path / "fresh")
    fresh.conversations(UPLOAD).write_text(path.read_text())
    redact_upload(fresh, UPLOAD, RedactionSettings(), workers=1)
    assert fresh.redacted(UPLOAD).read_bytes() == layout.redacted(UPLOAD).read_bytes()


def _words(text: str, turn: int) -> list[dict]:
    return [{"word": w, "start": 0.1 + 0.2 * k, "end": 0.25 + 0.2 * k, "speaker": "user", "turn": turn,
             "channel": 0} for k, w in enumerate(text.split())]


def test_calls_are_not_redone_when_tagged_turns_rewrites_the_same_alignment(tmp_path):
    """tagged_turns rewrites work/<upload>/alignments/<conv>.json (unredacted, private) on every run; the same
    words do not make redaction redo a call, and only redacted words are ever published."""
    layout = _setup(tmp_path / "d")
    unredacted = {}
    for i in (0, 20, 30):  # real calls (c010 is synthetic)
        path = layout.work_alignment(UPLOAD, f"c{i:03d}")
        path.parent.mkdir(parents=True, exist_ok=True)
        doc = {"conversation_id": f"c{i:03d}", "words": _words(TEXTS[i % len(TEXTS)], 0)}
        unredacted[i] = json.dumps(doc, indent=1) + "\n"
        path.write_text(unredacted[i])
    first = redact_upload(layout, UPLOAD, RedactionSettings(), workers=1)
    published = {i: (layout.release_files(UPLOAD) / layout.alignment_rel(f"c{i:03d}")).read_text() for i in unredacted}
    assert "98765" not in published[0] and "98765" in unredacted[0]
    assert layout.work_alignment(UPLOAD, "c000").read_text() == unredacted[0]  # the private copy is untouched
    for i, text in unredacted.items():  # what tagged_turns does on the next run
        layout.work_alignment(UPLOAD, f"c{i:03d}").write_text(text)
    again = redact_upload(layout, UPLOAD, RedactionSettings(), workers=2, batch=4, pool_from=1)
    assert again.redacted == 0 and again.unchanged == first.redacted
    kept = layout.release_files(UPLOAD)
    assert {i: (kept / layout.alignment_rel(f"c{i:03d}")).read_text() for i in unredacted} == published
    # words that really changed are redone
    layout.work_alignment(UPLOAD, "c020").write_text(unredacted[20].replace("Priya", "Asha"))
    third = redact_upload(layout, UPLOAD, RedactionSettings(), workers=1)
    assert third.redacted == 1


def test_unredacted_audio_is_never_published(tmp_path):
    """The normalized recording stays under work/; audio/<conv>.wav is the masked copy, written by redaction."""
    layout = _setup(tmp_path / "d")
    assert not layout.audio_dir.exists()
    redact_upload(layout, UPLOAD, RedactionSettings(audio_method="silence"), workers=1)
    assert not layout.audio_dir.exists()  # nothing is published before a release keeps the record
    recs = [json.loads(x) for x in layout.redacted(UPLOAD).read_text().splitlines()]
    with_audio = [r for r in recs if r.get("audio")]
    assert with_audio and all(r["audio"]["path"] == f"audio/{r['id']}.wav" for r in with_audio)
    masked = sf.read(layout.release_files(UPLOAD) / "audio" / "c000.wav", always_2d=True)[0]
    source = sf.read(layout.work(UPLOAD) / "audio" / "c000.wav", always_2d=True)[0]
    assert np.abs(masked[:, 0]).min() == 0 and np.abs(source[:, 0]).max() > 0.2  # user channel masked
    assert not np.array_equal(masked, source)


def test_an_upload_too_small_for_a_pool_is_redacted_here_with_the_same_bytes(tmp_path, monkeypatch):
    """Below the records a pool pays for (`jobs_to_pay`: thousands), workers=2 redacts in this process."""
    from vak_pipeline.core.stage import PoolSettings

    pooled = _setup(tmp_path / "pooled")
    r_pooled = redact_upload(pooled, UPLOAD, RedactionSettings(), workers=2, batch=4, pool_from=1)

    def no_pool(self, workers):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(PoolSettings, "executor", no_pool)
    here = _setup(tmp_path / "here")
    r_here = redact_upload(here, UPLOAD, RedactionSettings(), workers=2, batch=4)
    assert _summary(r_here) == _summary(r_pooled)
    assert _outputs(here) == _outputs(pooled)


def test_a_process_keeps_its_memo_for_every_batch_it_redacts(tmp_path):
    """A worker remembers the texts of its earlier batches (a memo sent with each batch forgot them)."""
    from vak_pipeline.redaction import stage as S

    layout = _setup(tmp_path / "d", n=12)
    settings = RedactionSettings()
    stage = S._RedactStage(layout, UPLOAD, settings, 2, 4)
    jobs = [(line.encode(), i + 1, f"k{i}") for i, line in enumerate(layout.conversations(UPLOAD).read_text()
                                                                      .splitlines()) if '"real"' in line]
    memo = S.process_memo(settings.fingerprint())
    stage.process(jobs[:4])
    first = set(memo[1])
    stage.process(jobs[4:8])
    assert first and S.process_memo(settings.fingerprint()) is memo and first <= set(memo[1])


def test_a_first_run_of_a_big_upload_starts_its_pool_at_once_and_a_rerun_reads_ahead(tmp_path):
    """The pool starts at once (`pool_from_now` 0) when conversations.jsonl holds at least `pool_from` lines more
    than the last run's ledger holds entries; otherwise the records read ahead decide, as before."""
    layout = _setup(tmp_path / "d")  # 42 lines
    stage = _RedactStage(layout, UPLOAD, RedactionSettings(), workers=2, batch=4)
    stage.pool_from = 10
    assert stage.pool_from_now(0) == 0  # a first run
    assert stage.pool_from_now(35) == 10  # a rerun: most records are likely unchanged
    stage.pool_from = 43
    assert stage.pool_from_now(0) == 43  # fewer lines than a pool needs
