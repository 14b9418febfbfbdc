"""A study's fields that strangers do not see (issue 34, finding 5).

The study detail is public (its design: games, scenarios, settings), and it used to carry
the owner's user name — half of a sign-in, and the target of the guessing that locked
owners out — and the ratings per agent backend, which are the study's data, not its
design. Both are now shown only to the study's owner, its members and staff; for anyone
else (anonymous callers, other researchers) the keys are absent, and the OpenAPI schema
says so (they are optional in ``StudyDetail``).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension

from qoelab.studies.access import can_access
from qoelab.studies.models import Study

PRIVATE_DETAIL_FIELDS = ("owner", "ratings_by_backend")


def shows_private_fields(request: Any, study: Study) -> bool:
    """May the caller see the study's :data:`PRIVATE_DETAIL_FIELDS`? Its owner, members
    and staff may. Without a request (the service's own use, e.g. the answer to the clone
    or the import that just made the caller the owner) they are shown."""
    if request is None:
        return True
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return False
    return bool(user.is_staff) or can_access(user, study)


class StudyDetailSchema(OpenApiSerializerExtension):  # type: ignore[no-untyped-call]
    """``StudyDetail`` as drf-spectacular maps it, with the private fields not required."""

    target_class = "qoelab.studies.serializers.StudyDetailSerializer"

    def map_serializer(self, auto_schema: Any, direction: str) -> Any:
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        if "required" in schema:
            schema["required"] = [
                name for name in schema["required"] if name not in PRIVATE_DETAIL_FIELDS
            ]
        return schema
