"""The Label Studio client without a server (a fake transport answers): what it sends, what it returns, and
errors that name the request and the status and a fix, never the token or what a task's data holds."""

from __future__ import annotations

import json

import httpx
import pytest

from vak_pipeline.review.label_studio import LabelStudio, LabelStudioError, local_file_url

TOKEN = "secret-token-123456"


def client(handler) -> LabelStudio:
    return LabelStudio("http://ls.test:8080/", TOKEN, transport=httpx.MockTransport(handler))


def test_every_request_carries_the_legacy_token_and_the_answer_is_its_json():
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(201, json={"id": 7})

    with client(handler) as ls:
        assert ls.create_project("Review batch", "<View/>") == 7
    assert seen[0].headers["Authorization"] == f"Token {TOKEN}"
    assert str(seen[0].url) == "http://ls.test:8080/api/projects/"
    assert json.loads(seen[0].content) == {"title": "Review batch", "label_config": "<View/>", "description": ""}


def test_import_returns_the_new_task_ids_in_order_and_sends_the_predictions():
    sent = {}

    def handler(request: httpx.Request) -> httpx.Response:
        sent["url"], sent["body"] = str(request.url), json.loads(request.content)
        return httpx.Response(201, json={"task_count": 2, "task_ids": [11, 12]})

    tasks = [{"data": {"audio": "/a.wav"}, "predictions": [{"result": []}]}, {"data": {"audio": "/b.wav"}}]
    with client(handler) as ls:
        assert ls.import_tasks(3, tasks) == [11, 12]
    assert sent["url"] == "http://ls.test:8080/api/projects/3/import?return_task_ids=true"
    assert sent["body"] == tasks


def test_an_import_without_ids_is_an_error_not_a_silent_empty_list():
    with client(lambda r: httpx.Response(201, json={"task_count": 2})) as ls, pytest.raises(LabelStudioError) as e:
        ls.import_tasks(3, [{"data": {}}, {"data": {}}])
    assert "imported 2 of 2 tasks into project 3" in str(e.value) and "tasks()" in str(e.value)


def test_tasks_reads_every_page():
    pages = {1: list(range(100)), 2: list(range(100, 130))}

    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        assert request.url.params["project"] == "5" and request.url.params["fields"] == "all"
        return httpx.Response(200, json={"tasks": [{"id": i} for i in pages[page]], "total": 130})

    with client(handler) as ls:
        assert [t["id"] for t in ls.tasks(5)] == list(range(130))


def test_export_asks_for_the_json_export_of_the_project():
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/api/projects/4/export"
        assert request.url.params["exportType"] == "JSON" and request.url.params["download_all_tasks"] == "false"
        return httpx.Response(200, json=[{"id": 1, "annotations": []}])

    with client(handler) as ls:
        assert ls.export(4) == [{"id": 1, "annotations": []}]


def test_a_refused_token_names_the_url_the_status_and_the_fix_but_not_the_token():
    answer = httpx.Response(401, json={"detail": "Invalid token."})
    with client(lambda r: answer) as ls, pytest.raises(LabelStudioError) as e:
        ls.whoami()
    text = str(e.value)
    assert "GET http://ls.test:8080/api/current-user/whoami" in text and "HTTP 401" in text
    assert "Invalid token." in text and "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN" in text
    assert TOKEN not in text and TOKEN not in repr(ls) and e.value.status == 401


def test_a_rejected_task_payload_names_the_fields_never_what_the_server_echoed_of_the_data():
    echoed = {"validation_errors": {"data": ["call me at +49 151 23456789"]}, "detail": "bad"}
    with client(lambda r: httpx.Response(400, json=echoed)) as ls, pytest.raises(LabelStudioError) as e:
        ls.import_tasks(2, [{"data": {"text": "call me at +49 151 23456789"}}])
    assert "HTTP 400" in str(e.value) and "rejected fields: data" in str(e.value)
    assert "23456789" not in str(e.value)


def test_a_rejected_labeling_config_repeats_the_servers_reasons():
    reasons = {"validation_errors": {"label_config": ["Tag Nope is not supported"]}}
    with client(lambda r: httpx.Response(400, json=reasons)) as ls, pytest.raises(LabelStudioError) as e:
        ls.create_project("Review batch", "<View><Nope/></View>")
    assert "Tag Nope is not supported" in str(e.value)


def test_an_unreachable_server_is_a_sentence_naming_the_url():
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with client(handler) as ls, pytest.raises(LabelStudioError) as e:
        ls.export(1)
    assert "could not reach Label Studio for GET http://ls.test:8080/api/projects/1/export" in str(e.value)
    assert "ConnectError" in str(e.value)


def test_an_answer_that_is_not_json_says_the_url_may_be_wrong():
    with client(lambda r: httpx.Response(200, text="<html>")) as ls, pytest.raises(LabelStudioError) as e:
        ls.whoami()
    assert "not with JSON" in str(e.value) and "without /api" in str(e.value)


def test_local_file_url_is_the_path_under_the_document_root_quoted(tmp_path):
    audio = tmp_path / "review" / "conv 1.wav"
    assert local_file_url(audio, tmp_path) == "/data/local-files/?d=review/conv%201.wav"
    with pytest.raises(ValueError, match="not under the local-files document root"):
        local_file_url(tmp_path.parent / "elsewhere.wav", tmp_path)
