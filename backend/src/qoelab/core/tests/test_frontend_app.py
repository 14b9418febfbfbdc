"""The HTML shells: participant.html for the participant's routes, index.html elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client, override_settings


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    (tmp_path / "index.html").write_text("<html>console</html>", encoding="utf-8")
    (tmp_path / "participant.html").write_text("<html>participant</html>", encoding="utf-8")
    return tmp_path


def body(response: object) -> str:
    return b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/participant/12", "/participant/12/", "/p/7/abcdefghijklmnopqrstuv"]
)
def test_participant_routes_get_the_participant_entry(dist: Path, path: str) -> None:
    with override_settings(FRONTEND_DIST=dist):
        response = Client().get(path)
    assert response.status_code == 200
    assert body(response) == "<html>participant</html>"
    assert response["Referrer-Policy"] == "no-referrer"
    assert response["Cache-Control"].startswith("max-age=0")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/", "/console", "/console/sessions/3", "/login", "/participants"]
)
def test_other_routes_get_the_console_with_a_csrf_cookie(dist: Path, path: str) -> None:
    with override_settings(FRONTEND_DIST=dist):
        response = Client().get(path)
    assert response.status_code == 200
    assert body(response) == "<html>console</html>"
    assert "csrftoken" in response.cookies


@pytest.mark.django_db
def test_a_missing_build_is_a_503_with_instructions(tmp_path: Path) -> None:
    with override_settings(FRONTEND_DIST=tmp_path):
        response = Client().get("/participant/1")
    assert response.status_code == 503
    assert b"make frontend" in response.content
