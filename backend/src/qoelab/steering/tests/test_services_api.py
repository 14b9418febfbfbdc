"""Steering services belong to their owner: others get 404; the token is write-only and
goes only to the URL it was entered with."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from qoelab.steering.models import SteeringService

TOKEN = "steer-status-token-0123456789"
LIST = "/api/v1/steering-services/"


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def alice(db: Any) -> Any:
    return get_user_model().objects.create_user("alice", password="alice-password-1")


@pytest.fixture
def bob(db: Any) -> Any:
    return get_user_model().objects.create_user("bob", password="bob-password-1")


def create(client: APIClient, **extra: Any) -> Any:
    body = {"name": "Lab steer", "status_url": "http://127.0.0.1:8790/", "token": TOKEN, **extra}
    return client.post(LIST, body, format="json")


def test_owner_creates_lists_edits_and_deletes_and_never_sees_the_token(alice: Any) -> None:
    client = client_for(alice)
    created = create(client)
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["status_url"] == "http://127.0.0.1:8790"  # trailing slash dropped
    assert "token" not in body
    service = SteeringService.objects.get(pk=body["id"])
    assert service.owner == alice and service.token == TOKEN

    listed = client.get(LIST).json()
    assert [s["name"] for s in listed] == ["Lab steer"] and "token" not in listed[0]

    renamed = client.patch(f"{LIST}{body['id']}/", {"name": "Rack 2"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name"] == "Rack 2"
    assert client.delete(f"{LIST}{body['id']}/").status_code == 204
    assert not SteeringService.objects.exists()


def test_another_researcher_gets_404_for_everything(alice: Any, bob: Any) -> None:
    service_id = create(client_for(alice)).json()["id"]
    other = client_for(bob)
    assert other.get(LIST).json() == []
    path = f"{LIST}{service_id}/"
    assert other.get(path).status_code == 404
    assert other.get(f"{path}state/").status_code == 404
    assert other.patch(path, {"name": "mine"}, format="json").status_code == 404
    assert other.delete(path).status_code == 404
    assert SteeringService.objects.get(pk=service_id).name == "Lab steer"


def test_signed_out_is_refused(db: Any) -> None:
    assert APIClient().get(LIST).status_code in (401, 403)


def test_a_new_url_needs_the_token_again(alice: Any) -> None:
    client = client_for(alice)
    service_id = create(client).json()["id"]
    path = f"{LIST}{service_id}/"
    moved = client.patch(path, {"status_url": "http://127.0.0.1:9999"}, format="json")
    assert moved.status_code == 400
    assert "only ever sent to the URL it was given for" in moved.json()["token"][0]
    assert SteeringService.objects.get(pk=service_id).status_url == "http://127.0.0.1:8790"
    other = "another-status-token-987654321"
    ok = client.patch(path, {"status_url": "http://127.0.0.1:9999", "token": other}, format="json")
    assert ok.status_code == 200
    assert SteeringService.objects.get(pk=service_id).token == other


@pytest.mark.parametrize(
    ("extra", "field", "fragment"),
    [
        ({"status_url": "ftp://127.0.0.1:8790"}, "status_url", None),
        ({"token": "short"}, "token", "16"),
        (
            {"ca_cert": "-----BEGIN CERTIFICATE-----\nxx\n-----END CERTIFICATE-----"},
            "ca_cert",
            None,
        ),
    ],
)
def test_bad_input_is_refused_with_the_field(
    alice: Any, extra: dict[str, Any], field: str, fragment: str | None
) -> None:
    response = create(client_for(alice), **extra)
    assert response.status_code == 400
    assert field in response.json()
    if fragment:
        assert fragment in response.json()[field][0]


def test_plain_http_to_another_machine_follows_the_stations_rule(alice: Any, settings: Any) -> None:
    settings.QOELAB_AGENT_ALLOW_PLAIN_HTTP = False
    response = create(client_for(alice), status_url="http://10.9.0.2:8790")
    assert response.status_code == 400
    assert "bearer token would cross the network in clear" in response.json()["status_url"][0]
    assert create(client_for(alice), status_url="http://127.0.0.1:8790").status_code == 201


def test_a_pasted_status_path_is_reduced_to_the_base_url(alice: Any) -> None:
    body = create(client_for(alice), status_url="http://127.0.0.1:8790/v1/status").json()
    assert body["status_url"] == "http://127.0.0.1:8790"


def test_names_are_unique_per_owner_only(alice: Any, bob: Any) -> None:
    assert create(client_for(alice)).status_code == 201
    again = create(client_for(alice))
    assert again.status_code == 400 and "name" in again.json()
    assert create(client_for(bob)).status_code == 201
