"""Sign-in for the browser app: JSON login and logout with Django's session, "who am I".

* ``GET  /api/v1/auth/csrf/``   sets the ``csrftoken`` cookie (and returns its value);
* ``POST /api/v1/auth/login/``  ``{username, password}`` → 200 ``{user}`` | 400 ``{detail}``;
* ``POST /api/v1/auth/logout/`` ends the session (204, also when there was none);
* ``GET  /api/v1/auth/me/``     200 ``{id, username, is_staff}`` | 403 when not signed in.

Login is CSRF-protected even for an anonymous caller (DRF checks CSRF only for a session
that is already authenticated; a forged cross-site login must fail too). Views are thin:
:mod:`qoelab.accounts.services` does the work.
"""

from __future__ import annotations

from typing import Any

from django.middleware.csrf import get_token
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from qoelab.accounts import services
from qoelab.accounts.serializers import (
    CsrfSerializer,
    DetailSerializer,
    LoginResponseSerializer,
    LoginSerializer,
    ResearcherSerializer,
)
from qoelab.studies.access import IsResearcher

ERROR = OpenApiResponse(DetailSerializer, description='{"detail": message}')


@method_decorator([never_cache, ensure_csrf_cookie], name="dispatch")
class CsrfView(APIView):
    """Set the ``csrftoken`` cookie; unsafe requests send its value in ``X-CSRFToken``."""

    permission_classes = [AllowAny]

    @extend_schema(responses=CsrfSerializer)
    def get(self, request: Request) -> Response:
        return Response({"csrf_token": get_token(request._request)})


@method_decorator(never_cache, name="dispatch")
class LoginView(APIView):
    """Sign in with a Django account (staff status not needed); starts a session."""

    permission_classes = [AllowAny]
    # The guessing limits apply in the authentication backend (qoelab.accounts.throttles),
    # on this view as on HTTP basic auth and the admin; a full bucket is 429.
    throttle_classes: list[Any] = []

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # Before authentication: a forged request costs no attempt.
        SessionAuthentication().enforce_csrf(request)
        super().initial(request, *args, **kwargs)

    @extend_schema(
        request=LoginSerializer,
        responses={
            200: LoginResponseSerializer,
            400: OpenApiResponse(description='{"detail": message} or {"field": [messages]}'),
            403: OpenApiResponse(DetailSerializer, description="CSRF token missing or wrong"),
            429: OpenApiResponse(
                DetailSerializer, description="too many failed attempts (Retry-After)"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        serializer = LoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = services.log_in(
            request._request,
            serializer.validated_data["username"],
            serializer.validated_data["password"],
        )
        return Response({"user": services.describe(user)})


@method_decorator(never_cache, name="dispatch")
class LogoutView(APIView):
    """End the session. CSRF-protected like every unsafe request of a session."""

    permission_classes = [AllowAny]

    @extend_schema(request=None, responses={204: None, 403: ERROR})
    def post(self, request: Request) -> Response:
        services.log_out(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


@method_decorator([never_cache, ensure_csrf_cookie], name="dispatch")
class MeView(APIView):
    """The signed-in researcher (403 when not signed in); also sets the CSRF cookie."""

    permission_classes = [IsResearcher]

    @extend_schema(responses={200: ResearcherSerializer, 403: ERROR})
    def get(self, request: Request) -> Response:
        return Response(services.describe(request.user))
