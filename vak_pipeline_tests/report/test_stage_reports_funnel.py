"""Every stage's report is read by the funnel: a stage on the runner whose report file (or section) the funnel
does not read fails here, so its failures could never reach `vak run`, the checks or the steward report."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator

import pytest

import vak_pipeline
from vak_pipeline.core.runner import Stage
from vak_pipeline.layout import DataLayout
from vak_pipeline.report.stage_reports import read_by_funnel

pytestmark = pytest.mark.timeout(300)

_TOP = ("vak_pipeline.defs", "vak_pipeline.definitions", "vak_pipeline.orchestrate", "vak_pipeline.cli")


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def library_stages() -> list[type[Stage]]:
    """Every Stage subclass of the library (every module imported: a new stage is found without a list)."""
    for mod in pkgutil.walk_packages(vak_pipeline.__path__, "vak_pipeline."):
        if not mod.name.startswith(_TOP):
            importlib.import_module(mod.name)
    return [c for c in _subclasses(Stage) if c.__module__.startswith("vak_pipeline.")]


def test_the_stages_on_the_runner_are_found():
    names = {c.name for c in library_stages()}
    assert {"normalized_audio", "transcripts", "redacted_manifest", "synth"} <= names


@pytest.mark.parametrize("stage", library_stages(), ids=lambda c: c.name)
def test_every_stage_writes_a_report_the_funnel_reads(stage):
    assert read_by_funnel(stage.report, stage.section), (
        f"{stage.__module__}.{stage.__name__} writes {stage.report.__name__}"
        f"{f' section {stage.section}' if stage.section else ''}, which report/stage_reports.py does not read: "
        "add it to _SOURCES there")


def test_a_report_the_funnel_does_not_read_is_caught():
    assert not read_by_funnel(DataLayout.inventory, None)
    assert not read_by_funnel(DataLayout.speech_report, "no_such_section")
    assert read_by_funnel(DataLayout.speech_report, "text_import")  # the text import, inside tagged_turns
