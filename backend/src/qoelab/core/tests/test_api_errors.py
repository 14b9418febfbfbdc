"""Issue 13, finding 3: JSON errors on every path under /api/, with request ids.

Before: a 100,000-deep JSON body on the login endpoint was a 500 with a logged traceback,
oversized bodies and unknown API paths got Django's HTML pages, and an uncaught exception
answered an HTML 500 page without any id to find it in the log.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client, override_settings

from qoelab.core.parsers import nesting_depth
from qoelab.studies.views import FactorsView

LOGIN = "/api/v1/auth/login/"


def test_nesting_depth_counts_brackets_outside_strings() -> None:
    assert nesting_depth(b'{"a": [1, {"b": "[[[{{{"}]}', 100) == 3
    assert nesting_depth(b'["\\"]]]]", [[]]]', 100) == 3
    assert nesting_depth(b'["a\\\\", "[[[[", {"k": []}]', 100) == 3  # "a\\" ends there
    assert nesting_depth(b"[[1], [[2]], {}]", 100) == 3
    assert nesting_depth(b"42", 100) == 0
    # Counting stops past the limit.
    assert nesting_depth(b"[" * 100_000, 10) == 11


@pytest.mark.django_db
def test_deep_json_on_the_unauthenticated_login_is_a_400_json(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = Client()
    deep = "[" * 100_000 + "]" * 100_000
    cache.clear()  # the login throttle counts these as attempts, too
    with caplog.at_level(logging.ERROR):
        answers = [client.post(LOGIN, deep, content_type="application/json") for _ in range(5)]
    assert {response.status_code for response in answers} == {400}
    body = answers[0].json()
    assert "nested deeper than 32 levels" in body["detail"]
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    # Just inside the limit is still parsed (and judged by the serializer).
    shallow = "[" * 32 + "]" * 32
    response = client.post(LOGIN, shallow, content_type="application/json")
    assert response.status_code == 400
    assert "nested" not in response.content.decode()


@pytest.mark.django_db
def test_malformed_json_and_nan_are_400_json() -> None:
    client = Client()
    cache.clear()
    for raw in ('{"username": ', '{"username": NaN}', b"\xff\xfe{}"):
        response = client.post(LOGIN, raw, content_type="application/json")
        assert response.status_code == 400, raw
        assert response["Content-Type"] == "application/json"
        assert response.json()["detail"].startswith("JSON parse error")


@pytest.mark.django_db
@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=10_000)
def test_oversized_bodies_are_413_json() -> None:
    client = Client()
    cache.clear()
    big = '{"username": "' + "x" * 20_000 + '", "password": "p"}'
    response = client.post(LOGIN, big, content_type="application/json")
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert "10000 bytes" in response.json()["detail"]
    form = "username=" + "x" * 20_000
    response = client.post(LOGIN, form, content_type="application/x-www-form-urlencoded")
    assert (response.status_code, response["Content-Type"]) == (413, "application/json")
    # Multipart: Django's own limit (RequestDataTooBig), formerly an HTML 400 page.
    response = client.post(LOGIN, {"username": "x" * 20_000, "password": "p"})
    assert (response.status_code, response["Content-Type"]) == (413, "application/json")
    assert "larger than 10000 bytes" in response.json()["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
def test_unknown_api_paths_are_404_json(debug: bool) -> None:
    with override_settings(DEBUG=debug):
        for path in ("/api/v1/nothing/", "/api/v2/studies/", "/api/v1/studies/abc/"):
            response = Client().get(path)
            assert response.status_code == 404, path
            assert response["Content-Type"] == "application/json"
            assert response.json() == {"detail": "Not found."}
            assert response["X-Request-ID"]
            assert response["X-Content-Type-Options"] == "nosniff"  # inner middleware's
    # Outside /api/ the client-side routes still get the app shell, not JSON.
    assert not Client().get("/no-such-page").get("Content-Type", "").startswith("application/json")


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
def test_a_crash_is_a_500_json_with_the_request_id_and_no_traceback(
    debug: bool, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def crash(self: Any, request: Any) -> Any:
        raise RuntimeError("secret internals: /srv/qoelab/settings.py line 7")

    monkeypatch.setattr(FactorsView, "get", crash)
    client = Client(raise_request_exception=False)
    with override_settings(DEBUG=debug), caplog.at_level(logging.ERROR):
        response = client.get("/api/v1/factors/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    body = response.json()
    request_id = response["X-Request-ID"]
    assert body == {
        "detail": "Internal server error; quote the request id when reporting it.",
        "request_id": request_id,
    }
    assert "secret" not in response.content.decode()
    assert "Traceback" not in response.content.decode()
    # The traceback is in the log, under the same request id.
    logged = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert len(logged) == 1
    assert getattr(logged[0], "request_id", None) == request_id
    assert logged[0].exc_info is not None and logged[0].exc_info[0] is RuntimeError


@pytest.mark.django_db
def test_request_ids_are_unique_or_the_proxys() -> None:
    client = Client()
    ids = {client.get("/api/v1/factors/")["X-Request-ID"] for _ in range(5)}
    assert len(ids) == 5
    given = client.get("/api/v1/factors/", headers={"X-Request-ID": "proxy-1234abcd"})
    assert given["X-Request-ID"] == "proxy-1234abcd"
    # A malformed one (log injection) is replaced.
    forged = client.get("/api/v1/factors/", headers={"X-Request-ID": "a b\nERROR fake"})
    assert forged["X-Request-ID"] != "a b\nERROR fake"
    assert len(forged["X-Request-ID"]) == 32
