"""Resources shared by the assets. Each holds configuration only; the work is in the library."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import Field, PrivateAttr

from vak_pipeline.layout import DataLayout
from vak_pipeline.speech.asr import AsrSettings
from vak_pipeline.speech.diarize import DiarizerSettings
from vak_pipeline.uploads.limits import InputLimits

from .config import config_class, library_settings


class LimitsConfig(config_class(InputLimits)):
    """uploads.limits.InputLimits, as config (the data resource's `limits`)."""


class DataResource(dg.ConfigurableResource):
    """Where the dataset lives: a local path, a mounted shared volume, or an fsspec URL (s3://bucket/x).

    For a URL the steps work in a local mirror (vak_pipeline.mirror): setting the resource up for a run's
    step pulls what that step needs (`pull`; an upload's ingest run: only that upload), and tearing it down
    pushes what the step wrote, so steps on different machines share the bucket. `layout` only names the
    paths; it never downloads. A sensor (no run) pulls nothing: it lists uploads through `mirror()`.

    `limits`: how large and deep an uploaded file may be (uploads.limits.InputLimits), set in this one place
    for every stage that reads an upload (normalize, tagged_turns and its text import, redaction, synth).
    """

    root: str = "data"
    cache: str = Field(default="", description="Local mirror of a URL root (default $VAK_CACHE or "
                                               "~/.cache/vak_pipeline/<hash of the URL>); unused for a path.")
    limits: LimitsConfig = Field(default_factory=LimitsConfig, description="Input limits every stage that reads "
                                 "an upload honours (uploads.limits.InputLimits).")
    _mirror: Any = PrivateAttr(default=None)
    _pulled: bool = PrivateAttr(default=False)
    _partition: str | None = PrivateAttr(default=None)
    _writer: Any = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        run = context.run
        self._partition = run.tags.get("dagster/partition") if run is not None else None
        if run is not None:
            self._refuse_links()
            self._tag_truthfully(context)
            self.pull()
            self._take_writer_lock(context)

    def _refuse_links(self) -> None:
        """A linked data root, raw/ or upload folder fails the step with one sentence (uploads.links)."""
        from vak_pipeline.mirror import is_url
        from vak_pipeline.uploads.links import data_root_link

        why = None if is_url(self.root) else data_root_link(self.root, self._partition)
        if why is not None:
            raise dg.Failure(description=why, allow_retries=False)

    def _tag_truthfully(self, context: dg.InitResourceContext) -> None:
        """The run says the root it really works on and who launched it (a Materialize button's run has
        no tags of ours; a launchpad run may have changed the root)."""
        from .tags import true_tags

        want = true_tags(context.run.tags, self.root)
        if any(context.run.tags.get(k) != v for k, v in want.items()) and context.instance is not None:
            context.instance.add_run_tags(context.run.run_id, want)

    def _take_writer_lock(self, context: dg.InitResourceContext) -> None:
        """One writer per upload (and one publish) of a data root: the step holds the root's lock
        (vak_pipeline.writers), unless the `vak run` that launched this run holds it for it."""
        import contextlib

        from vak_pipeline import writers

        if self.mirror() is not None:  # a URL root: the local mirror is this machine's own
            return
        layout = self.layout
        path = layout.writer_lock(self._partition) if self._partition else layout.publish_lock
        token = context.run.tags.get(writers.TOKEN_TAG)
        lease = writers.busy(path)
        if token and lease is not None and lease.held and lease.token == token:
            return  # our launcher holds it for the whole run

        def waiting(lease: writers.Lease | None) -> None:
            if context.log is not None:
                who = f"run {lease.token} (pid {lease.pid} on {lease.host})" if lease else "another writer"
                context.log.info(f"waiting for {who} to release {path}")

        self._writer = contextlib.ExitStack()
        self._writer.enter_context(writers.hold(path, token or context.run.run_id, on_wait=waiting,
                                                  shared=True))

    def mirror(self):  # -> Mirror | None; made once per resource (lazy import: fsspec only for a URL)
        from vak_pipeline.mirror import Mirror, is_url

        if self._mirror is None and is_url(self.root):
            self._mirror = Mirror(self.root, Path(self.cache) if self.cache else None)
        return self._mirror

    def pull(self) -> DataLayout:
        """Bring what this step needs of a URL root into the local mirror (once per resource); a path needs
        nothing. Called when the resource is set up for a step; returns the layout the step works in."""
        mirror = self.mirror()
        if mirror is not None and not self._pulled:
            from vak_pipeline.mirror import step_scope

            mirror.pull(step_scope(self._partition))
            self._pulled = True
        return self.layout

    @property
    def input_limits(self) -> InputLimits:
        """`limits` as the library's model."""
        return library_settings(self.limits, InputLimits)

    @property
    def layout(self) -> DataLayout:
        """Where the steps read and write: the root itself, or the local mirror of a URL (see `pull`)."""
        mirror = self.mirror()
        return DataLayout.at(self.root if mirror is None else mirror.cache)

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._pulled:
            stats = self._mirror.push()
            if context.log is not None:
                context.log.info(f"pushed {self._mirror.cache} to {self.root}: {stats}")


class WhisperResource(config_class(AsrSettings, dg.ConfigurableResource)):
    """faster-whisper settings: speech.asr.AsrSettings as a resource (fields, constraints and descriptions are
    the library's, so the launchpad shows them and rejects bad values). model '' = the bundled tiny.en."""

    def settings(self) -> AsrSettings:
        return library_settings(self, AsrSettings)


class DiarizerResource(config_class(DiarizerSettings, dg.ConfigurableResource)):
    """Diarizer of mono recordings: speech.diarize.DiarizerSettings as a resource (fields, constraints and
    descriptions are the library's). engine auto: pyannote when its weights are on this machine, else the
    offline engine whose weights ship in the resemblyzer wheel."""

    def settings(self) -> DiarizerSettings:
        return library_settings(self, DiarizerSettings)

    def diarizer(self):
        """A library diarizer, or None (engine none, or nothing installed: mono calls are then reported)."""
        return self.choose()[0]

    def choose(self):
        """(library diarizer or None, why it was chosen) - the reason is logged by the transcripts asset."""
        from vak_pipeline.speech.diarize_offline import select_diarizer

        return select_diarizer(self.settings())


def default_resources(data_root: str | None = None) -> dict[str, object]:
    """Resources bound in definitions.py; `vak run --data DIR` passes its own root."""
    import os

    # HF_TOKEN / VAK_DIARIZER_PIPELINE are bound as EnvVar only when set, so runs without them still launch
    diarizer = DiarizerResource(
        pipeline=dg.EnvVar("VAK_DIARIZER_PIPELINE") if os.environ.get("VAK_DIARIZER_PIPELINE") else "",
        hf_token=dg.EnvVar("HF_TOKEN") if os.environ.get("HF_TOKEN") else None)
    return {"data": DataResource(root=data_root or os.environ.get("VAK_DATA", "data")),
            "whisper": WhisperResource(), "diarizer": diarizer}
