"""Security headers on every response (qoelab.core.security_headers; browser proof: e2e)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client, override_settings


def directives(policy: str) -> dict[str, str]:
    return dict(part.strip().split(" ", 1) for part in policy.split(";"))


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    for name in ("index.html", "participant.html"):
        (tmp_path / name).write_text("<html></html>", encoding="utf-8")
    return tmp_path


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/console", "/participant/3", "/healthz", "/api/v1/factors/"])
def test_app_pages_and_api_get_the_strict_policy(dist: Path, path: str) -> None:
    with override_settings(FRONTEND_DIST=dist):
        response = Client().get(path)
    policy = directives(response["Content-Security-Policy"])
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"  # no inline style element or attribute either
    assert policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'" and policy["base-uri"] == "'none'"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "camera=()" in response["Permissions-Policy"]
    expected_referrer = "no-referrer" if path.startswith("/participant/") else "same-origin"
    assert response["Referrer-Policy"] == expected_referrer


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/", "/admin/login/"])
def test_third_party_pages_allow_inline_styles_but_no_inline_script(path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 200
    policy = directives(response["Content-Security-Policy"])
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self' 'unsafe-inline'"


@pytest.mark.django_db
def test_swagger_ui_has_no_inline_script() -> None:
    page = Client().get("/api/docs/").content.decode()
    assert "<script>" not in page  # the split view: its start-up script is a file
    script = Client().get("/api/docs/", {"script": ""})
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
