"""Health endpoint and the single-page frontend's shell."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from qoelab import __version__
from qoelab.core.health import broker_status, database_status, worker_status


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database (and the broker, if one is configured) answer, else 503.

    ``?worker=1`` also sends a ping task and waits for a Celery worker to answer.
    """
    checks = {"database": database_status(), "broker": broker_status()}
    if request.GET.get("worker") in {"1", "true", "yes"}:
        checks["worker"] = worker_status()
    healthy = all(check["ok"] for check in checks.values())
    body = {"status": "ok" if healthy else "unavailable", "version": __version__, **checks}
    return JsonResponse(body, status=200 if healthy else 503)


@never_cache
@require_GET
def frontend_app(request: HttpRequest) -> HttpResponseBase:
    """Serve the built React app's index.html for every client-side route."""
    index = settings.FRONTEND_DIST / "index.html"
    if not index.is_file():
        return HttpResponse(
            "The frontend is not built. Run `make demo` (or `make frontend`) "
            f"to build it into {settings.FRONTEND_DIST}.",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
    return FileResponse(index.open("rb"), content_type="text/html; charset=utf-8")
