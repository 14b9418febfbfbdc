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


@pytest.mark.django_db
def test_every_operation_documents_the_shared_error_answers() -> None:
    """Issue 13: statuses the API really answers were missing from the schema."""
    schema = yaml.safe_load(Client().get("/api/schema/").content)
    error = {"$ref": "#/components/schemas/Error"}
    assert schema["components"]["schemas"]["Error"]["required"] == ["detail"]
    operations = 0
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            operations += 1
            responses = operation["responses"]
            where = f"{method.upper()} {path}"
            for status in ("500", "503"):
                assert responses[status]["content"]["application/json"]["schema"] == error, where
            assert "Retry-After" in responses["503"]["headers"], where
            if "{" in path:
                assert "404" in responses, where
            if "requestBody" in operation:
                assert {"400", "413", "415"} <= set(responses), where
            if method in {"post", "put", "patch", "delete"}:
                assert {"403", "409"} <= set(responses), where
    assert operations > 40
    login = schema["paths"]["/api/v1/auth/login/"]["post"]["responses"]
    assert "429" in login and "Retry-After" in login["429"]["headers"]
    studies = schema["paths"]["/api/v1/studies/"]["get"]["responses"]
    assert {"401", "403"} <= set(studies)


@pytest.mark.django_db
def test_a_session_not_paused_matches_its_schema() -> None:
    """``paused_from`` is "" when the session is not paused: the schema allows it."""
    schema = yaml.safe_load(Client().get("/api/schema/").content)
    paused_from = schema["components"]["schemas"]["Session"]["properties"]["paused_from"]
    assert {"$ref": "#/components/schemas/BlankEnum"} in paused_from["oneOf"]
    assert schema["components"]["schemas"]["Session"]["properties"]["station_name"]["nullable"]
