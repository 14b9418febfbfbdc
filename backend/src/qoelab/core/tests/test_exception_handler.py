"""The one exception handler: service errors become their status and JSON body."""

from __future__ import annotations

from rest_framework import exceptions

from qoelab.core.api import exception_handler
from qoelab.core.errors import BadGateway, BadRequest, Conflict, NotFound
from qoelab.exports.import_cells import ImportRejected
from qoelab.runs.services import InvalidInput, WrongState


def test_service_errors_answer_their_status_with_the_message_in_detail() -> None:
    for error, status in [
        (BadRequest("bad"), 400),
        (NotFound("bad"), 404),
        (Conflict("bad"), 409),
        (BadGateway("bad"), 502),
    ]:
        response = exception_handler(error, {})
        assert response is not None
        assert (response.status_code, response.data) == (status, {"detail": "bad"})


def test_session_errors_name_the_field_and_import_errors_the_line() -> None:
    response = exception_handler(InvalidInput("age: required", field="age"), {})
    assert response is not None
    assert (response.status_code, response.data) == (
        400,
        {"detail": "age: required", "field": "age"},
    )
    response = exception_handler(WrongState("not now"), {})
    assert response is not None
    assert (response.status_code, response.data) == (409, {"detail": "not now", "field": None})
    response = exception_handler(ImportRejected("rating: missing value", 7), {})
    assert response is not None
    assert (response.status_code, response.data) == (
        400,
        {"detail": "line 7: rating: missing value", "line": 7, "column": "rating"},
    )


def test_other_exceptions_are_left_to_drf() -> None:
    response = exception_handler(exceptions.ValidationError({"score": ["Too big."]}), {})
    assert response is not None
    assert (response.status_code, response.data) == (400, {"score": ["Too big."]})
    assert exception_handler(ValueError("a bug"), {}) is None  # a 500, as before
