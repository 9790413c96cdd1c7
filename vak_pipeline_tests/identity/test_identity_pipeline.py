"""Duplicates across deliveries in a real `vak run`: a partner re-sends last month's chats under another
folder name; each re-sent conversation is left out as `duplicate_of` its first delivery, and the release
holds each conversation once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vak_pipeline.cli import app
from vak_pipeline.layout import DataLayout
from vak_pipeline.storage import iter_jsonl

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def resent(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("resent")
    shutil.copytree(REPO / "data" / "raw" / "sample-chats", root / "raw" / "sample-chats")
    shutil.copytree(REPO / "data" / "raw" / "sample-chats", root / "raw" / "zz-chats-resent")
    out = CliRunner().invoke(app, ["run", "--data", str(root)])
    assert out.exit_code == 0, out.output
    return root


def test_a_re_sent_delivery_is_left_out_as_duplicates_of_the_first(resent):
    layout = DataLayout.at(resent)
    ids = [jl.value["id"] for jl in iter_jsonl(layout.manifest)]
    assert ids and not [i for i in ids if "resent" in i]
    dropped = [jl.value for jl in iter_jsonl(layout.rejected) if jl.value.get("duplicate_of")]
    assert dropped and all(r["upload"] == "zz-chats-resent" for r in dropped)
    assert {r["duplicate_of"] for r in dropped} <= set(ids)
    assert all(r["skipped"] == f"duplicate_of {r['duplicate_of']}" for r in dropped)
    assert all(r["issues"][0]["code"] == "duplicate_content" for r in dropped)
    summary = json.loads(layout.duplicates_report.read_text())  # what the WARN check and the steward read
    resent_upload = summary["by_upload"]["zz-chats-resent"]
    assert resent_upload["duplicates"] == resent_upload["records"] == len(dropped)
    assert summary["by_upload"]["sample-chats"]["duplicates"] == 0
    assert {g["kept_upload"] for g in summary["groups"]} == {"sample-chats"}
    page = (resent / "reports" / "steward" / "index.html").read_text(encoding="utf-8")
    assert "Duplicates left out" in page and "zz-chats-resent" in page.split("Duplicates left out")[1][:2000]


def test_a_second_run_keeps_the_same_choice(resent):
    layout = DataLayout.at(resent)
    before = layout.manifest.read_bytes()
    out = CliRunner().invoke(app, ["run", "--data", str(resent), "--force"])
    assert out.exit_code == 0, out.output
    assert layout.manifest.read_bytes() == before


def test_with_keep_all_no_copy_lands_in_another_split_than_its_first_delivery(resent, tmp_path):
    cfg = tmp_path / "keep_all.yaml"
    cfg.write_text(json.dumps({"ops": {"validated_manifest": {"config": {"identity": {"keep": "all"}}}}}))
    out = CliRunner().invoke(app, ["run", "--data", str(resent), "--force", "--config", str(cfg)])
    assert out.exit_code == 0, out.output
    layout = DataLayout.at(resent)
    ids = [jl.value["id"] for jl in iter_jsonl(layout.manifest)]
    copies = [i for i in ids if i.startswith("zz-chats-resent")]
    assert copies
    splits = json.loads(layout.splits.read_text())
    assignment, held_out = splits["assignment"], splits["held_out"]
    for copy in copies:  # with the original, or held out when joining would tie two splits together
        original = copy.replace("zz-chats-resent", "sample-chats", 1)
        assert assignment.get(copy) == assignment[original] or "dup speaker" in held_out[copy]
