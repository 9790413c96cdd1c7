"""Erasure that propagates, in real `vak run`s over the sample chats plus a chat that carries a customer's
phone number: after `vak erase --yes` no byte under the data root (Parquet, tar and SQLite files included)
holds the erased conversation's id or text, `vak verify-erased` proves it (and fails on a planted trace),
the other conversations keep their splits, and a re-delivery of the same chat under another name is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.core.erasure import read_entries

REPO = Path(__file__).resolve().parents[2]
PHONE = "+44 7700 900461"
SENTENCE = "my parcel to the old farmhouse never arrived"
CHAT = {"id": "chat-parcel-777", "domain": "retail_support", "messages": [
    {"role": "user", "content": f"Hi, {SENTENCE}. Call me back on {PHONE} please."},
    {"role": "assistant", "content": "Sorry to hear that, I will look into it and call you back today."}],
    "metadata": {"pipeline": "sample"}}
ERASED = "sample-chats-support-chat-parcel-777"

pytestmark = pytest.mark.timeout(900)


def _run(*args: str) -> str:
    out = CliRunner().invoke(app, list(args))
    assert out.exit_code == 0, out.output
    return out.output


def _traces(root: Path, needles: list[bytes]) -> list[str]:
    """Every file under the data root except raw/ that holds one of `needles` (binary files too)."""
    hits = []
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.relative_to(root).parts[0] != "raw":
            data = p.read_bytes()
            hits += [f"{p.relative_to(root)}: {n!r}" for n in needles if n in data]
    return hits


@pytest.fixture(scope="module")
def erased(tmp_path_factory) -> tuple[Path, dict, str]:
    root = tmp_path_factory.mktemp("erase")
    up = root / "raw" / "sample-chats"
    shutil.copytree(REPO / "data" / "raw" / "sample-chats", up)
    with (up / "support.messages.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(CHAT) + "\n")
    with pytest.MonkeyPatch.context() as mp:  # the dataset's own instance, D/.dagster, as `vak run` makes it
        mp.delenv("DAGSTER_HOME", raising=False)
        _run("run", "--data", str(root))
        assert ERASED in (root / "splits.json").read_text()
        before = json.loads((root / "splits.json").read_text())["assignment"]
        dry = _run("erase", "--data", str(root), "--value", PHONE)
        assert ERASED in dry and "dry run" in dry and PHONE not in dry and "900461" not in dry
        assert not (root / "work" / "erasure").exists()
        out = _run("erase", "--data", str(root), "--value", PHONE, "--reference", "DSR-2026-041", "--yes")
    return root, before, out


def test_a_value_given_by_the_data_subject_finds_the_conversation_and_is_never_printed(erased):
    root, _, out = erased
    assert "1 conversation(s)" in out and ERASED in out and "verified: no trace left" in out
    assert "7700" not in out


def test_no_byte_of_the_data_root_holds_the_erased_id_or_text(erased):
    root, _, _ = erased
    assert _traces(root, [ERASED.encode(), SENTENCE.encode(), b"900461", b"chat-parcel-777"]) == []
    assert _run("verify-erased", "--data", str(root)).strip().endswith("no trace of any erased conversation")


def test_the_datasets_dagster_instance_keeps_no_erased_id_in_its_sqlite_files(erased):
    """Runs whose logs or check metadata named the erased conversation are deleted (Dagster's delete_run) and
    the instance's SQLite files compacted, so not even a free page holds the id."""
    root, _, out = erased
    dbs = sorted((root / ".dagster").rglob("*.db"))
    assert dbs and any(p.name == "runs.db" for p in dbs)
    assert [p.name for p in dbs if ERASED.encode() in p.read_bytes() or b"chat-parcel-777" in p.read_bytes()] == []
    assert "run history:" in out


def test_the_ledger_keeps_digests_and_counts_never_the_value(erased):
    root, _, _ = erased
    [entry] = read_entries(root)
    assert entry.reference == "DSR-2026-041" and entry.selector == "value" and len(entry.conversations) == 1
    text = (root / "work" / "erasure" / "ledger.jsonl").read_text()
    assert "7700" not in text and ERASED not in text and SENTENCE not in text


def test_the_steward_report_shows_the_request_by_reference_never_the_value(erased):
    root, _, _ = erased
    page = (root / "reports" / "steward" / "index.html").read_text(encoding="utf-8")
    assert "Erasure requests" in page and "DSR-2026-041" in page and "900461" not in page


def test_the_other_conversations_keep_their_splits(erased):
    root, before, _ = erased
    after = json.loads((root / "splits.json").read_text())["assignment"]
    assert {k: v for k, v in before.items() if k != ERASED} == after


def test_a_re_delivery_under_another_name_is_refused_and_verify_catches_a_planted_trace(erased, tmp_path):
    root, _, _ = erased
    resent = root / "raw" / "zz-resent"
    resent.mkdir()
    shutil.copy2(root / "raw" / "sample-chats" / "upload.yaml", resent / "upload.yaml")
    (resent / "backup.messages.jsonl").write_text(json.dumps(CHAT) + "\n", encoding="utf-8")
    _run("run", "--data", str(root))
    assert SENTENCE.encode() not in (root / "vakforge.jsonl").read_bytes()
    assert _traces(root, [SENTENCE.encode(), b"900461"]) == []
    assert "record_erased" in (root / "work" / "zz-resent" / "speech_report.json").read_text()
    planted = root / "exports" / "planted.txt"
    planted.write_text(f"left behind: {ERASED}\n")
    out = CliRunner().invoke(app, ["verify-erased", "--data", str(root)])
    assert out.exit_code == 1 and "exports/planted.txt" in out.output
    planted.unlink()
