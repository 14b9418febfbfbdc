"""Security headers on every response: Content-Security-Policy and friends (issue 13, 6).

The app (console, results explorer) and the participant's screens are Vite bundles served
from ``/static/``: every script is a same-origin file, every stylesheet too, so their
policy allows nothing inline (React's ``style`` props go through the CSSOM, which CSP does
not restrict). Figures download as ``data:``/``blob:`` images. The proof is in the browser
test e2e/test_security_headers.py (no ``securitypolicyviolation`` on the real pages).

Two kinds of pages are not ours: the API docs (Swagger UI, Redoc) and the Django admin inject
``<style>`` elements (and Redoc runs a ``blob:`` worker), so they get a policy that allows
inline *styles* — still no inline script.

A view may set its own ``Content-Security-Policy`` (or any header below); this middleware
only fills in what is missing.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

COMMON = {
    "default-src": "'self'",
    "script-src": "'self'",
    "connect-src": "'self'",
    "img-src": "'self' data: blob:",
    "font-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}

#: The Vite bundles: nothing inline at all.
APP_POLICY = {**COMMON, "style-src": "'self'"}

#: Swagger UI, Redoc and the admin: inline styles (their templates and libraries), workers.
THIRD_PARTY_UI_POLICY = {
    **COMMON,
    "style-src": "'self' 'unsafe-inline'",
    "worker-src": "'self' blob:",
}

THIRD_PARTY_UI_PREFIXES = ("/api/docs/", "/api/redoc/", "/admin/")

#: No powerful browser feature is used by any page.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
    )
)


def render(policy: dict[str, str]) -> str:
    return "; ".join(f"{directive} {sources}" for directive, sources in policy.items())


def policy_for(path: str) -> str:
    """The Content-Security-Policy of a request path."""
    if path.startswith(THIRD_PARTY_UI_PREFIXES):
        return render(THIRD_PARTY_UI_POLICY)
    return render(APP_POLICY)


class SecurityHeadersMiddleware:
    """Adds CSP, Referrer-Policy, X-Content-Type-Options and Permissions-Policy."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", policy_for(request.path))
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response
