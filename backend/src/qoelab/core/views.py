"""Health endpoint and the single-page frontend's shell."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

from qoelab import __version__
from qoelab.core.health import broker_status, database_status, shared_worker_status
from qoelab.core.health_access import shows_details


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 ``{"status": "ok"}`` when the database (and the broker, if one is configured)
    answer, else 503 ``{"status": "degraded"}``.

    ``?worker=1`` also asks whether a Celery worker answers a ping task: anyone may ask,
    so the answer is shared for a few seconds and only one ping is in flight at a time
    (:func:`qoelab.core.health.shared_worker_status`). Only staff and holders of the health
    token see each check's details (version, database, broker, worker); anyone else gets
    the status alone (:mod:`qoelab.core.health_access`, issue 34).
    """
    checks = {"database": database_status(), "broker": broker_status()}
    if request.GET.get("worker") in {"1", "true", "yes"}:
        checks["worker"] = shared_worker_status()
    healthy = all(check["ok"] for check in checks.values())
    body: dict[str, Any] = {"status": "ok" if healthy else "degraded"}
    if shows_details(request):
        body.update(version=__version__, **checks)
    return JsonResponse(body, status=200 if healthy else 503)


#: Paths served the participant entry (participant.html): the session link and its short form.
PARTICIPANT_PREFIXES = ("/participant/", "/p/")


@never_cache
@ensure_csrf_cookie
@require_GET
def frontend_app(request: HttpRequest) -> HttpResponseBase:
    """Serve the built frontend's HTML shell for every client-side route.

    ``/participant/…`` (and ``/p/…``) get ``participant.html``, the participant's entry
    (no chart code, no console); every other route gets ``index.html``, the researcher's
    console and results explorer. The CSRF cookie is set so that the console can send the
    token with its unsafe API requests (Django session authentication).
    """
    participant = request.path.startswith(PARTICIPANT_PREFIXES)
    shell = settings.FRONTEND_DIST / ("participant.html" if participant else "index.html")
    if not shell.is_file():
        return HttpResponse(
            "The frontend is not built. Run `make demo` (or `make frontend`) "
            f"to build it into {settings.FRONTEND_DIST}.",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
    response = FileResponse(shell.open("rb"), content_type="text/html; charset=utf-8")
    if participant:
        # The session link carries the participant's token in its fragment; never leak the
        # page's URL to other sites, and keep the page out of search engines.
        response["Referrer-Policy"] = "no-referrer"
        response["X-Robots-Tag"] = "noindex"
    return response
