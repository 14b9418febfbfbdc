"""Small helpers shared by the API views."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Model, QuerySet
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from qoelab.core.errors import ServiceError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """REST_FRAMEWORK['EXCEPTION_HANDLER']: a :class:`ServiceError` becomes its status and
    JSON body; everything else is DRF's (validation errors, 403, 404, …), a bare list of
    messages turned into ``{"detail": …}``. Exceptions DRF does not know are left to
    :mod:`qoelab.core.api_errors` (500/503 JSON)."""
    if isinstance(exc, ServiceError):
        set_rollback()
        return Response(exc.body(), status=exc.status)
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(response.data, list):
        # ``ValidationError("message")`` outside a serializer: DRF answers a bare list;
        # every error under /api/ is an object with ``detail`` (docs/api.md).
        response.data = {"detail": " ".join(str(message) for message in response.data)}
    return response


MAX_ID = 2**63 - 1
M = TypeVar("M", bound=Model)


def filter_by_id(queryset: QuerySet[M], lookup: str, raw: str | None) -> QuerySet[M]:
    """Filter ``queryset`` by an id query parameter; a malformed id matches nothing."""
    if raw is None:
        return queryset
    if not raw.isdigit() or int(raw) > MAX_ID:
        return queryset.none()
    return queryset.filter(**{lookup: int(raw)})


#: Ids in URLs: up to 18 digits (fits a 64-bit key); anything else is simply not found.
ID_PATTERN = r"[0-9]{1,18}"


class IdConverter:
    """``<id:pk>`` in URL patterns: an integer id that the database can hold."""

    regex = ID_PATTERN

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)
