"""URL map: API under /api/v1/, schema and docs, admin, health, and the frontend app."""

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from qoelab.core.views import frontend_app, healthz
from qoelab.studies.views import StudyViewSet

router = DefaultRouter()
router.register("studies", StudyViewSet, basename="study")

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("api/v1/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("admin/", admin.site.urls),
    # Everything else that is not an API, admin or static path is a client-side route.
    re_path(r"^(?!api/|admin/|static/|healthz).*$", frontend_app, name="frontend"),
]
