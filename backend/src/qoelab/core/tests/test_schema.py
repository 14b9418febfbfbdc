"""The OpenAPI document is valid OpenAPI 3 and the browsable docs are served."""

from __future__ import annotations

import pytest
import yaml
from django.test import Client
from openapi_spec_validator import validate


@pytest.mark.django_db
def test_schema_is_valid_openapi_3() -> None:
    response = Client().get("/api/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    validate(schema)
    assert "/api/v1/studies/{id}/" in schema["paths"]


@pytest.mark.django_db
def test_docs_are_served_without_a_cdn() -> None:
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    assert b"/static/drf_spectacular_sidecar/swagger-ui-dist/" in response.content
