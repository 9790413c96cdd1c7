"""erase_job: a steward's erasure from the UI is a dry run unless told otherwise; a real one writes the
ledger, tags its run and deletes the earlier runs that named an erased id; the reingest_after_erasure sensor asks
for an ingest run of each touched upload and then deletes the erasure's own run (its config holds the values)."""

from __future__ import annotations

import json
import threading
import time

import dagster as dg
import pytest

from vak_pipeline.core.erasure import read_entries
from vak_pipeline.defs.erasure import ERASURE_TAG, UPLOADS_TAG, erase_job, reingest_after_erasure
from vak_pipeline.defs.resources import DataResource
from vak_pipeline.layout import DataLayout
from vak_pipeline.storage import data_lock

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def data(tmp_path):
    layout = DataLayout.at(tmp_path)
    path = layout.conversations("calls")
    path.parent.mkdir(parents=True)
    rec = {"id": "calls-a", "turns": [{"speaker": "user", "start": 0, "end": 1, "text": "hi"}],
           "meta": {"origin": {"upload": "calls", "file": "calls/a.wav", "line": 1}, "speakers": {"user": "c-17"}}}
    path.write_text(json.dumps(rec) + "\n")
    return tmp_path


def _erase(root, instance, **config):
    return erase_job.execute_in_process(
        run_config={"ops": {"erase": {"config": {"selector": "speaker", "values": ["c-17"], **config}}}},
        resources={"data": DataResource(root=str(root))}, instance=instance)


def test_the_ui_job_is_a_dry_run_by_default(data):
    with dg.instance_for_test() as instance:
        res = _erase(data, instance)
        assert res.success and read_entries(data) == []
        assert ERASURE_TAG not in instance.get_run_by_id(res.run_id).tags


def test_a_real_erasure_is_tagged_and_re_ingests_what_it_touched(data):
    with dg.instance_for_test() as instance:
        res = _erase(data, instance, dry_run=False, reference="DSR-9")
        assert res.success and [e.reference for e in read_entries(data)] == ["DSR-9"]
        run = instance.get_run_by_id(res.run_id)
        assert run.tags[ERASURE_TAG] == "DSR-9" and run.tags[UPLOADS_TAG] == "calls"
        ctx = dg.build_run_status_sensor_context(sensor_name=reingest_after_erasure.name,
                                                 dagster_instance=instance, dagster_run=run,
                                                 dagster_event=res.get_run_success_event())
        [request] = reingest_after_erasure(ctx)
        assert request.partition_key == "calls" and request.tags["vak/launched_by"] == "sensor"
        # the erasure's own run held the values it was given in its config: it is gone once it has finished
        assert instance.get_run_by_id(res.run_id) is None
        assert not any("c-17" in repr(r.run_config) + repr(r.tags) for r in instance.get_runs())


def test_a_real_erasure_from_the_ui_deletes_the_earlier_runs_that_named_the_erased_conversation(data):
    with dg.instance_for_test() as instance:
        earlier = talk.execute_in_process(run_config={"ops": {"says": {"config": {"text": "calls-a"}}}},
                                          instance=instance)
        other = talk.execute_in_process(run_config={"ops": {"says": {"config": {"text": "calls-b"}}}},
                                        instance=instance)
        res = _erase(data, instance, dry_run=False)
        assert res.success
        assert instance.get_run_by_id(earlier.run_id) is None  # it logged the erased conversation's id
        assert instance.get_run_by_id(other.run_id) is not None and instance.get_run_by_id(res.run_id) is not None


def test_an_erasure_from_the_ui_waits_while_a_vak_run_holds_the_data_directory(data):
    """The erase job takes the data directory's writer lock, so it never rewrites uploads a run is writing."""
    with dg.instance_for_test() as instance, data_lock(data, echo=lambda _: None):
        worker = threading.Thread(target=_erase, args=(data, instance), kwargs={"dry_run": False}, daemon=True)
        worker.start()
        deadline = time.monotonic() + 60
        while not any("waiting for it to finish" in (e.user_message or "")
                      for run in instance.get_runs() for e in instance.all_logs(run.run_id)):
            assert time.monotonic() < deadline, "the erase job never reached the lock"
            time.sleep(0.05)
        assert read_entries(data) == []  # blocked on the lock: nothing carried out yet
    worker.join(timeout=120)
    assert not worker.is_alive() and [len(e.conversations) for e in read_entries(data)] == [1]


@dg.op(config_schema={"text": str})
def says(context) -> None:  # noqa: ANN001 - a string annotation is refused by Dagster here
    text = context.op_config["text"]
    context.log.info(f"record {text} checked")
    context.log_event(dg.AssetObservation(asset_key="validated_manifest", metadata={"first": text}))


@dg.job
def talk():
    says()


def test_scrubbing_the_instance_deletes_the_runs_that_named_an_erased_id_and_leaves_no_byte(tmp_path):
    from vak_pipeline.defs.erasure import compact_instance_files, scrub_instance

    home = tmp_path / "instance"
    home.mkdir()
    with dg.DagsterInstance.local_temp(str(home)) as inst:
        named = talk.execute_in_process(run_config={"ops": {"says": {"config": {"text": "chats-x-erased-77"}}}},
                                        instance=inst).run_id
        other = talk.execute_in_process(run_config={"ops": {"says": {"config": {"text": "chats-x-kept-12"}}}},
                                        instance=inst).run_id
        assert scrub_instance(inst, ["chats-x-erased-77"]) == 1
        assert inst.get_run_by_id(named) is None and inst.get_run_by_id(other) is not None
        assert scrub_instance(inst, ["chats-x-erased-77"]) == 0
    assert compact_instance_files(str(home)) == []
    hits = [p.name for p in home.rglob("*") if p.is_file() and b"chats-x-erased-77" in p.read_bytes()]
    assert hits == [] and any(b"chats-x-kept-12" in p.read_bytes() for p in home.rglob("*.db"))
