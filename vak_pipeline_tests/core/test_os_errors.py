"""Operating-system errors are sentences: a full disk, a denied permission or a read-only file system is one
paragraph naming the path and what to do, from `vak run` and from a failed Dagster step alike; and every
fix text that names a flag names one `vak` has."""

from __future__ import annotations

import ast
import errno
import re
from pathlib import Path

import dagster as dg
import pytest
from typer.testing import CliRunner

from vak_pipeline.core.os_errors import describe_os_error, describe_os_error_text, is_environment_error

PACKAGE = Path(__file__).resolve().parents[2] / "vak_pipeline"


@pytest.mark.parametrize(("code", "says", "does"), [
    (errno.ENOSPC, "is full", "Free space"),
    (errno.EDQUOT, "is full", "Free space"),
    (errno.EACCES, "Permission denied on", "Give the account running vak"),
    (errno.EPERM, "Permission denied on", "Give the account running vak"),
    (errno.EROFS, "read-only file system", "Remount it read-write"),
])
def test_each_environment_error_is_one_sentence_with_the_path_and_a_fix(code, says, does):
    exc = OSError(code, "strerror", "/data/work/.release-candidate/vakforge.jsonl")
    text = describe_os_error(exc, "publishing")
    assert is_environment_error(exc)
    assert "/data/work/.release-candidate/vakforge.jsonl" in text and says in text and does in text
    assert "previous release (if any) is intact" in text and "\n" not in text and "Traceback" not in text
    assert describe_os_error_text(f"OSError: {exc}", "publishing") == text  # the same words from a step's text


def test_a_data_error_is_not_mistaken_for_the_machines():
    assert not is_environment_error(FileNotFoundError(errno.ENOENT, "No such file", "x"))
    assert not is_environment_error(ValueError("bad"))
    assert describe_os_error_text("ValueError: bad value") is None


def test_a_failed_step_says_the_sentence_not_a_stack_trace():
    from vak_pipeline.defs.failures import os_errors_as_sentences

    @dg.asset
    @os_errors_as_sentences
    def full(context) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", "/data/exports/x.wav")

    res = dg.materialize([full], raise_on_error=False)
    [failure] = [e for e in res.all_events if e.event_type_value == "STEP_FAILURE"]
    assert failure.event_specific_data.error.cls_name == "Failure"
    data = failure.event_specific_data.user_failure_data
    assert data.description.startswith("The disk holding /data/exports/x.wav is full")
    assert data.metadata["error"].value == "ENOSPC"


def test_vak_run_hit_by_a_denied_folder_prints_one_paragraph_and_exits_1(tmp_path, monkeypatch):
    from vak_pipeline import orchestrate
    from vak_pipeline.cli import app

    (tmp_path / "raw").mkdir()

    def denied(*_a, **_k):
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path / "work"))

    monkeypatch.setattr(orchestrate, "run_pipeline", denied)
    out = CliRunner().invoke(app, ["run", "--data", str(tmp_path)])
    assert out.exit_code == 1
    text = " ".join(out.output.split())
    assert text.startswith(f"error: Permission denied on {tmp_path / 'work'} while running vak run.")
    assert "Traceback" not in out.output and out.exception is None or isinstance(out.exception, SystemExit)


def _vak_flags() -> set[str]:
    import typer.main

    from vak_pipeline.cli import app

    flags: set[str] = set()
    commands = list(typer.main.get_command(app).commands.values())
    while commands:  # sub-command groups too (`vak review export`)
        cmd = commands.pop()
        commands.extend(getattr(cmd, "commands", {}).values())
        for param in cmd.params:
            flags.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("--"))
    return flags


def _message_strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant of a module except its docstrings (which may quote other tools' flags)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_every_flag_a_message_or_fix_names_is_a_flag_of_vak():
    flags = _vak_flags()
    assert {"--data", "--allow-unconsented", "--force", "--log-level"} <= flags
    unknown = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, text in _message_strings(path):
            for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", text):
                if flag not in flags:
                    unknown.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {flag}")
    assert unknown == []


def test_the_consent_fix_names_the_override_that_exists():
    from vak_pipeline.rules.context import ValidationContext
    from vak_pipeline.rules.engine import validate_record
    from vak_pipeline_tests.builders import make_record

    rec = make_record("c1", {"agent": "a", "user": "u"}, source="real", consent="none", pii_redacted=True).dump()
    result = validate_record(rec, ValidationContext(base_dir=Path("."), check_audio=False, check_pii=False))
    [issue] = [i for i in result.issues if i.code == "consent_none_without_override"]
    assert "allow_unconsented: true in the upload's upload.yaml" in issue.fix
    from vak_pipeline.uploads.descriptor import RecordingSettings

    assert "allow_unconsented" in RecordingSettings.model_fields  # the upload.yaml key the fix names
